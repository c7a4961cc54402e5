/* warpdrv setup, configure nic|acpi, rollback: plan the change of CONFIG.SYS
 * and PROTOCOL.INI (and the packages it needs), show it as a unified diff,
 * and apply it as one transaction that records a generation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/date.h"
#include "common/diff.h"
#include "common/file.h"
#include "installer/acpi_plan.h"
#include "os2/config_sys.h"
#include "installer/generation.h"
#include "installer/nic_plan.h"
#include "os2/protocol_ini.h"
#include "installer/txn.h"
#include "license/activation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"

enum { F_CONFIG, F_PROTOCOL, NFILES };

struct job {
	struct wd_ctx *ctx;
	const char *command;   /* "setup", "configure nic", ... */
	const char *summary;   /* for the generation; NULL: made from the plan */
	bool writes;           /* may write to the volume (not detect) */
	struct volume v;
	struct db db;
	bool have_db;
	struct keyring kr;
	struct catalog cat;
	bool have_cat;
	struct package *pkgs;  /* the NIC and PSD packages on offer */
	size_t npkgs;
	struct activation act;
	bool act_loaded;
	char *host[NFILES];    /* below the root; NULL: not on the volume */
	struct wd_buf old[NFILES], new_[NFILES];
	struct config_sys cs;
	struct protocol_ini pi;
	bool have_pi;
	struct pci_list pci;    /* the devices the NIC plan points into */
	struct nic_plan nic;
	bool nic_done;
	const struct package *acpi;
	bool acpi_done;
	const struct package *acpi_refused; /* the gate said no (setup goes on) */
	char **notes;
	size_t nnotes;
	const struct package *install[16];
	size_t ninstall;
	long generation;
};


static void note(struct job *j, char *text)
{
	j->notes = wd_xrealloc(j->notes, (j->nnotes + 1) * sizeof *j->notes);
	j->notes[j->nnotes++] = text;
}

static void job_free(struct job *j)
{
	nic_plan_free(&j->nic);
	pci_list_free(&j->pci);
	for (size_t i = 0; i < j->npkgs; i++)
		package_free(&j->pkgs[i]);
	free(j->pkgs);
	if (j->act_loaded)
		activation_free(&j->act);
	if (j->have_cat)
		catalog_free(&j->cat);
	keyring_free(&j->kr);
	config_sys_free(&j->cs);
	if (j->have_pi)
		protocol_ini_free(&j->pi);
	for (int i = 0; i < NFILES; i++) {
		free(j->host[i]);
		wd_buf_free(&j->old[i]);
		wd_buf_free(&j->new_[i]);
	}
	for (size_t i = 0; i < j->nnotes; i++)
		free(j->notes[i]);
	free(j->notes);
	db_close(&j->db);
	volume_close(&j->v);
}

static char *rel(const struct volume *v, const char *abs)
{
	return wd_xstrdup(abs + strlen(v->root) + 1);
}

/* The volume, its database (read only) and both configuration files. */
static int job_open(struct job *j, struct wd_err *err)
{
	int r = pkg_state_read(j->ctx, &j->v, &j->db, &j->have_db, err);
	if (r)
		return r;
	j->host[F_CONFIG] = rel(&j->v, j->v.config_sys);
	if ((r = wd_read_file(j->v.config_sys, 4u << 20, &j->old[F_CONFIG], err)))
		return r;
	config_sys_parse(&j->cs, j->old[F_CONFIG].p ? j->old[F_CONFIG].p : "", j->old[F_CONFIG].len);
	char *pi = NULL;
	bool found = false;
	if ((r = volume_resolve(&j->v, "IBMCOM\\PROTOCOL.INI", &pi, &found, err)))
		return r;
	if (found) {
		j->host[F_PROTOCOL] = rel(&j->v, pi);
		r = wd_read_file(pi, 4u << 20, &j->old[F_PROTOCOL], err);
		if (!r) {
			protocol_ini_parse(&j->pi, j->old[F_PROTOCOL].p ? j->old[F_PROTOCOL].p : "",
					   j->old[F_PROTOCOL].len);
			j->have_pi = true;
		}
	}
	free(pi);
	return r;
}

