/* warpdrv setup, configure nic|acpi, rollback: plan the change of CONFIG.SYS
 * and PROTOCOL.INI (and the packages it needs), show it as a unified diff,
 * and apply it as one transaction that records a generation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "catalog/versions.h"
#include "common/date.h"
#include "common/diff.h"
#include "common/file.h"
#include "installer/config_off.h"
#include "installer/generation.h"
#include "installer/nic_plan.h"
#include "installer/setup.h"
#include "txn/txn.h"
#include "license/activation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

/* What `warpdrv activate` with the right key would add: the better drivers
 * passed over and the ACPI PSD. */
static void would_add(const struct setup_view *pv, struct wd_buf *out)
{
	for (size_t i = 0; pv->nic && i < pv->nic->n; i++) {
		const struct nic_item *it = &pv->nic->items[i];
		const struct package *b = it->better;
		if (!b)
			continue;
		char *name = nic_display_name(b);
		wd_buf_addf(out, "%s%s for the %s at %s (needs '%s')", out->len ? ", " : "", name,
			    it->dev->vbox_model ? it->dev->vbox_model : "NIC", it->dev->slot,
			    b->m.entitlement ? b->m.entitlement : "?");
		free(name);
	}
	if (pv->acpi_refused)
		wd_buf_addf(out, "%sthe ACPI PSD, so that shutting the guest down powers the virtual "
			    "machine off (needs '%s')", out->len ? ", and " : "",
			    pv->acpi_refused->m.entitlement ? pv->acpi_refused->m.entitlement : "?");
}

static void show_text(struct wd_ctx *ctx, const struct setup_view *v)
{
	const struct setup_view pv = *v;
	for (size_t i = 0; pv.nic && i < pv.nic->n; i++) {
		const struct nic_item *it = &pv.nic->items[i];
		ui_say(ctx, "NIC %s %s: %s%s %s (%s, %s)%s\n", ui_esc(it->dev->slot),
		       it->dev->vbox_model ? it->dev->vbox_model : "", ui_color(ctx, "bold"),
		       ui_esc(it->pkg->m.name), ui_esc(it->pkg->m.version),
		       ui_esc(it->pkg->m.driver), ui_vol(ctx, it->section), ui_color(ctx, "reset"));
		if (it->replaced_file && !it->unchanged)
			ui_say(ctx, "  replaces %s%s%s%s\n", ui_vol(ctx, it->replaced_file),
			       it->replaced_section ? " [" : "",
			       it->replaced_section ? ui_vol(ctx, it->replaced_section) : "",
			       it->replaced_section ? "]" : "");
		if (it->unchanged)
			ui_say(ctx, "  already configured\n");
		for (size_t k = 0; k < it->nnotes; k++)
			ui_say(ctx, "  note: %s\n", ui_mixed_text(ctx, it->notes[k]));
	}
	if (pv.acpi)
		ui_say(ctx, "ACPI: %s %s (%s)\n", pv.acpi->m.name, pv.acpi->m.version,
		       pv.acpi_changes ? "PSD=ACPI.PSD, APM.ADD, the daemon" : "already configured");
	for (size_t i = 0; i < pv.nnotes; i++)
		ui_say(ctx, "note: %s\n", ui_mixed_text(ctx, pv.notes[i]));
	struct wd_buf more = {0};
	would_add(&pv, &more);
	if (more.len)
		ui_say(ctx, "A subscription would add %s: 'warpdrv activate KEY'.\n", more.p);
	wd_buf_free(&more);
	if (pv.ninstall) {
		ui_say(ctx, "Packages to install:");
		for (size_t i = 0; i < pv.ninstall; i++)
			ui_say(ctx, " %s %s", pv.install[i]->m.name, pv.install[i]->m.version);
		ui_say(ctx, "\n");
	}
	if (pv.diff_len && !ctx->json && !ctx->quiet) {
		putchar('\n');
		ui_show_diff(ctx, pv.diff, pv.diff_len);
	}
}

