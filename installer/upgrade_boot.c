/* What an upgrade of a NIC driver changes in CONFIG.SYS and PROTOCOL.INI:
 * each DEVICE= line that loads the old version's driver file loads the new
 * one's (its folder, drive and switches kept), and the PROTOCOL.INI section
 * that instance answers to takes the new version's DriverName (and name,
 * when it was named after the driver). For a package with CONFIG.SYS
 * statements that the guest loads (the ACPI PSD), the new version's
 * statements, and no line for a file it no longer has. The edits go
 * to the setup's models; the postcondition (setup_verify) checks the result
 * before anything is written, and setup_apply writes the packages, both
 * files and the generation in one transaction. */
#include "installer/upgrade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "installer/acpi_plan.h"
#include "installer/boot_critical.h"
#include "installer/boot_model.h"
#include "installer/nic_plan.h"
#include "installer/setup_internal.h"
#include "state/installed.h"

/* Did the old version of p's package install a file named `file` (any case)? */
static bool installed_by(const struct installed_file *f, size_t n, const char *file)
{
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(f[i].path, '\\');
		if (!strcasecmp(base ? base + 1 : f[i].path, file))
			return true;
	}
	return false;
}

/* The DEVICE= line with the driver's file name changed, all else kept. */
static int rewrite_line(struct setup *s, size_t line, const char *driver, struct wd_err *err)
{
	struct cs_stmt st;
	if (!config_sys_stmt(&s->cs, line, &st) || !st.name.p)
		return wd_err_set(err, WD_EFAIL, "CONFIG.SYS line %zu: not a statement that loads a "
				  "file; nothing was changed", line + 1);
	const char *end = st.value.p + st.value.n, *after = st.name.p + st.name.n;
	char *text = wd_xasprintf("%.*s=%.*s%s%.*s", (int)st.keyword.n, st.keyword.p,
				  (int)(st.name.p - st.value.p), st.value.p, driver,
				  (int)(end - after), after);
	int r = config_sys_replace(&s->cs, line, text) ? wd_err_set(err, WD_EFAIL, "CONFIG.SYS "
		"line %zu cannot be rewritten as one line; nothing was changed", line + 1) : 0;
	free(text);
	return r;
}

/* "MMLEM_nif" for instance 1 of stem MMLEM, "MMLEM_nif2" for instance 2:
 * the names setup gives (docs/setup.md, "Instances"). */
static char *instance_section(const char *stem, int k)
{
	return k > 1 ? wd_xasprintf("%s_nif%d", stem, k) : wd_xasprintf("%s_nif", stem);
}

/* Section s of instance k named after the old driver ("MMLEM_nif",
 * "MMLEM_nif2") takes the new one's name ("MMLEMX_nif", "MMLEMX_nif2"),
 * the bindings and its [IBMLXCFG] entry following where they stand; a
 * section of another name keeps it, its [IBMLXCFG] entry naming the new
 * NIF. */
static int follow_section(struct setup *s, size_t sec, const char *old_file, int k,
			  const struct package *p, struct wd_err *err)
{
	char *old_stem = nic_stem(old_file), *new_stem = nic_stem(p->m.driver);
	char *old_name = wd_xstrdup(s->pi.sec[sec].name);
	char *want = instance_section(old_stem, k);
	char *name = strcasecmp(old_name, want) ? wd_xstrdup(old_name)
						 : instance_section(new_stem, k);
	int bad = 0;
	long lx = -1;
	if (strcmp(name, old_name) && pi_section(&s->pi, name) < 0) {
		bad |= pi_rename_section(&s->pi, sec, name) < 0;
		bad |= pi_rebind(&s->pi, old_name, name) < 0;
		lx = pi_section(&s->pi, "IBMLXCFG");
		if (lx >= 0 && pi_key_line(&s->pi, (size_t)lx, old_name) >= 0)
			bad |= pi_rename_key(&s->pi, (size_t)lx, old_name, name, p->m.nif) < 0;
		else
			lx = -1;
	}
	if (p->m.nif && lx < 0)
		bad |= pi_lxcfg_set(&s->pi, name, p->m.nif) < 0;
	int r = bad ? wd_err_set(err, WD_EFAIL, "PROTOCOL.INI: section %s cannot follow the "
				 "driver's new name %s; nothing was changed", old_name, name) : 0;
	free(old_stem);
	free(new_stem);
	free(old_name);
	free(want);
	free(name);
	return r;
}

