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

struct job {
	struct wd_ctx *ctx;
	bool writes;           /* may write to the volume (not detect) */
	const struct keyring *kr;
	struct catalog *cat;
	struct package *pkgs;  /* the NIC and PSD packages on offer */
	size_t npkgs;
	bool download_ok;      /* the user agreed to download what the plan needs */
	bool free_only;        /* configure nic --off to the free default */
	const char *command;   /* "setup", "configure nic", "rollback", "detect" */
	struct volume *v;      /* the session's (detect without --root: none) */
	struct setup *s;       /* the plan (installer/setup.h); NULL for detect */
	bool switch_nic;       /* setup --switch-nic: the machine's PCnet adapters too */
	bool applied;          /* finish wrote the plan */
	long generation;       /* the generation it recorded */
};

static void job_free(struct job *j)
{
	for (size_t i = 0; i < j->npkgs; i++)
		package_free(&j->pkgs[i]);
	free(j->pkgs);
	setup_free(j->s);
}

/* The volume, its database (read only, an interrupted run finished first)
 * and its configuration files. */
static int job_open(struct job *j, struct wd_err *err)
{
	struct db *db;
	bool have;
	int r = session_boot_volume(j->ctx->s, &j->v, err);
	if (!r)
		r = session_db(j->ctx->s, SESSION_DB_RECOVER, &db, &have, err);
	return r ? r : setup_new(&j->s, j->command, j->v, db, have, err);
}

/* A package the plan needs that is not here yet (a remote repository's, not
 * complete in the cache) is downloaded only once the user agreed: --yes, or
 * a yes at the terminal, asked once a run; no terminal: refused (exit 2);
 * --dry-run downloads nothing (exit 1, saying what it would need). */
static int may_download(struct job *j, const struct repo *from, const struct index_entry *e,
			struct wd_err *err)
{
	struct wd_ctx *ctx = j->ctx;
	if (!j->writes || j->download_ok || !catalog_would_download(from, e))
		return 0;
	const char *where = from->name ? from->name : from->url;
	if (ctx->dry_run)
		return wd_err_set(err, WD_EFAIL, "%s --dry-run downloads nothing, and the plan needs "
				  "%s %s (%llu bytes from %s), which is not in the cache: run '%s' "
				  "without --dry-run, which asks before downloading", j->command,
				  e->name, e->version, (unsigned long long)e->size, where,
				  j->command);
	char question[400];
	snprintf(question, sizeof question, "The plan needs %s %s: download %llu bytes from %s?",
		 ui_esc(e->name), ui_esc(e->version), (unsigned long long)e->size, ui_esc(where));
	int r = ui_confirm(ctx, question, err, "%s must download %s %s (%llu bytes from %s) to plan",
			   j->command, e->name, e->version, (unsigned long long)e->size, where);
	j->download_ok = !r;
	return r;
}

/* Every NIC and PSD package of the repositories, each name at the newest
 * version the subscription allows (or, when none is, its newest, for the
 * gate to refuse with its reason), with its manifest and files checked; a NIC driver whose
 * index says what it drives is known from the index alone until it is
 * chosen (job_load), so that only the packages installed are downloaded. */
static int job_packages(struct job *j, struct wd_err *err)
{
	struct session *ss = j->ctx->s;
	int r = session_keyring(ss, &j->kr, err);
	/* remote packages download into the volume's cache (and install from
	 * it offline) */
	if (!r)
		r = session_catalog(ss, j->writes, &j->cat, err);
	if (!r)
		r = catalog_need_repository(j->cat, err);
	if (r)
		return r;
	struct wd_err ignore; /* a key that does not load: the gate says so when asked */
	const struct activation *act;
	const struct entitlement_ctx *ec = session_activation(ss, &act, &ignore) ? NULL : &act->ctx;
	size_t n;
	struct catalog_version *picks = catalog_pick_each(j->cat, ec, &n);
	for (size_t i = 0; !r && i < n; i++) {
		const struct index_entry *e = picks[i].e;
		const struct repo *rp = picks[i].from;
		if (!j->writes && e->kind != PKG_KIND_NIC)
			continue; /* detect tells only the NIC drivers */
		j->pkgs = wd_xrealloc(j->pkgs, (j->npkgs + 1) * sizeof *j->pkgs);
		if (e->kind == PKG_KIND_NIC && catalog_stub(rp, e, &j->pkgs[j->npkgs])) {
			j->npkgs++;
			continue;
		}
		if (!(r = may_download(j, rp, e, err)) &&
		    !(r = catalog_fetch(rp, e, j->kr, &j->pkgs[j->npkgs], err)))
			j->npkgs++;
	}
	free(picks);
	return r;
}

