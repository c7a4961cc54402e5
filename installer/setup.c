#include "installer/setup_internal.h"
#include "installer/medium.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs/fs.h"
#include "common/date.h"
#include "common/diff.h"
#include "common/file.h"
#include "common/hooks.h"
#include "installer/acpi_plan.h"
#include "installer/boot_critical.h"
#include "installer/boot_model.h"
#include "installer/check.h"
#include "txn/txn.h"
#include "license/activation.h"

void setup_note(struct setup *s, char *text)
{
	s->notes = wd_xrealloc(s->notes, (s->nnotes + 1) * sizeof *s->notes);
	s->notes[s->nnotes++] = text;
}

static char *rel(const struct volume *v, const char *abs)
{
	return wd_xstrdup(abs + strlen(v->root) + 1);
}

int setup_open(struct setup *s, struct wd_err *err)
{
	int r = boot_files_read(s->v, &s->bf, err);
	if (r)
		return r;
	s->host[F_CONFIG] = rel(s->v, s->v->config_sys);
	wd_buf_add(&s->old[F_CONFIG], s->bf.config_bytes.p, s->bf.config_bytes.len);
	config_sys_parse(&s->cs, s->old[F_CONFIG].p ? s->old[F_CONFIG].p : "", s->old[F_CONFIG].len);
	if (s->bf.have_pi) {
		s->host[F_PROTOCOL] = rel(s->v, s->bf.pi_host);
		wd_buf_add(&s->old[F_PROTOCOL], s->bf.pi_bytes.p, s->bf.pi_bytes.len);
		protocol_ini_parse(&s->pi, s->old[F_PROTOCOL].p ? s->old[F_PROTOCOL].p : "",
				   s->old[F_PROTOCOL].len);
		s->have_pi = true;
	}
	return 0;
}

void setup_clear(struct setup *s)
{
	nic_plan_free(&s->nic);
	pci_list_free(&s->pci);
	config_sys_free(&s->cs);
	if (s->have_pi)
		protocol_ini_free(&s->pi);
	boot_files_free(&s->bf);
	for (int i = 0; i < NFILES; i++) {
		free(s->host[i]);
		wd_buf_free(&s->old[i]);
		wd_buf_free(&s->new_[i]);
	}
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s->install);
	free(s->own_command);
	free(s->own_summary);
	offer_free(&s->offer);
	free(s->off_driver);
	acpi_off_free(&s->acpi_off);
	wd_buf_free(&s->diff);
}

int setup_new(struct setup **out, const char *command, struct volume *v, struct db *db,
	      bool have_db, struct wd_err *err)
{
	struct setup *s = wd_xcalloc(1, sizeof *s);
	*s = (struct setup){.command = command, .v = v, .db = db, .have_db = have_db};
	int r = setup_open(s, err);
	if (r) {
		setup_free(s);
		s = NULL;
	}
	*out = s;
	return r;
}

void setup_free(struct setup *s)
{
	if (!s)
		return;
	setup_clear(s);
	free(s);
}

void setup_view(const struct setup *s, struct setup_view *out)
{
	*out = (struct setup_view){
		.command = s->command,
		.nic = s->nic_done ? &s->nic : NULL,
		.acpi = s->acpi_done ? s->acpi : NULL,
		.acpi_changes = setup_file_changed(s, F_CONFIG) || s->ninstall,
		.acpi_refused = s->acpi_refused,
		.notes = s->notes,
		.nnotes = s->nnotes,
		.install = s->install,
		.ninstall = s->ninstall,
		.anything = setup_anything(s),
		.generation = s->generation,
		.diff = s->diff.p ? s->diff.p : "",
		.diff_len = s->diff.len,
		.applied = s->applied,
		.switched = s->switched,
		.acpi_off = s->acpi_off_done ? &s->acpi_off : NULL,
	};
}

void setup_set_frame(struct setup *s, const char *frame)
{
	s->frame = frame;
}