/* The upgrade's notes: what the new version's NIF drops and adds. */
struct upgrade_notes {
	struct setup *s;
	const struct package *p;
	const char *section;
};

static void upgrade_note(void *ud, enum nic_fit what, const char *key, const char *value)
{
	struct upgrade_notes *n = ud;
	const struct pkg_manifest *m = &n->p->m;
	if (what == NIC_DROPPED)
		setup_note(n->s, wd_xasprintf("%s %s drops %s = %s from [%s]: its %s does not "
					      "define %s", m->name, m->version, key, value,
					      n->section, m->nif, key));
	else if (what == NIC_ADDED)
		setup_note(n->s, wd_xasprintf("%s %s adds %s = %s to [%s]: its %s requires %s",
					      m->name, m->version, key, value, n->section, m->nif,
					      key));
}

/* The new version's NIF, read from the package, decides the section's
 * keywords as on a driver change (nic_fit_keywords), each change a note. */
static int follow_keywords(struct setup *s, size_t sec, const struct package *p,
			   struct wd_err *err)
{
	if (!p->m.nif)
		return 0;
	struct nif nif;
	int r = nic_package_nif(p, &nif, err);
	if (r)
		return r;
	char *name = wd_xstrdup(s->pi.sec[sec].name);
	struct upgrade_notes un = {s, p, name};
	if (nic_fit_keywords(&s->pi, sec, &nif, upgrade_note, &un))
		r = wd_err_set(err, WD_EFAIL, "PROTOCOL.INI: the keywords of section %s cannot "
			       "follow %s %s's %s; nothing was changed", name, p->m.name,
			       p->m.version, p->m.nif);
	free(name);
	nif_free(&nif);
	return r;
}

/* The edits for one NIC package p replacing its installed version. */
static int edit_for(struct setup *s, const struct boot_model *m, const struct package *p,
		    const struct installed_file *f, size_t nf, struct wd_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < m->nmac; i++) {
		const struct bm_mac *mac = &m->mac[i];
		if (!installed_by(f, nf, mac->file))
			continue;
		bool renamed = strcasecmp(mac->file, p->m.driver) != 0;
		if (renamed)
			r = rewrite_line(s, mac->line, p->m.driver, err);
		char *dn = mac->instance > 1 ? manifest_instance_drivername(&p->m, mac->instance)
					     : wd_xstrdup(p->m.driver_name);
		if (!r && dn && mac->section >= 0 && s->have_pi &&
		    (!mac->drivername || strcasecmp(mac->drivername, dn)) &&
		    pi_set(&s->pi, (size_t)mac->section, "DriverName", dn))
			r = wd_err_set(err, WD_EFAIL, "PROTOCOL.INI: DriverName %s cannot be written; "
				       "nothing was changed", dn);
		if (!r && renamed && mac->section >= 0 && s->have_pi)
			r = follow_section(s, (size_t)mac->section, mac->file, mac->instance, p, err);
		if (!r && mac->section >= 0 && s->have_pi)
			r = follow_keywords(s, (size_t)mac->section, p, err);
		free(dn);
	}
	return r;
}

/* Does CONFIG.SYS load a file the old version installed? */
static bool in_use(const struct setup *s, const struct installed_file *f, size_t nf)
{
	for (size_t i = 0; i < config_sys_lines(&s->cs); i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(&s->cs, i, &st) || !st.loads || !st.name.p)
			continue;
		char *name = wd_xstrndup(st.name.p, st.name.n);
		bool used = installed_by(f, nf, name);
		free(name);
		if (used)
			return true;
	}
	return false;
}

