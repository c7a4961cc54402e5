/* warpdrv check: findings about CONFIG.SYS and PROTOCOL.INI on the volume.
 * Reads only: no state folder, nothing written; the files are read under the
 * volume's shared lock (when it has a lock file), so a setup or rollback
 * rewriting them together ends first and check sees both old or both new. */
#include <stdlib.h>
#include <string.h>

#include "installer/check.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

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
	struct wd_err err = {0};
	struct check_report rep;
	int r = check_run(ctx->s, &rep, &err);
	if (r)
		return r == -WD_EUSAGE ? ui_usage(ctx, "%s", err.msg) : ui_fail(ctx, r, &err);
	if (ctx->json)
		print_json(ctx, &rep);
	else if (!ctx->quiet || rep.errors)
		print_text(ctx, &rep);
	int rc = rep.errors ? WD_EFAIL : 0;
	check_report_free(&rep);
	return rc;
}
