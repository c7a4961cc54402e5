/* Plans: what a transaction will do, made under the lock from the package,
 * the volume and the database before anything is written. */
#include "txn/txn_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "fs/fs.h"
#include "common/file.h"
#include "catalog/version.h"
#include "common/hash.h"
#include "state/installed.h"

void txn_free_ops(struct txn_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ops[i].os2);
		free(ops[i].host);
		free(ops[i].kept);
	}
	free(ops);
}

void txn_plan_free(struct txn_plan *plan)
{
	txn_free_ops(plan->ops, plan->nops);
	free(plan->pkgs);
	free(plan->done_extra);
	free(plan->dir_seen);
	free(plan->gen_command);
	free(plan->gen_summary);
	free(plan->name);
	free(plan->version);
	free(plan->upgrade_from);
	for (size_t i = 0; i < plan->nremoves; i++) {
		free(plan->removes[i]);
		free(plan->removes_version[i]);
	}
	free(plan->removes);
	free(plan->removes_version);
	memset(plan, 0, sizeof *plan);
}

void txn_plan_init(struct txn_plan *plan, const char *name, const char *version)
{
	memset(plan, 0, sizeof *plan);
	plan->install = true;
	plan->name = wd_xstrdup(name);
	plan->version = wd_xstrdup(version);
}

static void add_remove(struct txn_plan *plan, const char *name, const char *version)
{
	plan->removes = wd_xrealloc(plan->removes, (plan->nremoves + 1) * sizeof *plan->removes);
	plan->removes_version = wd_xrealloc(plan->removes_version,
					    (plan->nremoves + 1) * sizeof *plan->removes_version);
	plan->removes[plan->nremoves] = wd_xstrdup(name);
	plan->removes_version[plan->nremoves++] = wd_xstrdup(version);
}

void txn_plan_merge(struct txn_plan *into, struct txn_plan *from)
{
	into->ops = wd_xrealloc(into->ops, (into->nops + from->nops + 1) * sizeof *into->ops);
	for (size_t i = 0; i < from->nops; i++) {
		struct txn_op *o = &into->ops[into->nops];
		*o = from->ops[i];
		if (o->kind == TXN_MKDIR) {
			/* the folder may be planned already for another package */
			bool have = false;
			for (size_t k = 0; k < into->nops; k++)
				have |= into->ops[k].kind == TXN_MKDIR &&
					!strcmp(into->ops[k].host, o->host);
			if (have) {
				free(o->host);
				continue;
			}
		}
		if (o->kind == TXN_PUT && !o->config && !o->owner)
			o->owner = from->pkg;
		into->nops++;
	}
	if (from->pkg) {
		into->pkgs = wd_xrealloc(into->pkgs, (into->npkgs + 1) * sizeof *into->pkgs);
		into->pkgs[into->npkgs++] = from->pkg;
	}
	for (size_t i = 0; i < from->nremoves; i++)
		add_remove(into, from->removes[i], from->removes_version[i]);
	free(from->ops);
	from->ops = NULL;
	from->nops = 0;
	txn_plan_free(from);
}