/* A package with CONFIG.SYS statements (the ACPI PSD) the guest loads: the
 * new version's statements (acpi_plan), and each line that loads a file of
 * the old version the new one no longer has goes, as the file does. */
static int edit_statements(struct setup *s, const struct package *p,
			   const struct installed_file *f, size_t nf, struct wd_err *err)
{
	if (!p->m.nconfig_need || !in_use(s, f, nf))
		return 0;
	if (acpi_plan(&p->m, s->v->boot_drive, &s->cs) < 0)
		return wd_err_set(err, WD_EFAIL, "%s %s: a CONFIG.SYS statement of its manifest "
				  "cannot be written as one line; nothing was changed", p->m.name,
				  p->m.version);
	for (size_t i = config_sys_lines(&s->cs); i-- > 0;) {
		struct cs_stmt st;
		if (!config_sys_stmt(&s->cs, i, &st) || !st.loads || !st.name.p)
			continue;
		char *name = wd_xstrndup(st.name.p, st.name.n), *dest = NULL;
		bool gone = installed_by(f, nf, name);
		for (size_t k = 0; gone && k < p->m.nfiles; k++) {
			dest = strrchr(p->m.files[k].dest, '\\');
			gone = strcasecmp(dest ? dest + 1 : p->m.files[k].dest, name) != 0;
		}
		free(name);
		if (gone)
			config_sys_delete(&s->cs, i);
	}
	return 0;
}

int upgrade_boot_plan(struct setup *s, const struct package *pkgs, size_t n,
		      struct wd_err *err)
{
	const struct pkg_manifest **ms = wd_xcalloc(n + 1, sizeof *ms);
	const struct package **pp = wd_xcalloc(n + 1, sizeof *pp);
	size_t nm = 0;
	for (size_t i = 0; i < n; i++) {
		pp[i] = &pkgs[i];
		if (pkgs[i].m.kind == PKG_KIND_NIC)
			ms[nm++] = &pkgs[i].m;
	}
	const struct boot_files *bf = &s->bf;
	struct boot_input bi = {
		.cs = &bf->cs,
		.pi = bf->have_pi ? &bf->pi : NULL,
		.loc = &bf->loc,
		.pi_label = bf->loc.path,
		.nifs = bf->nifs,
		.nnifs = bf->nnifs,
		.pkgs = ms,
		.npkgs = nm,
	};
	struct boot_model m;
	boot_model_build(&m, &bi);
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		bool nic = pkgs[i].m.kind == PKG_KIND_NIC && pkgs[i].m.driver;
		/* no version may displace a boot-critical statement, whatever it edits */
		if ((r = boot_critical_manifest(&pkgs[i].m, &bf->cs, err)))
			break;
		if (!nic && !pkgs[i].m.nconfig_need)
			continue;
		struct installed_file *f = NULL;
		size_t nf = 0;
		if (!(r = installed_files(s->have_db ? s->db : NULL, pkgs[i].m.name, &f, &nf, err)))
			r = nic ? edit_for(s, &m, &pkgs[i], f, nf, err)
				: edit_statements(s, &pkgs[i], f, nf, err);
		installed_files_free(f, nf);
		/* the guard: each package's edits keep every boot-critical line */
		char *who = wd_xasprintf("%s %s", pkgs[i].m.name, pkgs[i].m.version);
		if (!r)
			r = boot_critical_guard(&bf->cs, &s->cs, who, err);
		free(who);
	}
	boot_model_free(&m);
	free(ms);
	s->install = pp;
	s->ninstall = n;
	s->nic_done = true;
	setup_render(s);
	if (!r)
		r = setup_verify(s, s->install, n, err);
	return r;
}
