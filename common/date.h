/* Calendar dates as days since 1970-01-01 (proleptic Gregorian, UTC). */
#ifndef WD_DATE_H
#define WD_DATE_H

#include <stdbool.h>

#include "common/err.h"

#define WD_DATE_LEN 11 /* "YYYY-MM-DD" and a NUL */

/* Parses exactly "YYYY-MM-DD" with a real month and day; false otherwise. */
bool wd_date_parse(const char *s, int *days);
void wd_date_format(int days, char out[WD_DATE_LEN]);
int wd_days_from_civil(int y, int m, int d);
/* Today: WARPDRV_NOW (YYYY-MM-DD) when set, else the system clock. */
int wd_today(int *days, struct wd_err *err);

#endif