int setup_read_pci(struct setup *s, const char *source, struct wd_err *err)
{
	return pci_read(source, &s->pci, err);
}

void setup_take_pci(struct setup *s, struct pci_list *l)
{
	pci_list_free(&s->pci);
	s->pci = *l;
	memset(l, 0, sizeof *l);
}

void setup_refuse_acpi(struct setup *s, const struct package *p)
{
	s->acpi_refused = p;
}

static void want_install(struct setup *s, const struct package *p)
{
	for (size_t i = 0; i < s->ninstall; i++)
		if (s->install[i] == p)
			return;
	/* Already installed at this version: nothing to install. */
	char *have = NULL;
	struct wd_err e;
	txn_installed_version(s->have_db ? s->db : NULL, p->m.name, &have, &e);
	bool nothing = have && !strcmp(have, p->m.version);
	free(have);
	if (nothing)
		return;
	s->install = wd_xrealloc(s->install, (s->ninstall + 1) * sizeof *s->install);
	s->install[s->ninstall++] = p;
}

static bool files_on_volume(struct setup *s, const struct package *p)
{
	for (size_t i = 0; i < p->m.nfiles; i++)
		if (!volume_has(s->v, p->m.files[i].dest))
			return false;
	return true;
}

static bool driver_on_volume(struct setup *s, const struct package *p)
{
	char *path = wd_xasprintf("\\IBMCOM\\MACS\\%s", p->m.driver);
	bool found = volume_has(s->v, path);
	free(path);
	return found;
}

bool setup_file_changed(const struct setup *s, int f)
{
	return s->host[f] && (s->old[f].len != s->new_[f].len ||
			      memcmp(s->old[f].p, s->new_[f].p, s->old[f].len));
}

void setup_render(struct setup *s)
{
	wd_buf_reset(&s->new_[F_CONFIG]);
	wd_buf_reset(&s->new_[F_PROTOCOL]);
	config_sys_write(&s->cs, &s->new_[F_CONFIG]);
	if (s->have_pi)
		protocol_ini_write(&s->pi, &s->new_[F_PROTOCOL]);
}

bool setup_anything(const struct setup *s)
{
	return setup_file_changed(s, F_CONFIG) || setup_file_changed(s, F_PROTOCOL) || s->ninstall;
}

void setup_diff(const struct setup *s, struct wd_buf *out)
{
	for (int f = 0; f < NFILES; f++) {
		if (!setup_file_changed(s, f))
			continue;
		char a[300], b[300];
		snprintf(a, sizeof a, "a/%s", s->host[f]);
		snprintf(b, sizeof b, "b/%s", s->host[f]);
		wd_diff(s->old[f].p, s->old[f].len, s->new_[f].p, s->new_[f].len, a, b, out);
	}
}

static void summary_of(const struct setup *s, struct wd_buf *out)
{
	if (s->summary) {
		wd_buf_adds(out, s->summary);
		return;
	}
	for (size_t i = 0; s->nic_done && i < s->nic.n; i++) {
		const struct nic_item *it = &s->nic.items[i];
		if (it->unchanged)
			continue;
		wd_buf_addf(out, "%s%s %s: %s%s%s", out->len ? "; " : "", it->dev->slot,
			    it->dev->vbox_model ? it->dev->vbox_model : "NIC",
			    it->replaced_file ? it->replaced_file : "", it->replaced_file ? " -> " : "",
			    it->pkg->m.driver);
	}
	if (s->acpi_done && setup_file_changed(s, F_CONFIG))
		wd_buf_addf(out, "%sACPI PSD", out->len ? "; " : "");
	if (!out->len)
		wd_buf_adds(out, s->command);
}

/* One transaction: the packages, both files (copied into the generation
 * folder first) and the generation row. */