static struct txn_op *add_op(struct txn_plan *plan, enum txn_op_kind kind)
{
	plan->ops = wd_xrealloc(plan->ops, (plan->nops + 1) * sizeof *plan->ops);
	struct txn_op *o = &plan->ops[plan->nops++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	return o;
}

static char *rel_of(const struct volume *v, const char *abs)
{
	return wd_xstrdup(abs + strlen(v->root) + 1);
}

/* MKDIR ops, outermost first, for every missing folder above a new file. */
static void plan_folders(const struct volume *v, struct txn_plan *plan, const char *abs)
{
	size_t rootlen = strlen(v->root);
	char **missing = NULL;
	size_t n = 0;
	for (char *d = wd_dirname(abs);; d = wd_dirname(d)) {
		/* the folder of the file before, found there a moment ago: no
		 * second look. One taken away since fails the write that needs
		 * it (files are written by their folder's handle), as one taken
		 * away after any look would. */
		bool seen = plan->dir_seen && !strcmp(plan->dir_seen, d);
		/* a folder planned already (for the file before) has its
		 * parents planned too: no look-up */
		bool planned = false, below = strlen(d) > rootlen;
		for (size_t i = plan->nops; !seen && !planned && below && i-- > 0;)
			planned = plan->ops[i].kind == TXN_MKDIR &&
				  !strcmp(plan->ops[i].host, d + rootlen + 1);
		if (planned || seen || !below) {
			free(d);
			break;
		}
		if (fs_is_dir(&v->fs, d)) {
			free(plan->dir_seen);
			plan->dir_seen = d;
			break;
		}
		missing = wd_xrealloc(missing, (n + 1) * sizeof *missing);
		missing[n++] = d;
	}
	while (n-- > 0) {
		char *rel = rel_of(v, missing[n]);
		bool have = false;
		for (size_t i = 0; i < plan->nops; i++)
			have |= plan->ops[i].kind == TXN_MKDIR && !strcmp(plan->ops[i].host, rel);
		if (have)
			free(rel);
		else
			add_op(plan, TXN_MKDIR)->host = rel;
		free(missing[n]);
	}
	free(missing);
}

int txn_installed_version(struct db *db, const char *name, char **version,
			  struct wd_err *err)
{
	return installed_version(db, name, version, err);
}

static int plan_put(const struct volume *v, struct db *db, const struct package *p, size_t i,
		    struct txn_plan *plan, struct wd_err *err)
{
	const struct pkg_file *f = &p->m.files[i];
	char *abs = NULL, *owner = NULL;
	bool found;
	int r = volume_resolve(v, f->dest, &abs, &found, err);
	if (!r)
		r = installed_owner(db, f->dest, &owner, err);
	bool replaced = false;
	for (size_t k = 0; owner && k < p->m.nreplaces; k++)
		replaced |= !strcmp(owner, p->m.replaces[k]);
	if (!r && owner && !replaced)
		r = wd_err_set(err, WD_EFAIL, "%s: %s belongs to the installed package %s; two "
			       "packages cannot own one file (remove %s first)", p->m.name,
			       f->dest, owner, owner);
	if (!r && found && fs_is_dir(&v->fs, abs))
		r = wd_err_set(err, WD_EFAIL, "%s: %s is a folder on the volume", p->m.name, f->dest);
	if (r)
		goto out;
	if (!found)
		plan_folders(v, plan, abs);
	struct txn_op *o = add_op(plan, TXN_PUT);
	o->owner = p;
	o->os2 = wd_xstrdup(f->dest);
	o->host = rel_of(v, abs);
	o->data = p->data[i].p;
	o->len = p->data[i].len;
	memcpy(o->new_sha, f->sha256, WD_SHA256_HEX);
	if (found) {
		/* a file the package did not install: keep it for removal */
		if ((r = fs_sha256(&v->fs, abs, o->old_sha, err)))
			goto out;
		char upper[300], hex[WD_SHA256_HEX];
		snprintf(upper, sizeof upper, "%s", f->dest);
		for (char *c = upper; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		wd_sha256_hex(upper, strlen(upper), hex);
		o->kept = wd_xasprintf("%s/%s", WD_KEPT_DIR, hex);
	}
out:
	free(abs);
	free(owner);
	return r;
}

int txn_plan_install(const struct volume *v, struct db *db, const struct package *p,
		     struct txn_plan *plan, bool *nothing, struct wd_err *err)
{
	memset(plan, 0, sizeof *plan);
	*nothing = false;
	char *have = NULL;
	int r = txn_installed_version(db, p->m.name, &have, err);
	int cmp = have ? version_cmp(p->m.version, have) : 1;
	if (!r && have && (!strcmp(have, p->m.version) || !cmp))
		*nothing = true;
	else if (!r && have && cmp < 0 && !p->downgrade_ok)
		r = wd_err_set(err, WD_EFAIL, "%s %s is installed and %s is older: a downgrade must "
			       "be asked for by version ('warpdrv install %s=%s')", p->m.name, have,
			       p->m.version, p->m.name, p->m.version);
	bool upgrade = have && !*nothing;
	free(have);
	for (size_t i = 0; !r && !*nothing && i < p->m.nreplaces; i++) {
		char *rv = NULL;
		r = installed_version(db, p->m.replaces[i], &rv, err);
		upgrade |= rv != NULL;
		free(rv);
	}
	if (r || *nothing)
		return r;
	if (upgrade)
		return txn_plan_upgrade(v, db, p, plan, err);
	plan->install = true;
	plan->pkg = p;
	plan->name = wd_xstrdup(p->m.name);
	plan->version = wd_xstrdup(p->m.version);
	/* one read transaction for the look-ups of every file, not one each */
	bool reading = db->h && sqlite3_get_autocommit(db->h) && !db_begin_read(db, err);
	/* and the folders' handles kept while nothing is changed (fs/fs.h) */
	fs_batch_begin(&v->fs);
	for (size_t i = 0; !r && i < p->m.nfiles; i++)
		r = plan_put(v, db, p, i, plan, err);
	fs_batch_end(&v->fs);
	if (reading)
		db_rollback(db);
	if (r)
		txn_plan_free(plan);
	return r;
}

/* The old version's file at the same OS/2 path as dest, or NULL. */
static struct installed_file *old_file(struct installed_file *f, size_t n, const char *dest)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(f[i].path, dest))
			return &f[i];
	return NULL;
}

