/* What the package commands share: the run's session (session/session.h)
 * made from ctx's options, and the rendering of install and remove. */
#ifndef WD_PKGUTIL_H
#define WD_PKGUTIL_H

#include "session/session.h"
#include "catalog/repo.h"
#include "os2/volume.h"
#include "trust/keys.h"
#include "ui/ui.h"

/* The session of this run from ctx's options (ui_main, before the command
 * runs): its warnings go to ui_warn, the development keys are named once
 * (ui_warn_dev_keys) when the keys load. ui_session_close frees it. */
void ui_session_open(struct wd_ctx *ctx, struct session *s);
/* 0, or the exit code of a failed final step of the volume's source (a
 * disk image's sync), which it has reported. */
int ui_session_close(struct wd_ctx *ctx);
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
/* Whether an argument names a package file (a path, or NAME.wdp in any
 * case) rather than a package of the repositories. */
bool pkg_is_file(const char *arg);
/* A command's arguments name at least one package of the repositories:
 * then there must be a repository (catalog_need_repository). */
int pkg_need_repository(const struct catalog *cat, int argc, char *const *argv,
			struct wd_err *err);
/* The JSON or text description of a day number. */
void pkg_date(int days, char out[11]);

#endif