/* Every NIC and PSD package of the repositories (the first repository that
 * has a name wins), with its manifest and files checked. */
static int job_packages(struct job *j, struct wd_err *err)
{
	int r = j->kr.n ? 0 : pkg_keyring(j->ctx, &j->v, &j->kr, err);
	if (!r)
		r = pkg_catalog(j->ctx, &j->kr, &j->cat, err);
	if (r)
		return r;
	j->have_cat = true;
	/* remote packages download into the volume's cache (and install from
	 * it offline) */
	if (j->writes && !j->ctx->dry_run && (r = pkg_use_cache(j->ctx, &j->v, &j->cat, err)))
		return r;
	for (size_t i = 0; !r && i < j->cat.n; i++) {
		const struct repo *rp = &j->cat.repos[i];
		for (size_t k = 0; !r && k < rp->idx.npkgs; k++) {
			const struct index_entry *e = &rp->idx.pkgs[k];
			const struct repo *from;
			if (catalog_find(&j->cat, e->name, &from) != e)
				continue;
			j->pkgs = wd_xrealloc(j->pkgs, (j->npkgs + 1) * sizeof *j->pkgs);
			r = catalog_fetch(rp, e, &j->kr, &j->pkgs[j->npkgs], err);
			if (!r)
				j->npkgs++;
		}
	}
	return r;
}

/* The subscription gate (license/activation.h), loaded once. */
static int gate(void *arg, const struct package *p, struct wd_err *why)
{
	struct job *j = arg;
	if (!p->m.entitlement)
		return 0;
	if (!j->act_loaded) {
		int r = activation_load(&j->db, &j->kr, &j->act, why);
		if (r)
			return r;
		j->act_loaded = true;
		for (size_t i = 0; i < j->cat.n; i++) {
			const struct repo_index *idx = &j->cat.repos[i].idx;
			activation_add_revoked(&j->act, (const char *const *)idx->revoked, idx->nrevoked);
			activation_saw_date(&j->act, idx->issued);
		}
	}
	return entitlement_check(&j->act.ctx, p->m.entitlement, p->m.released, why);
}

static void want_install(struct job *j, const struct package *p)
{
	for (size_t i = 0; i < j->ninstall; i++)
		if (j->install[i] == p)
			return;
	/* Already installed at this version: nothing to install. */
	char *have = NULL;
	struct wd_err e;
	txn_installed_version(j->have_db ? &j->db : NULL, p->m.name, &have, &e);
	bool nothing = have && !strcmp(have, p->m.version);
	free(have);
	if (!nothing && j->ninstall < sizeof j->install / sizeof *j->install)
		j->install[j->ninstall++] = p;
}

static bool on_volume(struct job *j, const char *os2path)
{
	char *abs = NULL;
	bool found = false;
	struct wd_err e;
	volume_resolve(&j->v, os2path, &abs, &found, &e);
	free(abs);
	return found;
}

static bool files_on_volume(struct job *j, const struct package *p)
{
	for (size_t i = 0; i < p->m.nfiles; i++)
		if (!on_volume(j, p->m.files[i].dest))
			return false;
	return true;
}

static bool driver_on_volume(struct job *j, const struct package *p)
{
	char *path = wd_xasprintf("\\IBMCOM\\MACS\\%s", p->m.driver);
	bool found = on_volume(j, path);
	free(path);
	return found;
}

