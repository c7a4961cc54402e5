/* warpdrv configure acpi --off: the ACPI PSD package's statements out of
 * CONFIG.SYS and the lines they displaced back (installer/config_off.h),
 * one generation, shown as a diff and asked as every change of the boot
 * files is (ui_confirm). Afterwards `warpdrv remove acpi-psd` may take the
 * package away. (configure nic --off goes through the NIC planner in
 * ui/cmd_setup.c, with the driver installer/config_off.h names.) */
#include <stdlib.h>
#include <string.h>

#include "installer/config_off.h"
#include "installer/setup.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

static void show_json(struct wd_ctx *ctx, const struct setup_view *sv)
{
	const struct acpi_off *o = sv->acpi_off;
	struct json *js = &ctx->j;
	json_obj_begin(js, NULL);
	json_str(js, "command", sv->command);
	json_bool(js, "dry_run", ctx->dry_run);
	json_str(js, "package", o->name);
	json_bool(js, "changed", true);
	json_bool(js, "applied", sv->applied);
	json_int(js, "restored_line_count", (long long)o->restored);
	if (o->from_gen)
		json_int(js, "displaced_from_generation", o->from_gen);
	else
		json_null(js, "displaced_from_generation");
	json_voln(js, "diff", sv->diff, sv->diff_len);
	if (sv->applied && sv->generation > 0)
		json_int(js, "generation", sv->generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}

static void show_plan(struct wd_ctx *ctx, const struct setup_view *sv)
{
	const struct acpi_off *o = sv->acpi_off;
	ui_say(ctx, "ACPI: %s %s off: its statements out of %s", ui_esc(o->name),
	       ui_esc(o->version), ui_esc(o->config));
	if (o->from_gen)
		ui_say(ctx, ", the %zu line%s it displaced back (from before generation %ld)",
		       o->restored, o->restored == 1 ? "" : "s", o->from_gen);
	ui_say(ctx, ".\n");
	if (!o->from_gen)
		ui_say(ctx, "note: no generation recorded what these statements displaced, so "
		       "nothing is put back in their place\n");
	if (!ctx->quiet) {
		ui_say(ctx, "\n");
		ui_show_diff(ctx, sv->diff, sv->diff_len);
	}
}

static int acpi_off(struct wd_ctx *ctx, struct wd_err *err)
{
	struct setup *s = NULL;
	struct setup_req q = {.command = "configure acpi --off", .acpi_off = true};
	struct setup_view sv;
	int r = setup_prepare(ctx->s, &q, &s, err);
	if (!r) {
		setup_view(s, &sv);
		if (!ctx->json)
			show_plan(ctx, &sv);
	}
	if (!r && !ctx->dry_run &&
	    !(r = ui_confirm(ctx, "Apply these changes?", err, "configure acpi --off changes "
			     "the volume")))
		r = setup_commit(s, err);
	if (!r) {
		setup_view(s, &sv);
		const struct acpi_off *o = sv.acpi_off;
		if (ctx->json)
			show_json(ctx, &sv);
		else if (sv.applied)
			ui_say(ctx, "\nDone: generation %ld. '%s' may now be removed ('warpdrv "
			       "remove %s'); 'warpdrv rollback' undoes this.\n", sv.generation,
			       ui_esc(o->name), ui_esc(o->name));
		else
			ui_say(ctx, "\nDry run: nothing was written.\n");
	}
	setup_free(s);
	return r;
}

int cmd_configure_acpi_off(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "configure acpi --off: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	int r = acpi_off(ctx, &err);
	return r ? ui_fail(ctx, r, &err) : 0;
}
