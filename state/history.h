/* The history rows of the volume's database (table history): each install,
 * removal and undone install, in order. */
#ifndef WD_HISTORY_H
#define WD_HISTORY_H

#include <stddef.h>

#include "state/db.h"

struct history_row {
	long long id;
	char *at, *action, *package, *version;
};

/* Every row, oldest first; a database that is not open has none. */
int history_list(struct db *db, struct history_row **out, size_t *n, struct wd_err *err);
void history_list_free(struct history_row *h, size_t n);

#endif