/* The subscription gate (session_gate). */
static int gate(void *arg, const struct package *p, struct wd_err *why)
{
	struct job *j = arg;
	if (p->m.entitlement && j->free_only)
		return wd_err_set(why, WD_ELICENSE, "configure nic --off goes back to a driver that "
				  "needs no subscription");
	return session_gate(j->ctx->s, p, why);
}

/* The chosen driver read whole (a stub until then). */
static int job_load(void *arg, const struct package *p, struct wd_err *err)
{
	struct job *j = arg;
	int r = p->stub ? may_download(j, p->stub_from, p->stub, err) : 0;
	return r ? r : catalog_unstub(j->kr, (struct package *)p, err);
}

/* The machine's NICs as --switch-nic leaves them, and a note of each switch. */
static int switch_nic_pci(struct job *j, struct wd_err *err)
{
	struct pci_list l;
	int n = 0;
	int r = session_switch_nic_pci(j->ctx->s, &l, &n, err);
	if (r)
		return r;
	for (int i = 0; i < n; i++)
		setup_note(j->s, wd_xasprintf("the machine's adapter %d becomes an Intel PRO/1000 MT "
					      "Desktop (82540EM) in its settings (--switch-nic)",
					      j->ctx->s->sw.slots[i] + 1));
	if (!n)
		setup_note(j->s, wd_xstrdup("--switch-nic: the machine has no PCnet adapter to switch"));
	setup_take_pci(j->s, &l);
	return 0;
}

static int plan_nic(struct job *j, const char *driver, const char *slot, const char *section,
		    bool off, struct wd_err *err)
{
	int r = j->switch_nic ? switch_nic_pci(j, err) : setup_read_pci(j->s, j->ctx->pci, err);
	if (r)
		return r;
	const struct package **nics = wd_xcalloc(j->npkgs + 1, sizeof *nics);
	size_t n = 0;
	for (size_t i = 0; i < j->npkgs; i++)
		if (j->pkgs[i].m.kind == PKG_KIND_NIC)
			nics[n++] = &j->pkgs[i];
	struct nic_plan_in in = {.pkgs = nics, .npkgs = n, .may = gate, .may_arg = j,
				 .driver = driver, .slot = slot, .section = section, .off = off,
				 .load = j->writes ? job_load : NULL, .load_arg = j};
	r = setup_plan_nic(j->s, &in, err);
	free(nics);
	return r;
}

/* optional: when acpi-psd may not be installed, say what a subscription
 * would add and go on (setup); else that is the error (configure acpi). */
static int plan_acpi(struct job *j, bool optional, struct wd_err *err)
{
	const struct package *p = NULL;
	for (size_t i = 0; i < j->npkgs && !p; i++)
		if (j->pkgs[i].m.kind == PKG_KIND_PSD)
			p = &j->pkgs[i];
	if (!p) {
		if (optional) {
			setup_note(j->s, wd_xstrdup("no ACPI PSD package in the repositories: ACPI left as it is"));
			return 0;
		}
		return wd_err_set(err, WD_EFAIL, "no ACPI PSD package in the repositories "
				  "('warpdrv list' shows what there is)");
	}
	struct wd_err why = {0};
	int r = gate(j, p, &why);
	if (r && optional) {
		setup_refuse_acpi(j->s, p);
		if (j->ctx->verbose)
			setup_note(j->s, wd_xasprintf("%s %s: %s", p->m.name, p->m.version, why.msg));
		return 0;
	}
	if (r) {
		*err = why;
		return wd_err_prefix(err, "%s %s", p->m.name, p->m.version);
	}
	return setup_plan_acpi(j->s, p, err);
}

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