int setup_plan_generation(struct setup *s, struct db *db, struct generation_note *gn,
			  struct txn_plan *plan, struct wd_err *err)
{
	int r = generation_next(db, &gn->n, err);
	/* A folder of that number left from a database that is gone holds
	 * copies nothing else has: the new ones go to a fresh number. */
	while (!r) {
		char *d = generation_dir(gn->n), *abs = wd_path_join(s->v->root, d);
		bool taken = fs_exists(&s->v->fs, abs);
		free(abs);
		free(d);
		if (!taken)
			break;
		gn->n++;
	}
	const char *files[NFILES];
	struct wd_buf old[NFILES], new_[NFILES];
	size_t nf = 0;
	for (int f = 0; f < NFILES; f++)
		if (s->host[f]) {
			files[nf] = s->host[f];
			old[nf] = s->old[f];
			new_[nf++] = s->new_[f];
		}
	return r ? r : generation_plan(s->v, plan, gn, files, old, new_, nf, err);
}

int setup_apply(struct setup *s, struct wd_err *err)
{
	struct txn t;
	int r = txn_begin(&t, s->v, s->command, err);
	if (r)
		return r;
	struct txn_plan plan;
	txn_plan_init(&plan, s->command, "-");
	for (size_t i = 0; !r && i < s->ninstall; i++) {
		struct txn_plan p;
		bool nothing;
		r = txn_plan_install(s->v, &t.db, s->install[i], &p, &nothing, err);
		if (!r && !nothing)
			txn_plan_merge(&plan, &p);
	}
	struct wd_buf summary = {0};
	summary_of(s, &summary);
	struct generation_note gn = {.command = (char *)s->command, .summary = summary.p};
	if (!r)
		r = setup_plan_generation(s, &t.db, &gn, &plan, err);
	if (!r && plan.nops && !(r = txn_plan_space(s->v, &plan, err)))
		r = txn_apply(&t, &plan, err);
	if (!r && plan.done_extra)
		s->generation = gn.n;
	int today;
	struct wd_err e2;
	if (!r && !wd_today(&today, &e2))
		activation_note_date(&t.db, today, &e2);
	wd_buf_free(&summary);
	txn_plan_free(&plan);
	txn_end(&t);
	return r;
}

/* The bytes of file f as they were before generation gen: the copy of the
 * first generation from gen on that changed it, else the file as it is. */
int setup_before_generation(struct setup *s, const struct generation *g, size_t ng, long gen,
			     int f, struct wd_buf *out, struct wd_err *err)
{
	const char *base = strrchr(s->host[f], '/');
	base = base ? base + 1 : s->host[f];
	for (size_t i = 0; i < ng; i++) {
		if (g[i].n < gen)
			continue;
		char *dir = generation_dir(g[i].n);
		char *path = wd_xasprintf("%s/%s/%s", s->v->root, dir, base);
		free(dir);
		bool have = fs_exists(&s->v->fs, path);
		int r = have ? volume_read_file(s->v, path, WD_CONFIG_FILE_MAX, out, err) : 0;
		free(path);
		if (have || r)
			return r;
	}
	wd_buf_reset(out);
	wd_buf_add(out, s->old[f].p, s->old[f].len);
	return 0;
}

/* A generation exists only when its change copied at least one file: a
 * folder holding neither copy was removed by hand, and putting back the next
 * generation's copies or the files as they are would not be "before gen". */
