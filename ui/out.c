#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "ui/ui.h"

int ui_fail(struct wd_ctx *ctx, int r, const struct wd_err *err)
{
	int code = r < 0 ? -r : (r ? r : WD_EFAIL);
	if (err && err->code)
		code = err->code;
	const char *msg = err && err->msg[0] ? err->msg : "failed";
	if (ctx->json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_obj_begin(&j, "error");
		json_int(&j, "code", code);
		json_str(&j, "message", msg);
		json_obj_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		fprintf(stderr, "%s: %s%s%s\n", ctx->prog, ui_color(ctx, "red"), msg,
			ui_color(ctx, "reset"));
	}
	return code;
}

int ui_usage(struct wd_ctx *ctx, const char *fmt, ...)
{
	struct wd_err e;
	va_list ap;
	va_start(ap, fmt);
	wd_err_vset(&e, WD_EUSAGE, fmt, ap);
	va_end(ap);
	if (ctx->json)
		return ui_fail(ctx, -WD_EUSAGE, &e);
	fprintf(stderr, "%s: %s\nTry '%s --help'.\n", ctx->prog, e.msg, ctx->prog);
	return WD_EUSAGE;
}

void ui_say(struct wd_ctx *ctx, const char *fmt, ...)
{
	if (ctx->json || ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

void ui_warn(struct wd_ctx *ctx, const char *fmt, ...)
{
	if (ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %swarning:%s ", ctx->prog, ui_color(ctx, "yellow"),
		ui_color(ctx, "reset"));
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

const char *ui_color(const struct wd_ctx *ctx, const char *which)
{
	if (!ctx->color)
		return "";
	if (!strcmp(which, "red"))
		return "\033[31m";
	if (!strcmp(which, "green"))
		return "\033[32m";
	if (!strcmp(which, "yellow"))
		return "\033[33m";
	if (!strcmp(which, "bold"))
		return "\033[1m";
	if (!strcmp(which, "dim"))
		return "\033[2m";
	return "\033[0m";
}

bool ui_flag(char **argv, int i, const char *opt)
{
	return !strcmp(argv[i], opt);
}

int ui_opt_value(struct wd_ctx *ctx, int argc, char **argv, int *i, const char *opt,
		 const char **val, bool *matched)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];
	*matched = false;
	if (strncmp(a, opt, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
	} else if (a[n] == '\0') {
		if (*i + 1 >= argc)
			return -ui_usage(ctx, "option %s needs a value", opt);
		*val = argv[++*i];
	} else {
		return 0;
	}
	*matched = true;
	return 0;
}

char *ui_data_dir(const struct wd_ctx *ctx, const char *name)
{
	const char *env = getenv("WARPDRV_DATA");
	char *cand[3] = {0};
	int n = 0;
	if (env && *env)
		cand[n++] = wd_path_join(env, name);
	if (ctx->exe_dir) {
		cand[n++] = wd_path_join(ctx->exe_dir, name);
		cand[n++] = wd_xasprintf("%s/../share/warpdrv/%s", ctx->exe_dir, name);
	}
	char *found = NULL;
	for (int i = 0; i < n; i++) {
		if (!found && wd_is_dir(cand[i])) /* host: where the program's data may be */
			found = cand[i];
		else
			free(cand[i]);
	}
	return found;
}