/* A new version's file over the old version's: the file as it is now is
 * copied to undo from; the file row keeps the original it had replaced. */
static int plan_replace(const struct volume *v, const struct package *p, size_t i,
			const struct installed_file *f, struct txn_plan *plan, struct wd_err *err)
{
	struct txn_op *o = add_op(plan, TXN_REPLACE);
	o->owner = p;
	o->os2 = wd_xstrdup(p->m.files[i].dest);
	o->host = wd_xstrdup(f->host);
	o->data = p->data[i].p;
	o->len = p->data[i].len;
	memcpy(o->new_sha, p->m.files[i].sha256, WD_SHA256_HEX);
	char *abs = wd_path_join(v->root, f->host);
	int r = 0;
	if (fs_exists(&v->fs, abs)) {
		o->kept = txn_undo_copy(f->host);
		r = fs_sha256(&v->fs, abs, o->old_sha, err);
	}
	free(abs);
	return r;
}

/* An old version's file the new one lacks: deleted, or its original put back. */
static int plan_retire(const struct volume *v, const struct installed_file *f,
		       struct txn_plan *plan, struct wd_err *err)
{
	struct txn_op *o = add_op(plan, TXN_RETIRE);
	o->os2 = wd_xstrdup(f->path);
	o->host = wd_xstrdup(f->host);
	o->kept = f->kept ? wd_xstrdup(f->kept) : NULL;
	memcpy(o->old_sha, f->kept_sha, WD_SHA256_HEX);
	memcpy(o->new_sha, f->sha, WD_SHA256_HEX);
	char *abs = wd_path_join(v->root, f->host);
	int r = fs_exists(&v->fs, abs) ? fs_sha256(&v->fs, abs, o->new_sha, err) : 0;
	free(abs);
	return r;
}

/* An installed package p replaces: its files join the old ones, and the
 * commit removes it. */
static int old_of_replaced(struct db *db, const char *name, struct txn_plan *plan,
			   struct installed_file **f, size_t *n, struct wd_err *err)
{
	char *ver = NULL;
	struct installed_file *more = NULL;
	size_t nmore = 0;
	int r = installed_version(db, name, &ver, err);
	if (!r && ver && !(r = installed_files(db, name, &more, &nmore, err))) {
		add_remove(plan, name, ver);
		*f = wd_xrealloc(*f, (*n + nmore + 1) * sizeof **f);
		if (nmore)
			memcpy(*f + *n, more, nmore * sizeof *more);
		*n += nmore;
		free(more);
	}
	free(ver);
	return r;
}

int txn_plan_upgrade(const struct volume *v, struct db *db, const struct package *p,
		     struct txn_plan *plan, struct wd_err *err)
{
	memset(plan, 0, sizeof *plan);
	struct installed_file *f = NULL;
	size_t n = 0;
	int r = installed_version(db, p->m.name, &plan->upgrade_from, err);
	if (!r && plan->upgrade_from)
		r = installed_files(db, p->m.name, &f, &n, err);
	for (size_t i = 0; !r && i < p->m.nreplaces; i++)
		r = old_of_replaced(db, p->m.replaces[i], plan, &f, &n, err);
	if (!r && !plan->upgrade_from && !plan->nremoves)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed, so it cannot be upgraded",
			       p->m.name);
	if (r) {
		installed_files_free(f, n);
		txn_plan_free(plan);
		return r;
	}
	plan->install = true;
	plan->pkg = p;
	plan->name = wd_xstrdup(p->m.name);
	plan->version = wd_xstrdup(p->m.version);
	bool *kept_on = wd_xcalloc(n + 1, sizeof *kept_on);
	for (size_t i = 0; !r && i < p->m.nfiles; i++) {
		struct installed_file *old = old_file(f, n, p->m.files[i].dest);
		if (old)
			kept_on[old - f] = true;
		r = old ? plan_replace(v, p, i, old, plan, err) : plan_put(v, db, p, i, plan, err);
	}
	for (size_t k = 0; !r && k < n; k++)
		if (!kept_on[k])
			r = plan_retire(v, &f[k], plan, err);
	free(kept_on);
	installed_files_free(f, n);
	if (r)
		txn_plan_free(plan);
	return r;
}

