/* What undoing part of a setup reads from the volume's database: an
 * installed package's manifest (its CONFIG.SYS statements), and the
 * packages each generation's transaction installed (table
 * generation_package, recorded by the commit that records the generation:
 * state/txnlog.h). Every function takes a database that may not be open:
 * then there is nothing. */
#ifndef WD_LIFECYCLE_H
#define WD_LIFECYCLE_H

#include <stddef.h>

#include "state/db.h"

/* The manifest text (as signed) of an installed package, or *text NULL. */
int installed_manifest(struct db *db, const char *name, char **text, size_t *len,
		       struct wd_err *err);

struct gen_pkg {
	long n;                       /* the generation */
	char *name, *version;         /* what it installed */
	char *action;                 /* "install", "upgrade" or "reinstall" */
};

/* The packages generations n >= from installed, by generation and name. */
int generation_packages(struct db *db, long from, struct gen_pkg **out, size_t *n,
			struct wd_err *err);
void generation_packages_free(struct gen_pkg *p, size_t n);

#endif