static void show_json(struct wd_ctx *ctx, const struct setup_view *v, bool applied)
{
	struct json *js = &ctx->j;
	const struct setup_view pv = *v;
	json_obj_begin(js, NULL);
	json_str(js, "command", pv.command);
	json_bool(js, "dry_run", ctx->dry_run);
	json_bool(js, "changed", pv.anything);
	json_bool(js, "applied", applied);
	if (pv.nic) {
		json_arr_begin(js, "nics");
		for (size_t i = 0; i < pv.nic->n; i++) {
			const struct nic_item *it = &pv.nic->items[i];
			json_obj_begin(js, NULL);
			json_str(js, "slot", it->dev->slot);
			json_str(js, "vbox_model", it->dev->vbox_model);
			json_str(js, "package", it->pkg->m.name);
			json_str(js, "version", it->pkg->m.version);
			json_str(js, "driver", it->pkg->m.driver);
			json_vol(js, "section", it->section);
			json_vol(js, "driver_name", it->drivername);
			json_vol(js, "replaced_driver", it->replaced_file);
			json_vol(js, "replaced_section", it->replaced_section);
			json_bool(js, "unchanged", it->unchanged);
			json_arr_begin(js, "notes");
			for (size_t k = 0; k < it->nnotes; k++)
				json_mixed(js, NULL, it->notes[k]);
			json_arr_end(js);
			json_obj_end(js);
		}
		json_arr_end(js);
	}
	if (pv.acpi)
		json_str(js, "acpi", pv.acpi->m.name);
	json_arr_begin(js, "install");
	for (size_t i = 0; i < pv.ninstall; i++)
		json_str(js, NULL, pv.install[i]->m.name);
	json_arr_end(js);
	json_arr_begin(js, "notes");
	for (size_t i = 0; i < pv.nnotes; i++)
		json_mixed(js, NULL, pv.notes[i]);
	json_arr_end(js);
	json_arr_begin(js, "warnings");
	for (size_t i = 0; pv.nic && i < pv.nic->nwarnings; i++)
		json_mixed(js, NULL, pv.nic->warnings[i]);
	json_arr_end(js);
	struct wd_buf more = {0};
	would_add(&pv, &more);
	json_str(js, "subscription_would_add", more.len ? more.p : NULL);
	wd_buf_free(&more);
	json_voln(js, "diff", pv.diff, pv.diff_len);
	if (applied && pv.generation > 0)
		json_int(js, "generation", pv.generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}


/* Plans (installer/setup.h), shows the plan, asks, applies. */
static int run(struct wd_ctx *ctx, const struct setup_req *q, struct setup **sp,
	       struct wd_err *err)
{
	int r = setup_prepare(ctx->s, q, sp, err);
	if (r)
		return r;
	struct setup_view pv;
	setup_view(*sp, &pv);
	for (size_t i = 0; pv.nic && i < pv.nic->nwarnings; i++)
		ui_warn(ctx, "%s", pv.nic->warnings[i]);
	if (!pv.anything) {
		if (ctx->json)
			show_json(ctx, &pv, false);
		else {
			show_text(ctx, &pv);
			ui_say(ctx, "Nothing to do: the volume is configured so already.\n");
		}
		return 0;
	}
	if (!ctx->json)
		show_text(ctx, &pv);
	bool applied = false;
	if (!ctx->dry_run) {
		r = ui_confirm(ctx, "Apply these changes?", err, "%s changes the volume", pv.command);
		if (!r)
			r = setup_commit(*sp, err);
		setup_view(*sp, &pv);
		applied = pv.applied; /* a failure after it (--switch-nic's) is told below */
	}
	if (!r && ctx->json)
		show_json(ctx, &pv, applied);
	else if (applied && pv.generation)
		ui_say(ctx, "\nDone: generation %ld. The new configuration loads at the next boot; "
		       "'warpdrv rollback' undoes it.\n", pv.generation);
	else if (applied)
		ui_say(ctx, "\nDone: the packages are installed; CONFIG.SYS and PROTOCOL.INI "
		       "did not change.\n");
	else if (!r)
		ui_say(ctx, "\nDry run: nothing was written.\n");
	if (!r && pv.switched)
		ui_say(ctx, "The machine's PCnet adapter is now an Intel PRO/1000 MT Desktop "
		       "(82540EM); 'warpdrv --vm %s rollback' configures the guest back and "
		       "switches the adapter back.\n", ui_esc(ctx->vm));
	return r;
}

static int run_job(struct wd_ctx *ctx, struct setup_req *q)
{
	struct wd_err err = {0};
	struct setup *s = NULL;
	q->pci = ctx->pci;
	q->verbose = ctx->verbose;
	int r = run(ctx, q, &s, &err);
	setup_free(s);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_setup(struct wd_ctx *ctx, int argc, char **argv)
{
	const struct setup_args *a = UI_ARGS(ctx, struct setup_args);
	struct setup_req q = {.command = "setup", .nic = true, .acpi = true, .acpi_optional = true,
			      .section = a->section, .frame = a->frame, .switch_nic = a->switch_nic};
	if (argc > 0)
		return ui_usage(ctx, "setup: unexpected argument '%s'", argv[0]);
	return run_job(ctx, &q);
}

int cmd_setup_check(struct wd_ctx *ctx)
{
	if (!ctx->vm && UI_ARGS(ctx, struct setup_args)->switch_nic)
		return ui_usage(ctx, "setup --switch-nic changes a VirtualBox machine's adapter: "
				"name the machine with --vm MACHINE");
	return 0;
}

#define FRAME_OPT(T)                                                                       \
	WD_OPT_STRING(T, frame, "frame", 0, "FRAME", "the Ethernet frame (802.2, 802.3, II, "   \
		      "SNAP) a protocol set for another medium is switched to")
#define SECTION_OPT(T)                                                                     \
	WD_OPT_STRING(T, section, "section", 0, "NAME", "the PROTOCOL.INI section of the old "   \
		      "adapter, where it is not sure")

const struct wd_opt cmd_setup_opts[] = {
	SECTION_OPT(struct setup_args),
	WD_OPT_BOOL(struct setup_args, switch_nic, "switch-nic", 0,
		    "with --vm: a PCnet adapter becomes an Intel PRO/1000 MT Desktop"),
	FRAME_OPT(struct setup_args),
	{0},
};

static int configure_nic(struct wd_ctx *ctx, int argc, char **argv)
{
	const struct configure_nic_args *a = UI_ARGS(ctx, struct configure_nic_args);
	struct setup_req q = {.nic = true, .driver = a->driver, .slot = a->slot,
			      .section = a->section, .frame = a->frame, .off = a->off};
	if (argc > 0)
		return ui_usage(ctx, "configure nic: unexpected argument '%s'", argv[0]);
	if (q.off && q.driver)
		return ui_usage(ctx, "configure nic: --off goes back to the driver before; --driver "
				"names one: give one of them");
	q.command = q.off ? "configure nic --off" : "configure nic";
	return run_job(ctx, &q);
}

static int configure_acpi(struct wd_ctx *ctx, int argc, char **argv)
{
	struct setup_req q = {.command = "configure acpi", .acpi = true};
	if (UI_ARGS(ctx, struct configure_acpi_args)->off)
		return cmd_configure_acpi_off(ctx, argc, argv);
	if (argc > 0)
		return ui_usage(ctx, "configure acpi: unexpected argument '%s'", argv[0]);
	return run_job(ctx, &q);
}

static const struct wd_opt nic_opts[] = {
	WD_OPT_STRING(struct configure_nic_args, driver, "driver", 0, "NAME",
		      "this driver package, not the best ranked one"),
	WD_OPT_STRING(struct configure_nic_args, slot, "slot", 0, "SLOT",
		      "only the network controller at this PCI slot"),
	SECTION_OPT(struct configure_nic_args),
	FRAME_OPT(struct configure_nic_args),
	WD_OPT_BOOL(struct configure_nic_args, off, "off", 0,
		    "back to the driver before this one (or the free default)"),
	{0},
};

static const struct wd_opt acpi_opts[] = {
	WD_OPT_BOOL(struct configure_acpi_args, off, "off", 0,
		    "the PSD's statements out, the lines they displaced back"),
	{0},
};

const struct wd_cmd cmd_configure_subs[] = {
	{.name = "nic", .run = configure_nic, .args = "[--driver NAME|--off] [--slot SLOT] [--section NAME] [--frame FRAME]",
	 .summary = "the NIC driver of each network controller a package drives",
	 .help = "For each network controller a package drives (or the one at --slot), the\n"
	 "best ranked driver the subscription allows (--driver forces one); the new\n"
	 "DEVICE= line takes the place of the old driver's, its PROTOCOL.INI section\n"
	 "takes over the old one's bindings and the settings the new NIF also defines.\n"
	 "--off goes back to the driver CONFIG.SYS loaded before the generation that\n"
	 "configured this one (or the best driver needing no subscription).\n"
	 "Shows the diff and asks, as setup does.\n",
	 .opts = nic_opts, .args_size = sizeof(struct configure_nic_args),
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	{.name = "acpi", .run = configure_acpi, .args = "[--off]", .summary = "the ACPI PSD",
	 .help = "PSD=ACPI.PSD, BASEDEV=APM.ADD and the daemon, in place of OS2APIC.PSD,\n"
	 "APM.SYS and VAPM.SYS. --off takes the PSD's statements out and puts back the\n"
	 "lines they displaced (as before the generation that added them); then\n"
	 "'warpdrv remove acpi-psd' works. Shows the diff and asks, as setup does.\n",
	 .opts = acpi_opts, .args_size = sizeof(struct configure_acpi_args),
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	{0},
};

/* ---- rollback ---- */



const struct wd_opt cmd_rollback_opts[] = {
	WD_OPT_BOOL(struct rollback_args, packages, "packages", 0,
		    "also remove the packages the generations installed (one transaction)"),
	{0},
};

int cmd_rollback(struct wd_ctx *ctx, int argc, char **argv)
{
	if (UI_ARGS(ctx, struct rollback_args)->packages) /* ui/cmd_undo.c */
		return cmd_rollback_packages(ctx, argc, argv);
	if (argc > 1)
		return ui_usage(ctx, "rollback takes at most one generation number");
	char *end = NULL;
	long gen = argc ? strtol(argv[0], &end, 10) : 0;
	if (argc && (!*argv[0] || *end || gen < 1))
		return ui_usage(ctx, "rollback %s: expected a generation number ('warpdrv history' "
				"lists them)", argv[0]);
	struct setup_req q = {.command = "rollback", .rollback = true, .gen = argc ? gen : 0};
	struct wd_err err = {0};
	struct setup *s = NULL;
	int r = run(ctx, &q, &s, &err);
	struct setup_view pv;
	if (s)
		setup_view(s, &pv);
	/* the guest back as before generation gen (the last by default): an
	 * adapter --switch-nic switched then goes back too */
	if (!r && s && pv.applied && ctx->vm)
		r = ui_unswitch_nic(ctx, argc ? gen : pv.generation - 1, &err);
	setup_free(s);
	return r ? ui_fail(ctx, r, &err) : 0;
}
