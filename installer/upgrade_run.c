/* upgrade below the front end (installer/upgrade.h): the session's volume,
 * keys, catalog and database opened and each package's choice made
 * (upgrade_prepare), the chosen versions read (upgrade_fetch), and the boot
 * files a new version changes planned (upgrade_boot_prepare). */
#include <stdlib.h>

#include "catalog/versions.h"
#include "installer/setup_internal.h"
#include "installer/upgrade.h"
#include "session/session.h"

int upgrade_prepare(struct session *ss, char *const *names, size_t n, struct upgrade_set *u,
		    struct wd_err *err)
{
	struct db *db;
	bool have;
	*u = (struct upgrade_set){.ss = ss};
	int r = session_volume(ss, &u->v, err);
	if (!r)
		r = session_keyring(ss, &u->kr, err);
	if (!r)
		r = session_catalog(ss, true, &u->cat, err);
	if (!r)
		r = catalog_need_repository(u->cat, err);
	if (!r)
		r = session_db(ss, SESSION_DB_PLAIN, &db, &have, err);
	if (!r && !have && n)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed (nothing is installed on %s)",
			       names[0], u->v->root);
	if (!r)
		r = upgrade_choose(have ? db : NULL, u->kr, u->cat, n ? names : NULL, n, &u->c,
				   &u->nc, err);
	return r;
}

int upgrade_fetch(struct upgrade_set *u, struct wd_err *err)
{
	u->pkgs = wd_xcalloc(u->nc + 1, sizeof *u->pkgs);
	int r = 0;
	for (size_t i = 0; !r && i < u->nc; i++) {
		if (u->c[i].held || !u->c[i].to)
			continue;
		if (!(r = catalog_fetch(u->c[i].to_from, u->c[i].to, u->kr, &u->pkgs[u->npkgs],
					err)))
			u->npkgs++;
	}
	return r;
}

int upgrade_boot_prepare(struct upgrade_set *u, struct setup **out, struct wd_err *err)
{
	struct setup *s = NULL;
	struct volume *v;
	struct db *db;
	bool have;
	*out = NULL;
	int r = session_boot_volume(u->ss, &v, err);
	if (!r)
		r = session_db(u->ss, SESSION_DB_RECOVER, &db, &have, err);
	if (!r && !(r = setup_new(&s, "upgrade", v, db, have, err)))
		r = upgrade_boot_plan(s, u->pkgs, u->npkgs, err);
	if (!r && (setup_file_changed(s, F_CONFIG) || setup_file_changed(s, F_PROTOCOL))) {
		setup_diff(s, &s->diff);
		*out = s;
		return 0;
	}
	setup_free(s);
	return r;
}

void upgrade_set_free(struct upgrade_set *u)
{
	for (size_t i = 0; i < u->npkgs; i++)
		package_free(&u->pkgs[i]);
	free(u->pkgs);
	upgrade_choices_free(u->c, u->nc);
	*u = (struct upgrade_set){0};
}