static int plan_nic(struct job *j, const char *driver, const char *slot, struct wd_err *err)
{
	int r = pci_read(j->ctx->pci, &j->pci, err);
	if (r)
		return r;
	const struct package **nics = wd_xcalloc(j->npkgs + 1, sizeof *nics);
	size_t n = 0;
	for (size_t i = 0; i < j->npkgs; i++)
		if (j->pkgs[i].m.kind == PKG_KIND_NIC)
			nics[n++] = &j->pkgs[i];
	struct nic_plan_in in = {&j->v, &j->pci, nics, n, gate, j, driver, slot};
	r = nic_plan(&in, &j->cs, j->have_pi ? &j->pi : NULL, &j->nic, err);
	if (!r) {
		j->nic_done = true;
		/* A driver already configured whose file is on the volume (the
		 * E1000.OS2 the OS shipped, say) is left alone: nothing to do. */
		for (size_t i = 0; i < j->nic.n; i++) {
			const struct nic_item *it = &j->nic.items[i];
			if (!it->unchanged || !driver_on_volume(j, it->pkg))
				want_install(j, it->pkg);
		}
		for (size_t i = 0; i < j->nic.nnotes; i++)
			note(j, wd_xstrdup(j->nic.notes[i]));
	}
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
			note(j, wd_xstrdup("no ACPI PSD package in the repositories: ACPI left as it is"));
			return 0;
		}
		return wd_err_set(err, WD_EFAIL, "no ACPI PSD package in the repositories "
				  "('warpdrv list' shows what there is)");
	}
	struct wd_err why = {0};
	int r = gate(j, p, &why);
	if (r && optional) {
		j->acpi_refused = p;
		if (j->ctx->verbose)
			note(j, wd_xasprintf("%s %s: %s", p->m.name, p->m.version, why.msg));
		return 0;
	}
	if (r) {
		*err = why;
		return wd_err_prefix(err, "%s %s", p->m.name, p->m.version);
	}
	int changed = acpi_plan(&p->m, j->v.boot_drive, &j->cs);
	j->acpi = p;
	j->acpi_done = true;
	/* ACPI configured already, its files there (the OS's own, as ArcaOS
	 * ships them): nothing to do, as for a configured NIC driver. */
	if (changed || !files_on_volume(j, p))
		want_install(j, p);
	return 0;
}

static bool file_changed(const struct job *j, int f)
{
	return j->host[f] && (j->old[f].len != j->new_[f].len ||
			      memcmp(j->old[f].p, j->new_[f].p, j->old[f].len));
}

static void render(struct job *j)
{
	config_sys_write(&j->cs, &j->new_[F_CONFIG]);
	if (j->have_pi)
		protocol_ini_write(&j->pi, &j->new_[F_PROTOCOL]);
}

static bool anything(const struct job *j)
{
	return file_changed(j, F_CONFIG) || file_changed(j, F_PROTOCOL) || j->ninstall;
}

static void diff_of(const struct job *j, struct wd_buf *out)
{
	for (int f = 0; f < NFILES; f++) {
		if (!file_changed(j, f))
			continue;
		char a[300], b[300];
		snprintf(a, sizeof a, "a/%s", j->host[f]);
		snprintf(b, sizeof b, "b/%s", j->host[f]);
		wd_diff(j->old[f].p, j->old[f].len, j->new_[f].p, j->new_[f].len, a, b, out);
	}
}

static void summary_of(const struct job *j, struct wd_buf *s)
{
	if (j->summary) {
		wd_buf_adds(s, j->summary);
		return;
	}
	for (size_t i = 0; j->nic_done && i < j->nic.n; i++) {
		const struct nic_item *it = &j->nic.items[i];
		if (it->unchanged)
			continue;
		wd_buf_addf(s, "%s%s %s: %s%s%s", s->len ? "; " : "", it->dev->slot,
			    it->dev->vbox_model ? it->dev->vbox_model : "NIC",
			    it->replaced_file ? it->replaced_file : "", it->replaced_file ? " -> " : "",
			    it->pkg->m.driver);
	}
	if (j->acpi_done && file_changed(j, F_CONFIG))
		wd_buf_addf(s, "%sACPI PSD", s->len ? "; " : "");
	if (!s->len)
		wd_buf_adds(s, j->command);
}

/* What `warpdrv activate` with the right key would add: the better drivers
 * passed over and the ACPI PSD. */
static void would_add(const struct job *j, struct wd_buf *out)
{
	for (size_t i = 0; j->nic_done && i < j->nic.n; i++) {
		const struct package *b = j->nic.items[i].better;
		if (!b)
			continue;
		char *name = nic_display_name(b);
		wd_buf_addf(out, "%s%s for the %s at %s (needs '%s')", out->len ? ", " : "", name,
			    j->nic.items[i].dev->vbox_model ? j->nic.items[i].dev->vbox_model : "NIC",
			    j->nic.items[i].dev->slot, b->m.entitlement ? b->m.entitlement : "?");
		free(name);
	}
	if (j->acpi_refused)
		wd_buf_addf(out, "%sthe ACPI PSD, so that shutting the guest down powers the virtual "
			    "machine off (needs '%s')", out->len ? ", and " : "",
			    j->acpi_refused->m.entitlement ? j->acpi_refused->m.entitlement : "?");
}

