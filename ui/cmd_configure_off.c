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
#include "state/installed.h"
#include "state/lifecycle.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

/* The manifest of the installed package of kind psd. */
static int installed_psd(struct setup *s, struct pkg_manifest *m, bool *found,
			 struct wd_err *err)
{
	struct installed_pkg *ip = NULL;
	size_t n = 0;
	*found = false;
	int r = s->have_db ? installed_packages(&s->db, &ip, &n, err) : 0;
	const char *name = NULL;
	for (size_t i = 0; !r && !name && i < n; i++)
		if (!strcmp(ip[i].kind, "psd"))
			name = ip[i].name;
	char *text = NULL;
	size_t len = 0;
	if (!r && name && !(r = installed_manifest(&s->db, name, &text, &len, err)) && text) {
		/* the body, without the signature line that ends it */
		size_t body = len;
		char *sig = strstr(text, "\nsignature ");
		if (sig)
			body = (size_t)(sig - text) + 1;
		char where[200];
		snprintf(where, sizeof where, "the installed manifest of %s", name);
		if (!(r = manifest_parse(text, body, false, where, m, err)))
			*found = true;
	}
	free(text);
	installed_packages_free(ip, n);
	return r;
}

static void show_json(struct wd_ctx *ctx, const struct setup *s, const char *pkg,
		      const struct wd_buf *diff, bool applied, size_t restored, long from_gen)
{
	struct json *js = &ctx->j;
	json_obj_begin(js, NULL);
	json_str(js, "command", s->command);
	json_bool(js, "dry_run", ctx->dry_run);
	json_str(js, "package", pkg);
	json_bool(js, "changed", true);
	json_bool(js, "applied", applied);
	json_int(js, "restored_line_count", (long long)restored);
	if (from_gen)
		json_int(js, "displaced_from_generation", from_gen);
	else
		json_null(js, "displaced_from_generation");
	json_voln(js, "diff", diff->p ? diff->p : "", diff->len);
	if (applied && s->generation > 0)
		json_int(js, "generation", s->generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}

static int acpi_off(struct wd_ctx *ctx, struct setup *s, struct wd_err *err)
{
	struct pkg_manifest m = {0};
	bool found = false;
	int r = pkg_state_read(ctx, &s->v, &s->db, &s->have_db, err);
	if (!r)
		r = setup_open(s, err);
	if (!r)
		r = installed_psd(s, &m, &found, err);
	if (!r && !found)
		r = wd_err_set(err, WD_EFAIL, "configure acpi --off: no ACPI PSD package is "
			       "installed ('warpdrv list --installed' shows what is): nothing to "
			       "turn off");
	if (!r && !config_off_has_needs(&m, &s->cs))
		r = wd_err_set(err, WD_EFAIL, "configure acpi --off: %s has none of the statements "
			       "of %s %s (%s=%s ...): nothing to turn off ('warpdrv remove %s' "
			       "removes the package)", s->host[F_CONFIG], m.name, m.version,
			       m.nconfig_need ? m.config_need[0].keyword : "",
			       m.nconfig_need ? m.config_need[0].value : "", m.name);
	struct wd_buf before = {0}, diff = {0};
	long gen = 0;
	size_t restored = 0;
	if (!r)
		r = config_off_before(s, &m, &before, &gen, err);
	if (!r) {
		struct config_sys b;
		config_sys_parse(&b, before.p ? before.p : "", before.len);
		if (config_off_plan(&m, gen ? &b : NULL, &s->cs, &restored) < 0)
			r = wd_err_set(err, WD_EFAIL, "configure acpi --off: a line of %s could not "
				       "be edited; nothing was written", s->host[F_CONFIG]);
		config_sys_free(&b);
	}
	char summary[200];
	if (!r) {
		snprintf(summary, sizeof summary, "ACPI PSD off (%s statements out, %zu displaced "
			 "line%s back)", m.name, restored, restored == 1 ? "" : "s");
		s->summary = summary;
		setup_render(s);
		r = setup_verify(s, NULL, 0, err);
	}
	if (!r) {
		setup_diff(s, &diff);
		if (!ctx->json) {
			ui_say(ctx, "ACPI: %s %s off: its statements out of %s", ui_esc(m.name),
			       ui_esc(m.version), ui_esc(s->host[F_CONFIG]));
			if (gen)
				ui_say(ctx, ", the %zu line%s it displaced back (from before generation "
				       "%ld)", restored, restored == 1 ? "" : "s", gen);
			ui_say(ctx, ".\n");
			if (!gen)
				ui_say(ctx, "note: no generation recorded what these statements "
				       "displaced, so nothing is put back in their place\n");
			if (!ctx->quiet) {
				ui_say(ctx, "\n");
				ui_show_diff(ctx, wd_buf_cstr(&diff), diff.len);
			}
		}
	}
	bool applied = false;
	if (!r && !ctx->dry_run) {
		r = ui_confirm(ctx, "Apply these changes?", err, "configure acpi --off changes the "
			       "volume");
		if (!r && !(r = setup_apply(s, err)))
			applied = true;
	}
	if (!r && ctx->json)
		show_json(ctx, s, m.name, &diff, applied, restored, gen);
	else if (!r && applied)
		ui_say(ctx, "\nDone: generation %ld. '%s' may now be removed ('warpdrv remove %s'); "
		       "'warpdrv rollback' undoes this.\n", s->generation, m.name, m.name);
	else if (!r)
		ui_say(ctx, "\nDry run: nothing was written.\n");
	wd_buf_free(&before);
	wd_buf_free(&diff);
	if (found)
		manifest_free(&m);
	return r;
}

int cmd_configure_acpi_off(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 0)
		return ui_usage(ctx, "configure acpi --off: unexpected argument '%s'", argv[0]);
	struct wd_err err = {0};
	struct setup s = {.command = "configure acpi --off"};
	int r = acpi_off(ctx, &s, &err);
	setup_free(&s);
	return r ? ui_fail(ctx, r, &err) : 0;
}
