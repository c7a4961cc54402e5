#include "installer/verify.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/hash.h"
#include "fs/fs.h"
#include "state/installed.h"
#include "txn/txn.h"

static const char *check_file(const struct volume *v, const struct installed_file *f)
{
	char *abs = wd_path_join(v->root, f->host), hex[WD_SHA256_HEX];
	struct stat st;
	struct wd_err e;
	const char *bad = NULL;
	if (fs_lstat(&v->fs, abs, &st) < 0 || !S_ISREG(st.st_mode))
		bad = "missing";
	else if (st.st_size != f->size)
		bad = "size differs";
	else if (fs_sha256(&v->fs, abs, hex, &e) || strcmp(hex, f->sha))
		bad = "content differs";
	free(abs);
	return bad;
}

/* pkg installed (the database read, have: there is one). */
static int need_installed(struct db *db, bool have, const char *pkg, struct wd_err *err)
{
	char *ver = NULL;
	int r = 0;
	if (have && !(r = installed_version(db, pkg, &ver, err)) && !ver)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
	else if (!have)
		r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
	free(ver);
	return r;
}

static void check_all(const struct volume *v, const struct installed_file *f, size_t n,
		      struct verify_report *rep)
{
	rep->p = wd_xcalloc(n + 1, sizeof *rep->p);
	for (size_t i = 0; i < n; i++) {
		const char *why = check_file(v, &f[i]);
		rep->checked++;
		if (why)
			rep->p[rep->n++] = (struct verify_problem){wd_xstrdup(f[i].path),
								   wd_xstrdup(f[i].package), why};
	}
}

int verify_files(struct session *s, const char *pkg, struct verify_report *rep,
		 struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	memset(rep, 0, sizeof *rep);
	int r = session_boot_volume(s, &v, err);
	if (!r)
		r = session_db(s, SESSION_DB_READ, &db, &have, err);
	if (r)
		return r;
	int lock = -1;
	struct installed_file *f = NULL;
	size_t n = 0;
	if (have)
		r = txn_read_lock(v, &lock, err);
	if (have && !r && !(r = installed_db_intact(db, err)))
		r = installed_files(db, pkg, &f, &n, err);
	if (!r && pkg)
		r = need_installed(db, have, pkg, err);
	if (!r)
		check_all(v, f, n, rep);
	installed_files_free(f, n);
	txn_read_unlock(lock);
	if (!r && rep->n)
		r = wd_err_setk(err, WD_K_FILES_DIFFER, WD_ETRUST, "%zu of %d installed files differ "
				"from what was installed; 'warpdrv verify --fix' reinstalls their "
				"packages ('warpdrv reinstall PKG' one of them)", rep->n, rep->checked);
	return r;
}

void verify_report_free(struct verify_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->p[i].path);
		free(rep->p[i].package);
	}
	free(rep->p);
	memset(rep, 0, sizeof *rep);
}
