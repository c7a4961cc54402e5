/* upgrade below the front end (installer/upgrade.h): the session's volume,
 * keys, catalog and database opened and each package's choice made
 * (upgrade_prepare), the chosen versions read (upgrade_fetch), and the plan
 * made and written (upgrade_apply: the boot files a new version changes,
 * upgrade_boot_prepare, or the packages alone). */
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

/* Is any package one whose new version may change the boot files (a NIC
 * driver, or a package with CONFIG.SYS statements)? */
static bool any_boot(const struct upgrade_set *u)
{
	for (size_t i = 0; i < u->npkgs; i++)
		if (u->pkgs[i].m.kind == PKG_KIND_NIC || u->pkgs[i].m.nconfig_need)
			return true;
	return false;
}

/* The packages with the boot files, when these change: out->boot. */
static int with_boot_files(struct upgrade_set *u, bool dry_run, const struct upgrade_apply_cb *cb,
			   struct upgrade_outcome *out, struct wd_err *err)
{
	struct setup *s;
	int r = upgrade_boot_prepare(u, &s, err);
	if (r || !s)
		return r;
	out->boot = true;
	struct setup_view pv;
	setup_view(s, &pv);
	cb->boot_plan(cb->ud, &pv);
	if (!dry_run && !(r = cb->confirm(cb->ud, err)) && !(r = setup_apply(s, err))) {
		setup_view(s, &pv);
		out->applied = true;
		out->generation = pv.generation;
		for (size_t i = 0; cb->pkg.event && i < u->npkgs; i++)
			cb->pkg.event(cb->pkg.ud, PKG_UPGRADED, u->pkgs[i].m.name,
				      u->pkgs[i].m.version, NULL, u->pkgs[i].m.nfiles);
	}
	setup_free(s);
	return r;
}

int upgrade_apply(struct upgrade_set *u, bool dry_run, const struct upgrade_apply_cb *cb,
		  struct upgrade_outcome *out, struct wd_err *err)
{
	bool boot = any_boot(u);
	*out = (struct upgrade_outcome){0};
	int r = upgrade_preplan(u->v, u->pkgs, u->npkgs, boot, &cb->pkg, err);
	if (!r && u->npkgs && boot)
		r = with_boot_files(u, dry_run, cb, out, err);
	if (r || out->boot)
		return r;
	if (boot) /* the boot files stay: the loaded-file check, unlocked */
		r = upgrade_preplan(u->v, u->pkgs, u->npkgs, false, NULL, err);
	if (!r && !dry_run && u->npkgs && !(r = cb->confirm(cb->ud, err))) {
		r = upgrade_packages(u->v, u->cat, u->pkgs, u->npkgs, &cb->pkg, err);
		out->applied = !r;
	}
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
