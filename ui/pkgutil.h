/* What the package commands share, from the session layer (session/) with
 * this run's options: the trusted keys, the catalog, loading a package by
 * name or file, and reading the state without writing to it. */
#ifndef WD_PKGUTIL_H
#define WD_PKGUTIL_H

#include "session/session.h"
#include "state/db.h"
#include "catalog/repo.h"
#include "os2/volume.h"
#include "trust/keys.h"
#include "ui/ui.h"

/* The session of this run from ctx's options (ui_main, before the command
 * runs): its warnings go to ui_warn, the development keys are named once
 * (ui_warn_dev_keys) when the keys load. ui_session_close frees it. */
void ui_session_open(struct wd_ctx *ctx, struct session *s);
void ui_session_close(struct wd_ctx *ctx);
/* The calls of the commands that do not ask ctx->s yet (going away). */
/* The bundled keys, --keys DIR and the volume's var/lib/warpdrv/keys (v may be NULL). */
int pkg_keyring(struct wd_ctx *ctx, const struct volume *v, struct keyring *kr,
		struct wd_err *err);
/* --repo URLs first (fetched now), then the volume's remote repositories
 * from the catalog `warpdrv update` stored (no network), then the bundled
 * repository. */
int pkg_catalog(struct wd_ctx *ctx, const struct keyring *kr, struct catalog *cat,
		struct wd_err *err);
/* For a command that installs: remote packages are downloaded into the
 * volume's var/cache/warpdrv/packages (under --dry-run only read: nothing
 * downloads). */
int pkg_use_cache(struct wd_ctx *ctx, const struct volume *v, struct catalog *cat,
		  struct wd_err *err);
/* A package by name (from the catalog) or a .wdp file on disk. */
int pkg_load(struct wd_ctx *ctx, const struct keyring *kr, const struct catalog *cat,
	     const char *arg, struct package *p, struct wd_err *err);
/* Opens the volume (--root; the boot drive from CONFIG.SYS or --boot-drive)
 * and, if it has one, its database without writing;
 * an interrupted transaction is finished first (unless --dry-run). *have is
 * false when the volume has no database yet. */
int pkg_state_read(struct wd_ctx *ctx, struct volume *v, struct db *db, bool *have,
		   struct wd_err *err);
struct txn_plan;
/* Prints a plan (text or a JSON object); in ui/cmd_install.c. */
void pkg_show_plan(struct wd_ctx *ctx, const struct txn_plan *plan);
/* The callbacks that render install and remove (ui/cmd_install.c): text as
 * it happens, under --json one document listing them, ended by
 * pkg_render_close once the command succeeded. */
struct render {
	struct wd_ctx *ctx;
	const char *list; /* "installed", "removed" */
	bool open, dry_run;
};
struct pkg_cb;
struct pkg_cb pkg_render(struct render *rd, struct wd_ctx *ctx, const char *list);
void pkg_render_close(struct render *rd);
/* Package names are lowercase (catalog/names.h), and OS/2 users type
 * capitals: each argument that names a package (not a .wdp file or a path)
 * is folded to lowercase in place, its =VERSION kept as typed. */
void pkg_fold_names(int argc, char **argv);
/* The JSON or text description of a day number. */
void pkg_date(int days, char out[11]);

#endif
