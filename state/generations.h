/* The generation rows of the volume's database (table generation): each
 * applied change of CONFIG.SYS and PROTOCOL.INI (installer/generation.h). */
#ifndef WD_GENERATIONS_H
#define WD_GENERATIONS_H

#include <stddef.h>

#include "state/db.h"

struct generation {
	long n;
	char *at, *command, *summary;
};

/* The next generation's number (1 when there is none); db may be unopened. */
int generation_next(struct db *db, long *n, struct wd_err *err);
/* All generations, oldest first. */
int generation_list(struct db *db, struct generation **out, size_t *n, struct wd_err *err);
void generation_list_free(struct generation *g, size_t n);

#endif
