#include "installer/query.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/versions.h"
#include "common/buf.h"
#include "state/holds.h"

/* The database the session has open with a volume's state in it, or NULL. */
static struct db *open_db(struct session *s)
{
	return s->db_tried && s->db.h ? &s->db : NULL;
}

/* FILE as the OS/2 path the file rows hold ("\IBMCOM\MACS\MMLEM.OS2"), or
 * NULL when it is a host path outside the root. */
static char *os2_path_of(const struct volume *v, const char *arg)
{
	const char *p = arg;
	if (arg[0] == '/') {
		size_t n = strlen(v->root);
		if (strncmp(arg, v->root, n) || arg[n] != '/')
			return NULL;
		p = arg + n;
	} else if (((arg[0] | 32) >= 'a' && (arg[0] | 32) <= 'z') && arg[1] == ':') {
		p = arg + 2;
	}
	char *s = wd_xasprintf("%s%s", p[0] == '\\' || p[0] == '/' ? "" : "\\", p);
	for (char *c = s; *c; c++)
		*c = *c == '/' ? '\\' : *c;
	return s;
}

int query_owner(struct session *s, const char *file, struct pkg_owner *o, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	memset(o, 0, sizeof *o);
	int r = session_boot_volume(s, &v, err);
	if (!r)
		r = session_db(s, SESSION_DB_READ, &db, &have, err);
	if (r)
		return r;
	if (!(o->path = os2_path_of(v, file)))
		return wd_err_set(err, WD_EUSAGE, "%s is not below the volume's root %s", file,
				  v->root);
	r = installed_owner(have ? db : NULL, o->path, &o->package, err);
	if (!r && o->package)
		r = installed_version(db, o->package, &o->version, err);
	else if (!r)
		r = wd_err_set(err, WD_EFAIL, "%s: no installed package put this file on the volume",
			       o->path);
	return r;
}

void pkg_owner_free(struct pkg_owner *o)
{
	free(o->path);
	free(o->package);
	free(o->version);
	memset(o, 0, sizeof *o);
}

int query_history(struct session *s, struct history_view *hv, struct wd_err *err)
{
	struct db *db;
	memset(hv, 0, sizeof *hv);
	int r = session_db(s, SESSION_DB_READ, &db, &hv->have, err);
	if (r)
		return r;
	hv->opened = true;
	return history_list(hv->have ? db : NULL, &hv->rows, &hv->n, err);
}

void history_view_free(struct history_view *hv)
{
	history_list_free(hv->rows, hv->n);
	memset(hv, 0, sizeof *hv);
}

int query_generations(struct session *s, struct generation **g, size_t *n, struct wd_err *err)
{
	struct db *db;
	*g = NULL;
	*n = 0;
	int r = session_db(s, SESSION_DB_READ, &db, NULL, err);
	return r ? r : generation_list(db, g, n, err);
}

static bool is_held(struct db *db, const char *name)
{
	struct wd_err e;
	bool held = false;
	return !hold_get(db, name, &held, &e) && held;
}

int query_installed(struct session *s, struct installed_view *iv, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	memset(iv, 0, sizeof *iv);
	int r = session_boot_volume(s, &v, err);
	if (!r)
		r = session_db(s, SESSION_DB_READ, &db, &have, err);
	if (r)
		return r;
	iv->opened = true;
	iv->root = v->root;
	r = installed_packages(have ? db : NULL, &iv->p, &iv->n, err);
	iv->held = wd_xcalloc(iv->n + 1, sizeof *iv->held);
	for (size_t i = 0; !r && i < iv->n; i++)
		iv->held[i] = is_held(db, iv->p[i].name);
	return r;
}

void installed_view_free(struct installed_view *iv)
{
	installed_packages_free(iv->p, iv->n);
	free(iv->held);
	memset(iv, 0, sizeof *iv);
}

char *query_installed_version(struct session *s, const char *name, bool *held)
{
	struct db *db = open_db(s);
	struct wd_err e;
	char *v = NULL;
	if (held)
		*held = false;
	if (!db || installed_version(db, name, &v, &e))
		return NULL;
	if (v && held)
		*held = is_held(db, name);
	return v;
}

int query_info_package(struct session *s, const char *arg, const struct entitlement_ctx *ec,
		       struct package *p, struct wd_err *err)
{
	size_t n = strlen(arg);
	const char *eq = strchr(arg, '=');
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp")))
		return session_load(s, arg, p, err);
	const struct keyring *kr;
	struct catalog *cat;
	int r = session_keyring(s, &kr, err);
	if (!r)
		r = session_catalog(s, false, &cat, err);
	if (r)
		return r;
	const struct repo *from = NULL;
	const struct index_entry *e;
	if (eq) {
		char *name = wd_xstrndup(arg, (size_t)(eq - arg));
		e = catalog_find_version(cat, name, eq + 1, &from);
		r = e ? 0 : wd_err_set(err, WD_EFAIL, "no package %s at version %s in the "
				       "repositories ('warpdrv info %s' lists its versions)",
				       name, eq + 1, name);
		free(name);
		if (r)
			return r;
	} else if (!(e = catalog_pick(cat, arg, ec, &from, NULL, NULL))) {
		return session_load(s, arg, p, err); /* it says there is none */
	}
	return catalog_fetch(from, e, kr, p, err);
}

int query_license(struct session *s, struct license_status *ls, struct wd_err *err)
{
	struct volume *v;
	const struct keyring *kr;
	struct db *db;
	memset(ls, 0, sizeof *ls);
	int r = session_volume(s, &v, err);
	if (r)
		return r;
	/* read only: a transaction left pending is told, never finished */
	if (!(r = session_db(s, SESSION_DB_READ, &db, NULL, err)) &&
	    !(r = session_keyring(s, &kr, err)))
		r = session_activation(s, &ls->a, err);
	if (!r) {
		ls->st = entitlement_state(&ls->a->ctx);
		entitlement_usable(&ls->a->ctx, &ls->why);
	}
	return r;
}
