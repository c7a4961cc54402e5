#include "installer/hold.h"

#include <stdlib.h>

#include "state/holds.h"
#include "state/installed.h"

static int all_installed(struct db *db, char *const *names, int n, struct wd_err *err)
{
	int r = 0;
	for (int i = 0; !r && i < n; i++) {
		char *ver = NULL;
		if (!(r = installed_version(db, names[i], &ver, err)) && !ver)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed ('warpdrv list --installed' "
				       "shows what is)", names[i]);
		free(ver);
	}
	return r;
}

int hold_packages(struct session *s, char *const *names, int n, bool held,
		  struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	int r = session_volume(s, &v, err);
	if (!r)
		r = session_db(s, SESSION_DB_PLAIN, &db, &have, err);
	if (!r && !have)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       names[0], v->root);
	if (!r)
		r = all_installed(db, names, n, err);
	if (r || s->o.dry_run || (r = db_begin(db, err)))
		return r;
	for (int i = 0; !r && i < n; i++)
		r = hold_set(db, names[i], held, err);
	if (r || (r = db_commit(db, err)))
		db_rollback(db);
	return r;
}
