/* warpdrv remove PKG...: deletes a package's files and puts back the files
 * it had replaced, one transaction per package (installer/install.h). */
#include "installer/install.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

int cmd_remove(struct wd_ctx *ctx, int argc, char **argv)
{
	pkg_fold_names(argc, argv);
	if (argc < 1)
		return ui_usage(ctx, "remove: name at least one package");
	struct wd_err err = {0};
	struct volume v = {0};
	struct render rd;
	struct pkg_cb cb = pkg_render(&rd, ctx, "removed");
	int r = volume_open(&v, ctx->root, &err);
	if (!r)
		r = ctx->dry_run ? remove_preplan(&v, argv, (size_t)argc, &cb, &err)
				 : remove_packages(&v, argv, (size_t)argc, &cb, &err);
	if (!r)
		pkg_render_close(&rd);
	volume_close(&v);
	return r ? ui_fail(ctx, r, &err) : 0;
}