int setup_copies_there(struct setup *s, long gen, struct wd_err *err)
{
	char *dir = generation_dir(gen);
	char *abs = wd_path_join(s->v->root, dir);
	bool any = false;
	for (int f = 0; f < NFILES; f++) {
		if (!s->host[f])
			continue;
		const char *base = strrchr(s->host[f], '/');
		char *path = wd_path_join(abs, base ? base + 1 : s->host[f]);
		any |= fs_exists(&s->v->fs, path);
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

int setup_plan_nic(struct setup *s, struct nic_plan_in *in, struct wd_err *err)
{
	in->v = s->v;
	in->pci = &s->pci;
	in->loc = &s->bf.loc;
	in->nifs = s->bf.nifs;
	in->nnifs = s->bf.nnifs;
	int r = nic_plan(in, &s->cs, s->have_pi ? &s->pi : NULL, &s->nic, err);
	if (r)
		return r;
	s->nic_done = true;
	struct wd_buf who = {0}; /* no package may take a boot-critical line away */
	for (size_t i = 0; i < s->nic.n; i++)
		wd_buf_addf(&who, "%s%s %s", i ? ", " : "", s->nic.items[i].pkg->m.name,
			    s->nic.items[i].pkg->m.version);
	r = boot_critical_guard(&s->bf.cs, &s->cs, who.len ? who.p : "the NIC plan", err);
	wd_buf_free(&who);
	if (r)
		return r;
	/* A driver already configured whose file is on the volume (the
	 * E1000.OS2 the OS shipped, say) is left alone: nothing to do. */
	for (size_t i = 0; i < s->nic.n; i++) {
		const struct nic_item *it = &s->nic.items[i];
		if (!it->unchanged || !driver_on_volume(s, it->pkg))
			want_install(s, it->pkg);
	}
	for (size_t i = 0; i < s->nic.nnotes; i++)
		setup_note(s, wd_xstrdup(s->nic.notes[i]));
	return 0;
}

int setup_plan_acpi(struct setup *s, const struct package *p, struct wd_err *err)
{
	int r = boot_critical_manifest(&p->m, &s->bf.cs, err);
	if (r)
		return r;
	int changed = acpi_plan(&p->m, s->v->boot_drive, &s->cs);
	if (changed < 0)
		return wd_err_set(err, WD_EFAIL, "%s %s: a CONFIG.SYS statement of its manifest "
				  "cannot be written as one line; nothing was changed", p->m.name,
				  p->m.version);
	char *who = wd_xasprintf("%s %s", p->m.name, p->m.version);
	r = boot_critical_guard(&s->bf.cs, &s->cs, who, err);
	free(who);
	if (r)
		return r;
	s->acpi = p;
	s->acpi_done = true;
	/* ACPI configured already, its files there (the OS's own, as ArcaOS
	 * ships them): nothing to do, as for a configured NIC driver. */
	if (changed || !files_on_volume(s, p))
		want_install(s, p);
	return 0;
}

/* A test build breaks the plan on request, to show the postcondition
 * refusing it (tests/e2e/test_setup_model.sh). */
static void break_for_test(struct protocol_ini *pi, const struct nic_plan *nic)
{
	if (!wd_test_hook("WARPDRV_TEST_BREAK_PLAN") || !nic->n || !nic->items[0].replaced_section)
		return;
	pi_rebind(pi, nic->items[0].section, nic->items[0].replaced_section);
}

/* The repairs of what was broken before whose form is certain, on the
 * rendered plan: CALL=...NETBIND.EXE after the last MAC or protocol line,
 * when the old files lacked it too and NETBIND.EXE is where PROTMAN's
 * folder says. The files are rendered again; true when something was added. */
static bool repair_before(struct setup *s, const struct boot_model *before,
			  const struct boot_model *after)
{
	if (!report_find_error(&before->rep, "no-netbind", "") ||
	    !report_find_error(&after->rep, "no-netbind", "") || after->in.netbind_file <= 0)
		return false;
	char *line, *path;
	size_t at;
	if (!boot_netbind_fix(after, &line, &path, &at))
		return false;
	/* The model of the rendered bytes counts lines as s->cs does. */
	bool ok = at < config_sys_lines(&s->cs) && !config_sys_insert_after(&s->cs, at, line);
	if (ok) {
		struct wd_sv prev = tl_text(&s->cs.t, at);
		setup_note(s, wd_xasprintf("repairs what was broken before this change: CONFIG.SYS "
					   "ran no NETBIND.EXE, so no protocol was bound; adds %s "
					   "after %.*s (the last MAC or protocol driver)", line,
					   (int)prev.n, prev.p));
		setup_render(s);
	}
	free(line);
	free(path);
	return ok;
}

/* The medium rule's repair, when the user named the frame (--frame): each
 * protocol section the rule finds selecting another medium gets the frame's
 * keyword "yes" and its other-medium keywords "no" (docs/setup.md, "The
 * medium"). A frame the protocol does not know leaves it to the refusal,
 * which names the frames it knows. True when something was changed. */
static bool repair_medium(struct setup *s, const struct boot_model *after)
{
	if (!s->frame)
		return false;
	bool any = false;
	for (size_t i = 0; i < after->rep.n; i++) {
		const struct finding *fd = &after->rep.v[i];
		if (fd->severity != CHECK_ERROR || strcmp(fd->code, "medium") || !fd->key)
			continue;
		long sec = pi_section(&s->pi, fd->key);
		struct wd_sv dn;
		if (sec < 0 || !pi_get(&s->pi, (size_t)sec, "DriverName", &dn))
			continue;
		const struct medium_protocol *mp = NULL;
		for (size_t k = 0; k < medium_nprotocols && !mp; k++)
			if (wd_sv_ieq(dn, medium_protocols[k].drivername))
				mp = &medium_protocols[k];
		const char *key = NULL;
		for (size_t k = 0; mp && mp->ethernet[k] && !key; k++) {
			const char *e = mp->ethernet[k], *u = strchr(e, '_');
			if (!strcasecmp(e, s->frame) || (u && !strcasecmp(u + 1, s->frame)))
				key = e;
		}
		if (!key || pi_set(&s->pi, (size_t)sec, key, "\"yes\""))
			continue;
		struct wd_buf off = {0};
		for (size_t k = 0; mp->other[k]; k++) {
			struct wd_sv v;
			if (pi_get(&s->pi, (size_t)sec, mp->other[k], &v) &&
			    !pi_set(&s->pi, (size_t)sec, mp->other[k], "\"no\""))
				wd_buf_addf(&off, ", %s = \"no\"", mp->other[k]);
		}
		setup_note(s, wd_xasprintf("switches [%s] (%s) to Ethernet, as --frame %s asks: "
					   "%s = \"yes\"%s", fd->key, mp->what, s->frame, key,
					   off.p ? off.p : ""));
		wd_buf_free(&off);
		any = true;
	}
	if (any)
		setup_render(s);
	return any;
}

int setup_verify(struct setup *s, const struct package *const *pkgs, size_t npkgs,
		 struct wd_err *err)
{
	/* A file past the size warpdrv reads could be neither checked nor
	 * rolled back by the next run. */
	for (int f = 0; f < NFILES; f++)
		if (s->host[f] && s->new_[f].len > WD_CONFIG_FILE_MAX)
			return wd_err_set(err, WD_EFAIL, "the plan fails its check: %s would be %zu "
					  "bytes, more than the %u warpdrv reads, so no later run could "
					  "check it or roll it back: make room in it (REM lines, unused "
					  "sections), then run again; nothing was written", s->host[f],
					  s->new_[f].len, WD_CONFIG_FILE_MAX);
	if (!s->have_pi || !s->nic_done)
		return 0;
	const struct pkg_manifest **m = wd_xcalloc(npkgs + 1, sizeof *m);
	size_t nm = 0;
	for (size_t i = 0; i < npkgs; i++)
		if (pkgs[i]->m.kind == PKG_KIND_NIC)
			m[nm++] = &pkgs[i]->m;
	const struct boot_files *f = &s->bf;
	int nb_old = check_netbind_file(s->v, &f->loc);
	struct boot_input bi_old = {
		.cs = &f->cs,
		.pi = &f->pi,
		.loc = &f->loc,
		.pi_label = f->loc.path,
		.nifs = f->nifs,
		.nnifs = f->nnifs,
		.pkgs = m,
		.npkgs = nm,
		.netbind_file = nb_old,
	};
	struct boot_model before, after;
	boot_model_build(&before, &bi_old);
	int r = 0;
	for (int pass = 0;; pass++) {
		struct config_sys cs;
		struct protocol_ini pi;
		config_sys_parse(&cs, s->new_[F_CONFIG].p ? s->new_[F_CONFIG].p : "",
				 s->new_[F_CONFIG].len);
		protocol_ini_parse(&pi, s->new_[F_PROTOCOL].p ? s->new_[F_PROTOCOL].p : "",
				   s->new_[F_PROTOCOL].len);
		break_for_test(&pi, &s->nic);
		struct pi_location loc;
		pi_locate(&cs, s->v->boot_drive, &loc);
		struct boot_input bi_new = {
			.cs = &cs,
			.pi = &pi,
			.loc = &loc,
			.pi_label = loc.path,
			.nifs = f->nifs,
			.nnifs = f->nnifs,
			.pkgs = m,
			.npkgs = nm,
			.netbind_file = check_netbind_file(s->v, &loc),
		};
		boot_model_build(&after, &bi_new);
		bool again = false;
		if (!pass) {
			again = repair_before(s, &before, &after);
			again = repair_medium(s, &after) || again;
		}
		if (!again) {
			struct boot_change *ch = wd_xcalloc(s->nic.n + 1, sizeof *ch);
			for (size_t i = 0; i < s->nic.n; i++) {
				ch[i].old_section = s->nic.items[i].replaced_section;
				ch[i].new_section = s->nic.items[i].section;
			}
			r = boot_postcondition(&before, &after, ch, s->nic.n, err);
			free(ch);
		}
		boot_model_free(&after);
		pi_location_free(&loc);
		protocol_ini_free(&pi);
		config_sys_free(&cs);
		if (!again)
			break;
	}
	boot_model_free(&before);
	free(m);
	return r;
}

int setup_plan_rollback(struct setup *s, long gen, struct wd_err *err)
{
	struct generation *g = NULL;
	size_t ng = 0;
	int r = generation_list(s->db, &g, &ng, err);
	if (!r && !ng)
		r = wd_err_set(err, WD_EFAIL, "nothing to roll back: no configuration change was "
			       "made on this volume yet");
	if (!r && !gen)
		gen = g[ng - 1].n;
	bool known = false;
	for (size_t i = 0; i < ng; i++)
		known |= g[i].n == gen;
	if (!r && !known)
		r = wd_err_set(err, WD_EFAIL, "rollback %ld: no such generation ('warpdrv history' "
			       "lists them)", gen);
	if (!r)
		r = setup_copies_there(s, gen, err);
	if (!r) {
		free(s->own_command);
		free(s->own_summary);
		s->command = s->own_command = wd_xasprintf("rollback %ld", gen);
		s->summary = s->own_summary =
			wd_xasprintf("CONFIG.SYS and PROTOCOL.INI as before generation %ld", gen);
	}
	for (int f = 0; !r && f < NFILES; f++)
		if (s->host[f])
			r = setup_before_generation(s, g, ng, gen, f, &s->new_[f], err);
	if (!r) {
		/* setup_render renders the models: they are loaded with the old
		 * bytes, and the rendered files are those bytes */
		config_sys_free(&s->cs);
		config_sys_parse(&s->cs, s->new_[F_CONFIG].p ? s->new_[F_CONFIG].p : "",
				 s->new_[F_CONFIG].len);
		if (s->have_pi) {
			protocol_ini_free(&s->pi);
			protocol_ini_parse(&s->pi, s->new_[F_PROTOCOL].p ? s->new_[F_PROTOCOL].p : "",
					   s->new_[F_PROTOCOL].len);
		}
		for (int f = 0; f < NFILES; f++)
			wd_buf_reset(&s->new_[f]);
	}
	generation_list_free(g, ng);
	return r;
}
