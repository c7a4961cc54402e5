/* warpdrv owns FILE: which installed package put FILE on the volume. FILE is
 * an OS/2 path (with or without the boot drive) or a host path below the
 * root; the answer comes from the file rows (installer/query.h). */
#include "installer/query.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static int owns(struct wd_ctx *ctx, const char *arg, struct wd_err *err)
{
	struct pkg_owner o;
	int r = query_owner(ctx->s, arg, &o, err);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "path", o.path);
		json_str(&ctx->j, "package", o.package);
		json_str(&ctx->j, "version", o.version);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	if (!r)
		ui_say(ctx, "%s belongs to %s %s.\n", ui_esc(o.path), ui_esc(o.package),
		       ui_esc(o.version));
	pkg_owner_free(&o);
	return r;
}

int cmd_owns(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc != 1)
		return ui_usage(ctx, "owns: name one file (an OS/2 path or a path below the root)");
	struct wd_err err = {0};
	int r = owns(ctx, argv[0], &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}