static void show_text(struct job *j, const struct wd_buf *diff)
{
	struct wd_ctx *ctx = j->ctx;
	for (size_t i = 0; j->nic_done && i < j->nic.n; i++) {
		const struct nic_item *it = &j->nic.items[i];
		ui_say(ctx, "NIC %s %s: %s%s %s (%s, %s)%s\n", it->dev->slot,
		       it->dev->vbox_model ? it->dev->vbox_model : "", ui_color(ctx, "bold"),
		       it->pkg->m.name, it->pkg->m.version, it->pkg->m.driver, it->section,
		       ui_color(ctx, "reset"));
		if (it->replaced_file && !it->unchanged)
			ui_say(ctx, "  replaces %s%s%s%s\n", it->replaced_file,
			       it->replaced_section ? " [" : "",
			       it->replaced_section ? it->replaced_section : "",
			       it->replaced_section ? "]" : "");
		if (it->unchanged)
			ui_say(ctx, "  already configured\n");
		for (size_t k = 0; k < it->nnotes; k++)
			ui_say(ctx, "  note: %s\n", it->notes[k]);
	}
	if (j->acpi_done)
		ui_say(ctx, "ACPI: %s %s (%s)\n", j->acpi->m.name, j->acpi->m.version,
		       file_changed(j, F_CONFIG) || j->ninstall ? "PSD=ACPI.PSD, APM.ADD, the daemon"
							       : "already configured");
	for (size_t i = 0; i < j->nnotes; i++)
		ui_say(ctx, "note: %s\n", j->notes[i]);
	struct wd_buf more = {0};
	would_add(j, &more);
	if (more.len)
		ui_say(ctx, "A subscription would add %s: 'warpdrv activate KEY'.\n", more.p);
	wd_buf_free(&more);
	if (j->ninstall) {
		ui_say(ctx, "Packages to install:");
		for (size_t i = 0; i < j->ninstall; i++)
			ui_say(ctx, " %s %s", j->install[i]->m.name, j->install[i]->m.version);
		ui_say(ctx, "\n");
	}
	if (diff->len)
		ui_say(ctx, "\n%s", diff->p);
}

