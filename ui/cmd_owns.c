/* warpdrv owns FILE: which installed package put FILE on the volume. FILE is
 * an OS/2 path (with or without the boot drive) or a host path below the
 * root; the answer comes from the file rows (state/installed.h). */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "state/installed.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

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

static int owns(struct wd_ctx *ctx, const char *arg, struct wd_err *err)
{
	struct volume *v;
	struct db *db;
	bool have;
	int r = session_boot_volume(ctx->s, &v, err);
	if (!r)
		r = session_db(ctx->s, SESSION_DB_READ, &db, &have, err);
	if (r)
		return r;
	char *os2 = os2_path_of(v, arg), *owner = NULL, *ver = NULL;
	if (!os2)
		r = wd_err_set(err, WD_EUSAGE, "%s is not below the volume's root %s", arg, v->root);
	if (!r)
		r = installed_owner(have ? db : NULL, os2, &owner, err);
	if (!r && owner)
		r = installed_version(db, owner, &ver, err);
	else if (!r)
		r = wd_err_set(err, WD_EFAIL, "%s: no installed package put this file on the volume",
			       os2);
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "path", os2);
		json_str(&ctx->j, "package", owner);
		json_str(&ctx->j, "version", ver);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	if (!r)
		ui_say(ctx, "%s belongs to %s %s.\n", ui_esc(os2), ui_esc(owner), ui_esc(ver));
	free(os2);
	free(owner);
	free(ver);
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
