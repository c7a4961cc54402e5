#include "common/date.h"
#include "common/hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Howard Hinnant's days_from_civil / civil_from_days. */
int wd_days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	int yoe = y - era * 400;
	int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int z, int *y, int *m, int *d)
{
	z += 719468;
	int era = (z >= 0 ? z : z - 146096) / 146097;
	int doe = z - era * 146097;
	int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp + (mp < 10 ? 3 : -9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int y, int m)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : dm[m - 1];
}

bool wd_date_parse(const char *s, int *days)
{
	if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
	if (y < 1970 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return false;
	*days = wd_days_from_civil(y, m, d);
	return true;
}

void wd_date_format(int days, char out[WD_DATE_LEN])
{
	int y, m, d;
	civil_from_days(days, &y, &m, &d);
	/* Years stay below 10000 for any date a 32-bit day count can name that
	 * matters here; clamp so the text always fits. */
	if (y < 0 || y > 9999)
		y = y < 0 ? 0 : 9999;
	snprintf(out, WD_DATE_LEN, "%04u-%02u-%02u", (unsigned)y % 10000u, (unsigned)m % 100u,
		 (unsigned)d % 100u);
}

int wd_today(int *days, struct wd_err *err)
{
	const char *now = wd_test_hook("WARPDRV_NOW");
	if (now && *now) {
		if (!wd_date_parse(now, days))
			return wd_err_set(err, WD_EUSAGE,
					  "WARPDRV_NOW=%s: expected a date as YYYY-MM-DD", now);
		return 0;
	}
	time_t t = time(NULL);
	*days = (int)(t / 86400);
	return 0;
}