static void show_text(struct job *j, const struct wd_buf *diff)
{
	struct wd_ctx *ctx = j->ctx;
	struct setup_view pv;
	setup_view(j->s, &pv);
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
	if (diff->len && !ctx->json && !ctx->quiet) {
		putchar('\n');
		ui_show_diff(ctx, diff->p, diff->len);
	}
}

static void show_json(struct job *j, const struct wd_buf *diff, bool applied)
{
	struct json *js = &j->ctx->j;
	struct setup_view pv;
	setup_view(j->s, &pv);
	json_obj_begin(js, NULL);
	json_str(js, "command", pv.command);
	json_bool(js, "dry_run", j->ctx->dry_run);
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
	json_voln(js, "diff", diff->p ? diff->p : "", diff->len);
	if (applied && pv.generation > 0)
		json_int(js, "generation", pv.generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}


/* Shows the plan, asks, applies. */
static int finish(struct job *j, bool ask, struct wd_err *err)
{
	struct wd_ctx *ctx = j->ctx;
	setup_render(j->s);
	const struct package **pkgs = wd_xcalloc(j->npkgs + 1, sizeof *pkgs);
	for (size_t i = 0; i < j->npkgs; i++)
		pkgs[i] = &j->pkgs[i];
	int r = setup_verify(j->s, pkgs, j->npkgs, err);
	free(pkgs);
	if (r)
		return r;
	struct setup_view pv;
	setup_view(j->s, &pv);
	for (size_t i = 0; pv.nic && i < pv.nic->nwarnings; i++)
		ui_warn(ctx, "%s", pv.nic->warnings[i]);
	struct wd_buf diff = {0};
	setup_diff(j->s, &diff);
	bool applied = false;
	if (!pv.anything) {
		if (ctx->json)
			show_json(j, &diff, false);
		else {
			show_text(j, &diff);
			ui_say(ctx, "Nothing to do: the volume is configured so already.\n");
		}
		wd_buf_free(&diff);
		return 0;
	}
	if (!ctx->json)
		show_text(j, &diff);
	if (!ctx->dry_run) {
		if (ask)
			r = ui_confirm(ctx, "Apply these changes?", err, "%s changes the volume",
				       pv.command);
		if (!r)
			r = setup_apply(j->s, err);
		applied = !r;
	}
	j->applied = applied;
	setup_view(j->s, &pv);
	j->generation = pv.generation;
	setup_view(j->s, &pv);
	if (!r && ctx->json)
		show_json(j, &diff, applied);
	else if (!r && applied && pv.generation)
		ui_say(ctx, "\nDone: generation %ld. The new configuration loads at the next boot; "
		       "'warpdrv rollback' undoes it.\n", pv.generation);
	else if (!r && applied)
		ui_say(ctx, "\nDone: the packages are installed; CONFIG.SYS and PROTOCOL.INI "
		       "did not change.\n");
	else if (!r)
		ui_say(ctx, "\nDry run: nothing was written.\n");
	wd_buf_free(&diff);
	return r;
}

/* What a run plans: the NIC (with --driver, --slot, --section, --frame),
 * ACPI (optional: setup goes on without a subscription for it). */
struct run {
	bool nic, acpi, acpi_optional, ask, off, switch_nic;
	const char *driver, *slot, *section, *frame;
};

static int run_job(struct wd_ctx *ctx, const char *command, const struct run *w)
{
	struct wd_err err = {0};
	struct job j = {.ctx = ctx, .writes = true, .command = command, .switch_nic = w->switch_nic};
	int r = job_open(&j, &err);
	if (!r)
		setup_set_frame(j.s, w->frame);
	if (!r)
		r = job_packages(&j, &err);
	const char *driver = w->driver;
	char *before = NULL; /* a copy: reading the package whole replaces its manifest */
	if (!r && w->off) { /* back to the driver before (installer/config_off.h) */
		const struct package *cur, *prev;
		long gen;
		if (!(r = config_off_nic(j.s, j.pkgs, j.npkgs, &cur, &prev, &gen, &err)))
			driver = before = prev ? wd_xstrdup(prev->m.name) : NULL;
		j.free_only = !r && !prev;
	}
	if (!r && w->nic)
		r = plan_nic(&j, driver, w->slot, w->section, w->off, &err);
	if (!r && w->acpi)
		r = plan_acpi(&j, w->acpi_optional, &err);
	if (!r)
		r = finish(&j, w->ask, &err);
	if (!r && j.applied && j.switch_nic && ctx->s->sw.n &&
	    !(r = session_switch_nic_apply(ctx->s, j.generation, &err)))
		ui_say(ctx, "The machine's PCnet adapter is now an Intel PRO/1000 MT Desktop "
		       "(82540EM); 'warpdrv --vm %s rollback' configures the guest back and "
		       "switches the adapter back.\n", ui_esc(ctx->vm));
	job_free(&j);
	free(before);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_setup(struct wd_ctx *ctx, int argc, char **argv)
{
	struct run w = {.nic = true, .acpi = true, .acpi_optional = true, .ask = true,
			.section = ui_optarg(ctx, "section"), .frame = ui_optarg(ctx, "frame"),
			.switch_nic = ui_opt(ctx, "switch-nic")};
	if (argc > 0)
		return ui_usage(ctx, "setup: unexpected argument '%s'", argv[0]);

	return run_job(ctx, "setup", &w);
}

#define FRAME_OPT                                                                          \
	{"frame", 0, "FRAME", "the Ethernet frame (802.2, 802.3, II, SNAP) a protocol set for " \
			      "another medium is switched to", false}

const struct wd_opt cmd_setup_opts[] = {
	{"section", 0, "NAME", "the PROTOCOL.INI section of the old adapter, where it is not sure", false},
	{"switch-nic", 0, NULL, "with --vm: a PCnet adapter becomes an Intel PRO/1000 MT Desktop",
	 false},
	FRAME_OPT,
	{0},
};

static int configure_nic(struct wd_ctx *ctx, int argc, char **argv)
{
	struct run w = {.nic = true, .ask = true, .driver = ui_optarg(ctx, "driver"),
			.slot = ui_optarg(ctx, "slot"), .section = ui_optarg(ctx, "section"),
			.frame = ui_optarg(ctx, "frame"), .off = ui_opt(ctx, "off")};
	if (argc > 0)
		return ui_usage(ctx, "configure nic: unexpected argument '%s'", argv[0]);
	if (w.off && w.driver)
		return ui_usage(ctx, "configure nic: --off goes back to the driver before; --driver "
				"names one: give one of them");
	return run_job(ctx, w.off ? "configure nic --off" : "configure nic", &w);
}

static int configure_acpi(struct wd_ctx *ctx, int argc, char **argv)
{
	struct run w = {.acpi = true, .ask = true};
	if (ui_opt(ctx, "off"))
		return cmd_configure_acpi_off(ctx, argc, argv);
	if (argc > 0)
		return ui_usage(ctx, "configure acpi: unexpected argument '%s'", argv[0]);
	return run_job(ctx, "configure acpi", &w);
}

static const struct wd_opt nic_opts[] = {
	{"driver", 0, "NAME", "this driver package, not the best ranked one", false},
	{"slot", 0, "SLOT", "only the network controller at this PCI slot", false},
	{"section", 0, "NAME", "the PROTOCOL.INI section of the old adapter, where it is not sure", false},
	FRAME_OPT,
	{"off", 0, NULL, "back to the driver before this one (or the free default)", false},
	{0},
};

static const struct wd_opt acpi_opts[] = {
	{"off", 0, NULL, "the PSD's statements out, the lines they displaced back", false},
	{0},
};

const struct wd_cmd cmd_configure_subs[] = {
	{"nic", configure_nic, "[--driver NAME|--off] [--slot SLOT] [--section NAME] [--frame FRAME]",
	 "the NIC driver of each network controller a package drives",
	 "For each network controller a package drives (or the one at --slot), the\n"
	 "best ranked driver the subscription allows (--driver forces one); the new\n"
	 "DEVICE= line takes the place of the old driver's, its PROTOCOL.INI section\n"
	 "takes over the old one's bindings and the settings the new NIF also defines.\n"
	 "--off goes back to the driver CONFIG.SYS loaded before the generation that\n"
	 "configured this one (or the best driver needing no subscription).\n"
	 "Shows the diff and asks, as setup does.\n",
	 nic_opts, NULL},
	{"acpi", configure_acpi, "[--off]", "the ACPI PSD",
	 "PSD=ACPI.PSD, BASEDEV=APM.ADD and the daemon, in place of OS2APIC.PSD,\n"
	 "APM.SYS and VAPM.SYS. --off takes the PSD's statements out and puts back the\n"
	 "lines they displaced (as before the generation that added them); then\n"
	 "'warpdrv remove acpi-psd' works. Shows the diff and asks, as setup does.\n",
	 acpi_opts, NULL},
	{0},
};

/* ---- detect: the driver each NIC would get ---- */

int setup_would_get(struct wd_ctx *ctx, const struct pci_list *l, char **driver, char **why,
		    struct wd_err *err)
{
	struct volume none = {0}; /* no --root: the boot drive C: */
	struct job j = {.ctx = ctx, .command = "detect", .v = &none};
	struct db *db;
	int r = 0;
	for (size_t i = 0; i < l->n; i++)
		driver[i] = why[i] = NULL;
	if (ui_volume_given(ctx) && !(r = session_boot_volume(ctx->s, &j.v, err)))
		r = session_db(ctx->s, SESSION_DB_READ, &db, NULL, err);
	if (!r)
		r = job_packages(&j, err);
	const struct package **nics = wd_xcalloc(j.npkgs + 1, sizeof *nics);
	size_t n = 0;
	for (size_t i = 0; i < j.npkgs; i++)
		if (j.pkgs[i].m.kind == PKG_KIND_NIC)
			nics[n++] = &j.pkgs[i];
	struct nic_plan_in in = {.v = j.v, .pkgs = nics, .npkgs = n, .may = gate, .may_arg = &j};
	if (!r)
		r = nic_advise(&in, l, driver, why, err);
	free(nics);
	job_free(&j);
	return r;
}

/* ---- rollback ---- */



const struct wd_opt cmd_rollback_opts[] = {
	{"packages", 0, NULL, "also remove the packages the generations installed (one transaction)",
	 false},
	{0},
};

int cmd_rollback(struct wd_ctx *ctx, int argc, char **argv)
{
	if (ui_opt(ctx, "packages")) /* ui/cmd_undo.c */
		return cmd_rollback_packages(ctx, argc, argv);
	if (argc > 1)
		return ui_usage(ctx, "rollback takes at most one generation number");
	char *end = NULL;
	long gen = argc ? strtol(argv[0], &end, 10) : 0;
	if (argc && (!*argv[0] || *end || gen < 1))
		return ui_usage(ctx, "rollback %s: expected a generation number ('warpdrv history' "
				"lists them)", argv[0]);
	struct wd_err err = {0};
	struct job j = {.ctx = ctx, .command = "rollback"};
	int r = job_open(&j, &err);
	if (!r)
		r = setup_plan_rollback(j.s, argc ? gen : 0, &err);
	if (!r)
		r = finish(&j, true, &err);
	/* the guest back as before generation gen (the last by default): an
	 * adapter --switch-nic switched then goes back too */
	if (!r && j.applied && ctx->vm)
		r = ui_unswitch_nic(ctx, argc ? gen : j.generation - 1, &err);
	job_free(&j);
	return r ? ui_fail(ctx, r, &err) : 0;
}
