#include "ui/pkgutil.h"

#include "installer/boot_drive.h"

#include <stdlib.h>
#include <string.h>

#include "common/date.h"
#include "common/file.h"
#include "installer/txn.h"

int pkg_keyring(struct wd_ctx *ctx, const struct volume *v, struct keyring *kr,
		struct wd_err *err)
{
	memset(kr, 0, sizeof *kr);
	char *bundled = ui_data_dir(ctx, "keys");
	int r = bundled ? keyring_add_dir(kr, bundled, err) : 0;
	free(bundled);
	if (!r && ctx->keys) {
		if (!wd_is_dir(ctx->keys))
			r = wd_err_set(err, WD_EUSAGE, "--keys %s: no such folder", ctx->keys);
		else
			r = keyring_add_dir(kr, ctx->keys, err);
	}
	if (!r && v) {
		char *dir = NULL;
		bool found;
		r = volume_resolve(v, WD_STATE_DIR "/keys", &dir, &found, err);
		if (!r && found)
			r = keyring_add_dir(kr, dir, err);
		free(dir);
	}
	if (r)
		keyring_free(kr);
	return r;
}

int pkg_catalog(struct wd_ctx *ctx, const struct keyring *kr, struct catalog *cat,
		struct wd_err *err)
{
	char *urls[WD_MAX_REPOS + 1];
	size_t n = 0;
	for (int i = 0; i < ctx->nrepos; i++)
		urls[n++] = repo_url(ctx->repos[i]);
	char *bundled = ui_data_dir(ctx, "repo");
	if (bundled) {
		urls[n++] = repo_url(bundled);
		free(bundled);
	}
	int today;
	int r = wd_today(&today, err);
	if (!r)
		r = catalog_load(cat, (const char *const *)urls, n, kr, today, err);
	for (size_t i = 0; i < n; i++)
		free(urls[i]);
	return r;
}

int pkg_load(struct wd_ctx *ctx, const struct keyring *kr, const struct catalog *cat,
	     const char *arg, struct package *p, struct wd_err *err)
{
	(void)ctx;
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".wdp"))) {
		struct wd_buf b = {0};
		int r = wd_read_file(arg, PACKAGE_MAX_BYTES, &b, err);
		if (!r)
			r = package_read(b.p, b.len, kr, arg, p, err);
		wd_buf_free(&b);
		return r;
	}
	const struct repo *from;
	const struct index_entry *e = catalog_find(cat, arg, &from);
	if (!e)
		return wd_err_set(err, WD_EFAIL, "no package named '%s' in the repositories "
				  "('warpdrv list' shows them)", arg);
	return catalog_fetch(from, e, kr, p, err);
}

int pkg_state_read(struct wd_ctx *ctx, struct volume *v, struct db *db, bool *have,
		   struct wd_err *err)
{
	memset(db, 0, sizeof *db);
	struct config_sys cs;
	int r = boot_volume_open(v, &cs, ctx->root, ctx->boot_drive, err);
	if (r)
		return r;
	config_sys_free(&cs);
	if ((r = db_open(db, v, false, have, err)))
		goto fail;
	bool pending = false;
	if (*have && !ctx->dry_run && (r = txn_pending(db, &pending, err)))
		goto fail;
	if (pending) {
		db_close(db);
		struct txn t;
		if ((r = txn_begin(&t, v, "recovery", err)))
			goto fail;
		txn_end(&t);
		if ((r = db_open(db, v, false, have, err)))
			goto fail;
	}
	return 0;
fail:
	db_close(db);
	volume_close(v);
	return r;
}

void pkg_date(int days, char out[11])
{
	wd_date_format(days, out);
}
