/* warpdrv check: findings about CONFIG.SYS and PROTOCOL.INI on the volume.
 * Reads only: no state folder, nothing written; the files are read under the
 * volume's shared lock (when it has a lock file), so a setup or rollback
 * rewriting them together ends first and check sees both old or both new. */
#include <stdlib.h>
#include <string.h>

#include "catalog/repo.h"
#include "common/date.h"
#include "installer/check.h"
#include "txn/txn.h"
#include "os2/boot_drive.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

/* The NIC packages of the bundled repository (local: nothing downloads):
 * their manifests make an instance's DriverName certain. Without them check
 * still runs, with more of its facts guessed. */
struct known {
	struct catalog cat;
	struct package *pkgs;
	const struct pkg_manifest **m;
	size_t n;
};

static void known_load(struct wd_ctx *ctx, const struct volume *v, struct known *k)
{
	memset(k, 0, sizeof *k);
	catalog_init(&k->cat, NULL);
	struct wd_err e;
	int today;
	char *bundled = ui_data_dir(ctx, "repo");
	const struct keyring *kr;
	(void)v;
	if (!bundled || wd_today(&today, &e) || session_keyring(ctx->s, &kr, &e)) {
		free(bundled);
		return;
	}
	int r = catalog_add_bundled(&k->cat, bundled, kr, &e);
	free(bundled);
	for (size_t i = 0; !r && i < k->cat.n; i++) {
		const struct repo *rp = &k->cat.repos[i];
		k->pkgs = wd_xrealloc(k->pkgs, (k->n + rp->idx.npkgs + 1) * sizeof *k->pkgs);
		k->m = wd_xrealloc(k->m, (k->n + rp->idx.npkgs + 1) * sizeof *k->m);
		for (size_t j = 0; j < rp->idx.npkgs; j++)
			if (!catalog_fetch(rp, &rp->idx.pkgs[j], kr, &k->pkgs[k->n], &e)) {
				if (k->pkgs[k->n].m.kind != PKG_KIND_NIC) {
					package_free(&k->pkgs[k->n]);
					continue;
				}
				k->m[k->n] = &k->pkgs[k->n].m;
				k->n++;
			}
	}
}

static void known_free(struct known *k)
{
	for (size_t i = 0; i < k->n; i++)
		package_free(&k->pkgs[i]);
	free(k->pkgs);
	free(k->m);
	catalog_free(&k->cat);
}

static void print_json(struct wd_ctx *ctx, const struct check_report *rep)
{
	struct json *j = &ctx->j;
	json_obj_begin(j, NULL);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->v[i];
		json_obj_begin(j, NULL);
		json_vol(j, "path", f->file);
		json_int(j, "line", (long long)f->line);
		json_str(j, "severity", f->severity == CHECK_ERROR ? "error" : "warning");
		json_str(j, "code", f->code);
		json_mixed(j, "message", f->message);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
}

static void print_text(struct wd_ctx *ctx, const struct check_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->v[i];
		bool error = f->severity == CHECK_ERROR;
		if (f->line)
			printf("%s line %zu: ", ui_vol(ctx, f->file), f->line);
		else
			printf("%s: ", ui_vol(ctx, f->file));
		printf("%s%s%s: %s [%s]\n", ui_color(ctx, error ? "red" : "yellow"),
		       error ? "error" : "warning", ui_color(ctx, "reset"), ui_mixed(ctx, f->message),
		       ui_esc(f->code));
	}
	size_t warnings = rep->n - rep->errors;
	if (!rep->n)
		ui_say(ctx, "No problems found in CONFIG.SYS and %s.\n",
		       ui_vol(ctx, rep->pi_file ? rep->pi_file : CHECK_PROTOCOL_INI));
	else
		ui_say(ctx, "%zu error%s, %zu warning%s.\n", rep->errors, rep->errors == 1 ? "" : "s",
		       warnings, warnings == 1 ? "" : "s");
}

int cmd_check(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "check takes no arguments ('%s')", argv[0]);
	struct volume *v;
	struct db *db;
	struct wd_err err = {0};
	int r = session_boot_volume(ctx->s, &v, &err);
	if (r)
		return r == -WD_EUSAGE ? ui_usage(ctx, "%s", err.msg) : ui_fail(ctx, r, &err);
	/* the database only to know whether a transaction was left half done */
	if ((r = session_cmd_db(ctx->s, &db, NULL, &err)))
		return ui_fail(ctx, r, &err);
	int lock;
	if ((r = txn_read_lock(v, &lock, &err)))
		return ui_fail(ctx, r, &err);
	struct known k;
	known_load(ctx, v, &k);
	struct check_report rep;
	r = check_volume(v, k.m, k.n, &rep, &err);
	txn_read_unlock(lock);
	known_free(&k);
	if (r)
		return ui_fail(ctx, r, &err);
	const struct txn_pending_desc *pend = session_pending(ctx->s);
	if (pend) {
		/* what a reboot now would load may be half of a change: an error
		 * (exit 1) until 'warpdrv recover' finishes or undoes it */
		char what[512];
		txn_pending_text(pend, what, sizeof what);
		report_add(&rep, WD_STATE_DIR "/" WD_DB_NAME, 0, CHECK_ERROR, "txn-pending", "txn",
			   "the interrupted %s was neither finished nor undone: CONFIG.SYS and "
			   "PROTOCOL.INI may hold half of it; run 'warpdrv recover'", what);
		check_sort(&rep);
	}
	if (ctx->json)
		print_json(ctx, &rep);
	else if (!ctx->quiet || rep.errors)
		print_text(ctx, &rep);
	int rc = rep.errors ? WD_EFAIL : 0;
	check_report_free(&rep);
	return rc;
}