static void show_json(struct job *j, const struct wd_buf *diff, bool applied)
{
	struct json *js = &j->ctx->j;
	json_obj_begin(js, NULL);
	json_str(js, "command", j->command);
	json_bool(js, "dry_run", j->ctx->dry_run);
	json_bool(js, "changed", anything(j));
	json_bool(js, "applied", applied);
	if (j->nic_done) {
		json_arr_begin(js, "nics");
		for (size_t i = 0; i < j->nic.n; i++) {
			const struct nic_item *it = &j->nic.items[i];
			json_obj_begin(js, NULL);
			json_str(js, "slot", it->dev->slot);
			json_str(js, "vbox_model", it->dev->vbox_model);
			json_str(js, "package", it->pkg->m.name);
			json_str(js, "version", it->pkg->m.version);
			json_str(js, "driver", it->pkg->m.driver);
			json_str(js, "section", it->section);
			json_str(js, "drivername", it->drivername);
			json_str(js, "replaces", it->replaced_file);
			json_str(js, "replaced_section", it->replaced_section);
			json_bool(js, "unchanged", it->unchanged);
			json_arr_begin(js, "notes");
			for (size_t k = 0; k < it->nnotes; k++)
				json_str(js, NULL, it->notes[k]);
			json_arr_end(js);
			json_obj_end(js);
		}
		json_arr_end(js);
	}
	if (j->acpi_done)
		json_str(js, "acpi", j->acpi->m.name);
	json_arr_begin(js, "install");
	for (size_t i = 0; i < j->ninstall; i++)
		json_str(js, NULL, j->install[i]->m.name);
	json_arr_end(js);
	json_arr_begin(js, "notes");
	for (size_t i = 0; i < j->nnotes; i++)
		json_str(js, NULL, j->notes[i]);
	json_arr_end(js);
	struct wd_buf more = {0};
	would_add(j, &more);
	json_str(js, "subscription_would_add", more.len ? more.p : NULL);
	wd_buf_free(&more);
	json_strn(js, "diff", diff->p ? diff->p : "", diff->len);
	if (applied && j->generation > 0)
		json_int(js, "generation", j->generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}

/* --yes, or a yes typed at the terminal; no terminal and no --yes: exit 2. */
static int confirm(struct job *j, struct wd_err *err)
{
	if (j->ctx->yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return wd_err_set(err, WD_EUSAGE, "%s changes the volume and there is no terminal to "
				  "ask on: add --yes to apply, or --dry-run to see the plan",
				  j->command);
	printf("Apply these changes? [y/N] ");
	fflush(stdout);
	char line[32];
	if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
		return wd_err_set(err, WD_EFAIL, "nothing changed: not confirmed");
	return 0;
}

/* One transaction: the packages, both files (copied into the generation
 * folder first) and the generation row. */
static int apply(struct job *j, struct wd_err *err)
{
	struct txn t;
	int r = txn_begin(&t, &j->v, j->command, err);
	if (r)
		return r;
	struct txn_plan plan;
	txn_plan_init(&plan, j->command, "-");
	for (size_t i = 0; !r && i < j->ninstall; i++) {
		struct txn_plan p;
		bool nothing;
		r = txn_plan_install(&j->v, &t.db, j->install[i], &p, &nothing, err);
		if (!r && !nothing)
			txn_plan_merge(&plan, &p);
	}
	struct wd_buf summary = {0};
	summary_of(j, &summary);
	struct generation_note gn = {0, (char *)j->command, summary.p};
	if (!r)
		r = generation_next(&t.db, &gn.n, err);
	/* A folder of that number left from a database that is gone holds
	 * copies nothing else has: the new ones go to a fresh number. */
	while (!r) {
		char *d = generation_dir(gn.n), *abs = wd_path_join(j->v.root, d);
		bool taken = wd_exists(abs);
		free(abs);
		free(d);
		if (!taken)
			break;
		gn.n++;
	}
	const char *files[NFILES];
	struct wd_buf old[NFILES], new_[NFILES];
	size_t nf = 0;
	for (int f = 0; f < NFILES; f++)
		if (j->host[f]) {
			files[nf] = j->host[f];
			old[nf] = j->old[f];
			new_[nf++] = j->new_[f];
		}
	if (!r)
		r = generation_plan(&j->v, &plan, &gn, files, old, new_, nf, err);
	if (!r && plan.nops)
		r = txn_apply(&t, &plan, err);
	if (!r && plan.done_extra)
		j->generation = gn.n;
	int today;
	struct wd_err e2;
	if (!r && !wd_today(&today, &e2))
		activation_note_date(&t.db, today, &e2);
	wd_buf_free(&summary);
	txn_plan_free(&plan);
	txn_end(&t);
	return r;
}

/* Shows the plan, asks, applies. */
static int finish(struct job *j, bool ask, struct wd_err *err)
{
	struct wd_ctx *ctx = j->ctx;
	render(j);
	struct wd_buf diff = {0};
	diff_of(j, &diff);
	int r = 0;
	bool applied = false;
	if (!anything(j)) {
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
		if (ask && !ctx->json)
			r = confirm(j, err);
		else if (ask && !ctx->yes)
			r = wd_err_set(err, WD_EUSAGE, "%s changes the volume: add --yes to apply with "
				       "--json", j->command);
		if (!r)
			r = apply(j, err);
		applied = !r;
	}
	if (!r && ctx->json)
		show_json(j, &diff, applied);
	else if (!r && applied && j->generation)
		ui_say(ctx, "\nDone: generation %ld. The new configuration loads at the next boot; "
		       "'warpdrv rollback' undoes it.\n", j->generation);
	else if (!r && applied)
		ui_say(ctx, "\nDone: the packages are installed; CONFIG.SYS and PROTOCOL.INI "
		       "did not change.\n");
	else if (!r)
		ui_say(ctx, "\nDry run: nothing was written.\n");
	wd_buf_free(&diff);
	return r;
}

static int run_job(struct wd_ctx *ctx, const char *command, bool nic, bool acpi,
		   bool acpi_optional, bool ask, const char *driver, const char *slot)
{
	struct wd_err err = {0};
	struct job j = {.ctx = ctx, .command = command, .writes = true};
	int r = job_open(&j, &err);
	if (!r)
		r = job_packages(&j, &err);
	if (!r && nic)
		r = plan_nic(&j, driver, slot, &err);
	if (!r && acpi)
		r = plan_acpi(&j, acpi_optional, &err);
	if (!r)
		r = finish(&j, ask, &err);
	job_free(&j);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_setup(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc)
		return ui_usage(ctx, "setup: unexpected argument '%s'", argv[0]);
	return run_job(ctx, "setup", true, true, true, true, NULL, NULL);
}

int cmd_configure(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc < 1)
		return ui_usage(ctx, "configure needs what to configure: nic or acpi");
	const char *driver = NULL, *slot = NULL;
	bool nic = !strcmp(argv[0], "nic"), acpi = !strcmp(argv[0], "acpi");
	if (!nic && !acpi)
		return ui_usage(ctx, "configure %s: expected nic or acpi", argv[0]);
	for (int i = 1; i < argc; i++) {
		bool m1 = false, m2 = false;
		int r = nic ? ui_opt_value(ctx, argc, argv, &i, "--driver", &driver, &m1) : 0;
		if (!r && nic && !m1)
			r = ui_opt_value(ctx, argc, argv, &i, "--slot", &slot, &m2);
		if (r)
			return -r;
		if (!m1 && !m2)
			return ui_usage(ctx, "configure %s: unexpected argument '%s'", argv[0], argv[i]);
	}
	return run_job(ctx, nic ? "configure nic" : "configure acpi", nic, acpi, false, false,
		       driver, slot);
}

/* ---- detect: the driver each NIC would get ---- */

int setup_would_get(struct wd_ctx *ctx, const struct pci_list *l, char **driver, char **why,
		    struct wd_err *err)
{
	struct job j = {.ctx = ctx, .command = "detect"};
	int r = 0;
	if (ctx->root)
		r = pkg_state_read(ctx, &j.v, &j.db, &j.have_db, err);
	if (!r)
		r = pkg_keyring(ctx, ctx->root ? &j.v : NULL, &j.kr, err);
	if (!r)
		r = job_packages(&j, err);
	const struct package **nics = wd_xcalloc(j.npkgs + 1, sizeof *nics);
	size_t n = 0;
	for (size_t i = 0; i < j.npkgs; i++)
		if (j.pkgs[i].m.kind == PKG_KIND_NIC)
			nics[n++] = &j.pkgs[i];
	struct nic_plan_in in = {&j.v, NULL, nics, n, gate, &j, NULL, NULL};
	size_t nic_no = 0;
	for (size_t i = 0; !r && i < l->n; i++) {
		driver[i] = why[i] = NULL;
		if (!pci_is_network(&l->devs[i]))
			continue;
		nic_no++;
		struct nic_item it = {.dev = &l->devs[i]};
		struct wd_err e = {0};
		int c = nic_choose(&in, &l->devs[i], &it, &e);
		if (c > 0)
			driver[i] = wd_xstrdup(it.pkg->m.name);
		if (c < 0)
			why[i] = wd_xstrdup(e.msg);
		else if (c == 0 && l->devs[i].vbox_model)
			why[i] = wd_xasprintf("switch the adapter to a supported Intel model: "
					      "VBoxManage modifyvm VM --nictype%d 82540EM",
					      l->devs[i].adapter ? l->devs[i].adapter : (int)nic_no);
		else if (it.nnotes)
			why[i] = wd_xstrdup(it.notes[0]);
		for (size_t k = 0; k < it.nnotes; k++)
			free(it.notes[k]);
		free(it.notes);
	}
	free(nics);
	job_free(&j);
	return r;
}

/* ---- rollback ---- */

/* The bytes of file f as they were before generation gen: the copy of the
 * first generation from gen on that changed it, else the file as it is. */
static int before_generation(struct job *j, const struct generation *g, size_t ng, long gen,
			     int f, struct wd_buf *out, struct wd_err *err)
{
	const char *base = strrchr(j->host[f], '/');
	base = base ? base + 1 : j->host[f];
	for (size_t i = 0; i < ng; i++) {
		if (g[i].n < gen)
			continue;
		char *dir = generation_dir(g[i].n);
		char *path = wd_xasprintf("%s/%s/%s", j->v.root, dir, base);
		free(dir);
		bool have = wd_exists(path);
		int r = have ? wd_read_file(path, 4u << 20, out, err) : 0;
		free(path);
		if (have || r)
			return r;
	}
	wd_buf_reset(out);
	wd_buf_add(out, j->old[f].p, j->old[f].len);
	return 0;
}

/* A generation exists only when its change copied at least one file: a
 * folder holding neither copy was removed by hand, and putting back the next
 * generation's copies or the files as they are would not be "before gen". */
static int copies_there(struct job *j, long gen, struct wd_err *err)
{
	char *dir = generation_dir(gen);
	char *abs = wd_path_join(j->v.root, dir);
	bool any = false;
	for (int f = 0; f < NFILES; f++) {
		if (!j->host[f])
			continue;
		const char *base = strrchr(j->host[f], '/');
		char *path = wd_path_join(abs, base ? base + 1 : j->host[f]);
		any |= wd_exists(path);
		free(path);
	}
	int r = any ? 0 : wd_err_set(err, WD_EFAIL, "rollback %ld: %s holds no copy of CONFIG.SYS "
				     "or PROTOCOL.INI (removed by hand?), so the files cannot be "
				     "put back as they were before generation %ld; nothing was "
				     "changed", gen, abs, gen);
	free(abs);
	free(dir);
	return r;
}

int cmd_rollback(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1)
		return ui_usage(ctx, "rollback takes at most one generation number");
	char *end = NULL;
	long gen = argc ? strtol(argv[0], &end, 10) : 0;
	if (argc && (!*argv[0] || *end || gen < 1))
		return ui_usage(ctx, "rollback %s: expected a generation number ('warpdrv history' "
				"lists them)", argv[0]);
	struct wd_err err = {0};
	struct job j = {.ctx = ctx, .command = "rollback"};
	struct generation *g = NULL;
	size_t ng = 0;
	int r = job_open(&j, &err);
	if (!r)
		r = generation_list(&j.db, &g, &ng, &err);
	if (!r && !ng)
		r = wd_err_set(&err, WD_EFAIL, "nothing to roll back: no configuration change was "
			       "made on this volume yet");
	if (!r && !argc)
		gen = g[ng - 1].n;
	bool known = false;
	for (size_t i = 0; i < ng; i++)
		known |= g[i].n == gen;
	if (!r && !known)
		r = wd_err_set(&err, WD_EFAIL, "rollback %ld: no such generation ('warpdrv history' "
			       "lists them)", gen);
	if (!r)
		r = copies_there(&j, gen, &err);
	char command[64], summary[160];
	snprintf(command, sizeof command, "rollback %ld", gen);
	snprintf(summary, sizeof summary, "CONFIG.SYS and PROTOCOL.INI as before generation %ld", gen);
	j.command = command;
	j.summary = summary;
	for (int f = 0; !r && f < NFILES; f++)
		if (j.host[f])
			r = before_generation(&j, g, ng, gen, f, &j.new_[f], &err);
	if (!r) {
		/* finish() renders the models: load them with the old bytes */
		config_sys_free(&j.cs);
		config_sys_parse(&j.cs, j.new_[F_CONFIG].p ? j.new_[F_CONFIG].p : "",
				 j.new_[F_CONFIG].len);
		if (j.have_pi) {
			protocol_ini_free(&j.pi);
			protocol_ini_parse(&j.pi, j.new_[F_PROTOCOL].p ? j.new_[F_PROTOCOL].p : "",
					   j.new_[F_PROTOCOL].len);
		}
		for (int f = 0; f < NFILES; f++)
			wd_buf_reset(&j.new_[f]);
		r = finish(&j, false, &err);
	}
	generation_list_free(g, ng);
	job_free(&j);
	return r ? ui_fail(ctx, r, &err) : 0;
}