int txn_plan_remove(const struct volume *v, struct db *db, const char *name,
		    struct txn_plan *plan, struct wd_err *err)
{
	(void)v;
	memset(plan, 0, sizeof *plan);
	struct installed_file *f = NULL;
	size_t n = 0;
	int r = installed_version(db, name, &plan->version, err);
	if (!r && !plan->version)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed ('warpdrv list --installed' "
			       "shows what is)", name);
	if (!r)
		r = installed_files(db, name, &f, &n, err);
	if (!r)
		plan->name = wd_xstrdup(name);
	for (size_t i = 0; !r && i < n; i++) {
		struct txn_op *o = add_op(plan, f[i].kept ? TXN_RESTORE : TXN_DELETE);
		o->os2 = f[i].path;
		o->host = f[i].host;
		o->kept = f[i].kept;
		f[i].path = f[i].host = f[i].kept = NULL;
		memcpy(o->new_sha, f[i].sha, WD_SHA256_HEX);
		memcpy(o->old_sha, f[i].kept_sha, WD_SHA256_HEX);
	}
	installed_files_free(f, n);
	if (r)
		txn_plan_free(plan);
	return r;
}

int txn_plan_config(const struct volume *v, struct txn_plan *plan, const char *host,
		    const char *gen_dir, const void *data, size_t len, struct wd_err *err)
{
	char *abs = wd_path_join(v->root, host);
	const char *base = strrchr(host, '/');
	base = base ? base + 1 : host;
	char *kept = wd_xasprintf("%s/%s", gen_dir, base);
	char *kept_abs = NULL;
	int rr = volume_resolve(v, kept, &kept_abs, NULL, err);
	if (rr) {
		free(abs);
		free(kept);
		return rr;
	}
	plan_folders(v, plan, kept_abs);
	struct txn_op *o = add_op(plan, TXN_PUT);
	o->config = true;
	o->os2 = wd_xstrdup(host);
	o->host = wd_xstrdup(host);
	o->data = data;
	o->len = len;
	o->kept = kept;
	wd_sha256_hex(data, len, o->new_sha);
	int r = fs_sha256(&v->fs, abs, o->old_sha, err);
	free(abs);
	free(kept_abs);
	return r;
}

/* The size of a file below the root, 0 when it is not there. */
static unsigned long long size_on_volume(const struct volume *v, const char *host)
{
	char *abs = wd_path_join(v->root, host);
	struct stat st;
	unsigned long long n = fs_lstat(&v->fs, abs, &st) == 0 ? (unsigned long long)st.st_size : 0;
	free(abs);
	return n;
}

/* The database's growth: its journal holds a copy of each page it changes,
 * and the rows themselves; a generous bound per operation and package. */
#define DB_GROWTH_BASE (256ull * 1024)
#define DB_GROWTH_PER_OP 4096ull

int txn_plan_space(const struct volume *v, const struct txn_plan *plan, struct wd_err *err)
{
	unsigned long long files = 0, copies = 0, db = DB_GROWTH_BASE;
	size_t npkgs = plan->npkgs ? plan->npkgs : plan->pkg ? 1 : 0;
	for (size_t i = 0; i < npkgs; i++) {
		const struct package *p = plan->npkgs ? plan->pkgs[i] : plan->pkg;
		db += p->manifest.len;
	}
	for (size_t i = 0; i < plan->nops; i++) {
		const struct txn_op *o = &plan->ops[i];
		db += DB_GROWTH_PER_OP;
		if (o->kind == TXN_PUT || o->kind == TXN_REPLACE)
			files += o->len;
		if (o->kind == TXN_RETIRE || ((o->kind == TXN_PUT || o->kind == TXN_REPLACE) && o->kept))
			copies += size_on_volume(v, o->host);
	}
	unsigned long long need = files + copies + db;
	struct statvfs sv;
	if (statvfs(v->root, &sv) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot tell the free space (%s)", v->root,
				  strerror(errno));
	unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (avail >= need)
		return 0;
	/* What the room is for: the package, or each one of a merged plan. */
	struct wd_buf what = {0};
	for (size_t i = 0; plan->npkgs && i < npkgs; i++)
		wd_buf_addf(&what, "%s%s %s", i ? ", " : "", plan->pkgs[i]->m.name,
			      plan->pkgs[i]->m.version);
	if (!what.len)
		wd_buf_addf(&what, "%s%s%s", plan->name, strcmp(plan->version, "-") ? " " : "",
			      strcmp(plan->version, "-") ? plan->version : "");
	int r = wd_err_set(err, WD_EFAIL, "%s: not enough room on the volume for %s: it needs "
			   "%llu bytes (new files %llu, copies to undo from %llu, database %llu) and "
			   "%llu bytes are free; nothing was changed. Free %llu bytes and try again",
			   v->root, what.p, need, files, copies, db, avail, need - avail);
	wd_buf_free(&what);
	return r;
}
