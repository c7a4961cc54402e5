/* warpdrv verify [PKG]: every installed file's size and SHA-256 against the
 * database, and the database's own integrity. Exit 3 on any difference. The
 * rows and the files are read under the volume's shared lock: a transaction
 * under way (a removal putting files back) ends first, or verify says the
 * volume is busy; never a difference that was only half a change. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/hash.h"
#include "fs/fs.h"
#include "txn/txn.h"
#include "state/installed.h"
#include "ui/commands.h"
#include "ui/exit_code.h"
#include "ui/pkgutil.h"

static const char *check_file(const struct volume *v, const char *host, long long size,
			      const char *sha)
{
	char *abs = wd_path_join(v->root, host), hex[WD_SHA256_HEX];
	struct stat st;
	struct wd_err e;
	const char *bad = NULL;
	if (fs_lstat(&v->fs, abs, &st) < 0 || !S_ISREG(st.st_mode))
		bad = "missing";
	else if (st.st_size != size)
		bad = "size differs";
	else if (fs_sha256(&v->fs, abs, hex, &e) || strcmp(hex, sha))
		bad = "content differs";
	free(abs);
	return bad;
}

static int verify(struct wd_ctx *ctx, const char *pkg, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	int r = session_boot_volume(ctx->s, &v, err);
	if (!r)
		r = session_db(ctx->s, SESSION_DB_READ, &db, &have, err);
	if (r)
		return r;
	int checked = 0, bad = 0, lock = -1;
	struct installed_file *f = NULL;
	size_t n = 0;
	if (have)
		r = txn_read_lock(v, &lock, err);
	if (have && !r && !(r = installed_db_intact(db, err)))
		r = installed_files(db, pkg, &f, &n, err);
	if (!r && pkg) {
		char *ver = NULL;
		if (have && !(r = installed_version(db, pkg, &ver, err)) && !ver)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
		else if (!have)
			r = wd_err_set(err, WD_EFAIL, "%s is not installed", pkg);
		free(ver);
	}
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_arr_begin(&ctx->j, "problems");
	}
	for (size_t i = 0; !r && i < n; i++) {
		const char *why = check_file(v, f[i].host, f[i].size, f[i].sha);
		checked++;
		if (!why)
			continue;
		bad++;
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "path", f[i].path);
			json_str(&ctx->j, "package", f[i].package);
			json_str(&ctx->j, "message", why);
			json_obj_end(&ctx->j);
		} else {
			fprintf(stderr, "%s: %s (%s)\n", ui_esc(f[i].path), ui_esc(why),
				ui_esc(f[i].package));
		}
	}
	installed_files_free(f, n);
	txn_read_unlock(lock);
	if (!r && ctx->json) {
		json_arr_end(&ctx->j);
		json_int(&ctx->j, "checked_count", checked);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	if (!r && bad)
		r = wd_err_setk(err, WD_K_FILES_DIFFER, WD_ETRUST, "%d of %d installed files differ from what was "
			       "installed; 'warpdrv verify --fix' reinstalls their packages ('warpdrv "
			       "reinstall PKG' one of them)", bad, checked);
	else if (!r)
		ui_say(ctx, "%d installed files checked; all as installed. Database intact.\n",
		       checked);
	return r;
}

const struct wd_opt cmd_verify_opts[] = {
	{"fix", 0, NULL, "reinstall the packages whose files differ (warpdrv reinstall)", false},
	{0},
};

int cmd_verify(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
		return ui_usage(ctx, "verify: at most one package name");
	struct wd_err err = {0};
	pkg_fold_names(argc, argv);
	if (ui_opt(ctx, "fix"))
		return cmd_verify_fix(ctx, argc ? argv[0] : NULL);
	int r = verify(ctx, argc ? argv[0] : NULL, &err);
	if (!r)
		return 0;
	/* under --json the document with the problems is already out */
	if (ctx->json && err.kind == WD_K_FILES_DIFFER)
		return ui_exit_code(&err, r);
	return ui_fail(ctx, r, &err);
}
