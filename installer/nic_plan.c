#include "installer/nic_plan.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/file.h"
#include "os2/nif.h"

#define MACS_DIR "\\IBMCOM\\MACS\\"

/* A MAC driver line of CONFIG.SYS (DEVICE=...\IBMCOM\MACS\X.OS2). */
struct mac_line {
	size_t line;
	char *file;        /* "E1000.OS2" as written */
	int occurrence;    /* 1 for the first line loading that file */
	char *drivername;  /* of that instance */
	long section;      /* its PROTOCOL.INI section, or -1 */
	bool claimed;
	bool drop;         /* a replaced driver's line for an adapter that is gone */
};

struct ctx {
	const struct nic_plan_in *in;
	struct config_sys *cs;
	struct protocol_ini *pi;
	struct mac_line *macs;
	size_t nmacs;
	struct nic_plan *out;
	struct wd_err *err;
};

static void add_note(char ***notes, size_t *n, char *note)
{
	*notes = wd_xrealloc(*notes, (*n + 1) * sizeof **notes);
	(*notes)[(*n)++] = note;
}

char *nic_instance_drivername(const char *first, int k)
{
	size_t n = strlen(first);
	if (n && first[n - 1] == '$')
		n--;
	if (k <= 1)
		return wd_xasprintf("%.*s$", (int)n, first);
	if (n && isdigit((unsigned char)first[n - 1]) && k < 10)
		return wd_xasprintf("%.*s%d$", (int)(n - 1), first, k);
	return wd_xasprintf("%.*s%d$", (int)n, first, k);
}

/* "MMLEM.OS2" -> "MMLEM" (malloc'd, upper case). */
static char *stem(const char *file)
{
	size_t n = strcspn(file, ".");
	char *s = wd_xstrndup(file, n);
	for (char *c = s; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return s;
}

/* ---- which package drives which device ---- */

static bool drives(const struct package *p, const struct pci_dev *d, int *rank)
{
	const struct pkg_manifest *m = &p->m;
	if (d->vendor == PCI_NONE || d->device == PCI_NONE)
		return false;
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *e = &m->pci[i];
		if (e->vendor != d->vendor || e->device != d->device)
			continue;
		/* A source that does not give the subsystem or revision (lspci -n)
		 * matches on what it gives. */
		if (e->has_subsys && d->subvendor != PCI_NONE &&
		    (e->subsys_vendor != d->subvendor || e->subsys_device != d->subdevice))
			continue;
		if (e->revision >= 0 && d->revision != PCI_NONE && e->revision != d->revision)
			continue;
		*rank = e->rank;
		return true;
	}
	return false;
}

static const struct package *package_of_driver(const struct nic_plan_in *in, const char *file)
{
	for (size_t i = 0; i < in->npkgs; i++)
		if (in->pkgs[i]->m.driver && !strcasecmp(in->pkgs[i]->m.driver, file))
			return in->pkgs[i];
	return NULL;
}

static bool forced_is(const struct package *p, const char *name)
{
	if (!strcasecmp(p->m.name, name))
		return true;
	char *s = p->m.driver ? stem(p->m.driver) : NULL;
	bool eq = s && !strcasecmp(s, name);
	free(s);
	return eq;
}

static const char *model_of(const struct pci_dev *d)
{
	return d->vbox_model ? d->vbox_model : "adapter";
}

char *nic_display_name(const struct package *p)
{
	return p->m.driver ? stem(p->m.driver) : wd_xstrdup(p->m.name);
}

int nic_choose(const struct nic_plan_in *in, const struct pci_dev *d, struct nic_item *it,
	       struct wd_err *err)
{
	const struct package *cand[32];
	int ranks[32];
	size_t n = 0;
	for (size_t i = 0; i < in->npkgs && n < 32; i++) {
		int rank;
		if (!drives(in->pkgs[i], d, &rank))
			continue;
		size_t at = n++;
		while (at > 0 && ranks[at - 1] > rank) {
			cand[at] = cand[at - 1];
			ranks[at] = ranks[at - 1];
			at--;
		}
		cand[at] = in->pkgs[i];
		ranks[at] = rank;
	}
	if (in->driver) {
		const struct package *f = NULL;
		for (size_t i = 0; i < in->npkgs; i++)
			if (forced_is(in->pkgs[i], in->driver))
				f = in->pkgs[i];
		if (!f)
			return wd_err_set(err, WD_EFAIL, "--driver %s: no NIC driver package of that "
					  "name ('warpdrv list' shows them)", in->driver);
		bool ok = false;
		for (size_t i = 0; i < n; i++)
			ok |= cand[i] == f;
		if (!ok)
			return wd_err_set(err, WD_EFAIL, "--driver %s: %s does not drive the %s at %s "
					  "(%04x:%04x)", in->driver, f->m.name, model_of(d), d->slot,
					  d->vendor, d->device);
		cand[0] = f;
		n = 1;
	}
	if (!n)
		return 0;
	struct wd_buf why = {0};
	for (size_t i = 0; i < n; i++) {
		struct wd_err e = {0};
		int r = in->may ? in->may(in->may_arg, cand[i], &e) : 0;
		if (!r) {
			it->pkg = cand[i];
			if (it->better) {
				char *a = nic_display_name(it->better), *b = nic_display_name(cand[i]);
				add_note(&it->notes, &it->nnotes,
					 wd_xasprintf("%s needs a subscription with %s; using %s", a,
						      it->better->m.entitlement ? it->better->m.entitlement
										: "it", b));
				free(a);
				free(b);
			}
			wd_buf_free(&why);
			return 1;
		}
		if (in->driver) {
			wd_buf_free(&why);
			*err = e;
			return wd_err_prefix(err, "--driver %s", in->driver);
		}
		if (!it->better)
			it->better = cand[i];
		wd_buf_addf(&why, "%s%s: %s", why.len ? "; " : "", cand[i]->m.name, e.msg);
	}
	int r = wd_err_set(err, WD_ELICENSE, "no driver the subscription allows for the %s at %s: %s",
			   model_of(d), d->slot, why.p);
	wd_buf_free(&why);
	return r;
}

/* ---- what the volume has now ---- */

/* DriverName of a MAC driver file: from its NIF in \IBMCOM\MACS (the one
 * whose [FILE] Name is the file), else from a package, else NAME$. */
static char *drivername_of(struct ctx *c, const char *file)
{
	char *dir = NULL;
	bool found = false;
	char *dn = NULL;
	if (!volume_resolve(c->in->v, MACS_DIR, &dir, &found, c->err) && found) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && !dn && (e = readdir(d))) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcasecmp(e->d_name + len - 4, ".nif"))
				continue;
			char *path = wd_path_join(dir, e->d_name);
			struct wd_buf b = {0};
			struct wd_err ignore;
			struct nif nif;
			if (!wd_read_file(path, 1 << 20, &b, &ignore) &&
			    !nif_parse(&nif, b.p, b.len, &ignore)) {
				if (nif.file_name && !strcasecmp(nif.file_name, file) && nif.drivername)
					dn = wd_xstrdup(nif.drivername);
				nif_free(&nif);
			}
			wd_buf_free(&b);
			free(path);
		}
		if (d)
			closedir(d);
	}
	free(dir);
	const struct package *p = package_of_driver(c->in, file);
	if (!dn && p && p->m.driver_name)
		dn = wd_xstrdup(p->m.driver_name);
	if (!dn) {
		char *s = stem(file);
		dn = wd_xasprintf("%s$", s);
		free(s);
	}
	return dn;
}

static bool is_mac_line(const struct cs_stmt *st)
{
	if (!wd_sv_ieq(st->keyword, "DEVICE") || !st->name.n)
		return false;
	size_t n = strlen(MACS_DIR);
	return st->dir.n >= n && !strncasecmp(st->dir.p + st->dir.n - n, MACS_DIR, n);
}

static void read_mac_lines(struct ctx *c)
{
	for (size_t i = 0; i < config_sys_lines(c->cs); i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(c->cs, i, &st) || !is_mac_line(&st))
			continue;
		c->macs = wd_xrealloc(c->macs, (c->nmacs + 1) * sizeof *c->macs);
		struct mac_line *m = &c->macs[c->nmacs++];
		memset(m, 0, sizeof *m);
		m->line = i;
		m->file = wd_sv_dup(st.name);
		m->occurrence = 1;
		for (size_t k = 0; k + 1 < c->nmacs; k++)
			m->occurrence += !strcasecmp(c->macs[k].file, m->file);
		char *first = drivername_of(c, m->file);
		m->drivername = nic_instance_drivername(first, m->occurrence);
		free(first);
		m->section = pi_section_by_driver(c->pi, 0, m->drivername);
	}
}

static bool driven_by_none(struct ctx *c, const struct pci_dev *d)
{
	int rank;
	for (size_t i = 0; i < c->in->npkgs; i++)
		if (drives(c->in->pkgs[i], d, &rank))
			return false;
	return true;
}

/* Is line k the driver of a device that is not being configured now (one
 * --slot left out, say)? Then it is that device's line, not one to take. A
 * driver no package knows may be the one of a controller no package drives
 * (a third-party virtio driver, say). */
static bool serves_another(struct ctx *c, size_t k)
{
	const struct package *p = package_of_driver(c->in, c->macs[k].file);
	for (size_t i = 0; i < c->in->pci->n; i++) {
		const struct pci_dev *d = &c->in->pci->devs[i];
		bool planned = false;
		for (size_t n = 0; n < c->out->n; n++)
			planned |= c->out->items[n].dev == d;
		int rank;
		if (!planned && pci_is_network(d) && (p ? drives(p, d, &rank) : driven_by_none(c, d)))
			return true;
	}
	return false;
}

/* The place of device d among the network controllers package p drives
 * (1 for the first): the k-th such device is the k-th line of p's driver. */
static int ordinal(struct ctx *c, const struct package *p, const struct pci_dev *d)
{
	int k = 0, rank;
	for (size_t i = 0; i < c->in->pci->n; i++) {
		const struct pci_dev *x = &c->in->pci->devs[i];
		if (pci_is_network(x) && drives(p, x, &rank))
			k++;
		if (x == d)
			return k;
	}
	return 0;
}

static long first_line_driving(struct ctx *c, const struct pci_dev *d, bool by_ordinal)
{
	for (size_t k = 0; k < c->nmacs; k++) {
		const struct package *p = package_of_driver(c->in, c->macs[k].file);
		int rank;
		if (c->macs[k].claimed || !p || !drives(p, d, &rank))
			continue;
		if (by_ordinal ? c->macs[k].occurrence == ordinal(c, p, d) : !serves_another(c, k))
			return (long)k;
	}
	return -1;
}

/* Each NIC takes the line of a driver that drives it (the one being
 * replaced): the line of its own instance where there is one; then NICs
 * still without one take the lines left, in order, but for those of
 * devices not being configured. */
static void claim_lines(struct ctx *c, long *claim)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->out->n; i++) {
			if (pass == 0)
				claim[i] = -1;
			if (claim[i] >= 0)
				continue;
			claim[i] = first_line_driving(c, c->out->items[i].dev, pass == 0);
			if (claim[i] >= 0)
				c->macs[claim[i]].claimed = true;
		}
	for (size_t i = 0; i < c->out->n; i++)
		for (size_t k = 0; k < c->nmacs && claim[i] < 0; k++)
			if (!c->macs[k].claimed && !serves_another(c, k)) {
				claim[i] = (long)k;
				c->macs[k].claimed = true;
			}
}

/* A driver being replaced may be loaded once more than there are adapters
 * for it (an adapter removed in VirtualBox): its lines left over would load
 * the old driver beside the new one, so they go with their sections. */
static void mark_leftovers(struct ctx *c, const long *claim)
{
	for (size_t k = 0; k < c->nmacs; k++) {
		if (c->macs[k].claimed || serves_another(c, k))
			continue;
		for (size_t i = 0; i < c->out->n; i++) {
			const struct nic_item *it = &c->out->items[i];
			if (claim[i] < 0 || strcasecmp(c->macs[claim[i]].file, c->macs[k].file) ||
			    !strcasecmp(it->pkg->m.driver, c->macs[k].file))
				continue;
			c->macs[k].drop = true;
			add_note(&c->out->notes, &c->out->nnotes,
				 wd_xasprintf("CONFIG.SYS line %zu loads %s once more than there are "
					      "adapters for it: it goes, with its PROTOCOL.INI section",
					      c->macs[k].line + 1, c->macs[k].file));
			break;
		}
	}
}

/* ---- the edits ---- */

static const struct wd_buf *package_file(const struct package *p, const char *name)
{
	for (size_t i = 0; i < p->m.nfiles; i++) {
		const char *d = p->m.files[i].dest, *base = strrchr(d, '\\');
		if (!strcasecmp(base ? base + 1 : d, name))
			return &p->data[i];
	}
	return NULL;
}

static char *device_line(struct ctx *c, const struct nic_item *it)
{
	char drive = c->in->v->boot_drive ? c->in->v->boot_drive : 'C';
	if (it->instance > 1)
		return wd_xasprintf("DEVICE=%c:%s%s /A%d", drive, MACS_DIR, it->pkg->m.driver,
				    it->instance - 1);
	return wd_xasprintf("DEVICE=%c:%s%s", drive, MACS_DIR, it->pkg->m.driver);
}

static int edit_config_sys(struct ctx *c, const long *claim)
{
	long protman = config_sys_find(c->cs, 0, "DEVICE", "PROTMAN.OS2");
	long anchor = protman;
	/* Replacements first: they move no line. */
	for (size_t i = 0; i < c->out->n; i++) {
		struct nic_item *it = &c->out->items[i];
		if (claim[i] < 0)
			continue;
		struct mac_line *m = &c->macs[claim[i]];
		if (!strcasecmp(m->file, it->pkg->m.driver) && m->occurrence == it->instance)
			continue; /* already so: its switches stay */
		char *line = device_line(c, it);
		config_sys_replace(c->cs, m->line, line);
		free(line);
	}
	/* Then the lines left over, from the last, so indexes stay right. */
	for (size_t k = c->nmacs; k-- > 0;)
		if (c->macs[k].drop)
			config_sys_delete(c->cs, c->macs[k].line);
	anchor = config_sys_find(c->cs, 0, "DEVICE", "PROTMAN.OS2");
	/* Then new lines, right after PROTMAN.OS2's, in adapter order. */
	for (size_t i = 0; i < c->out->n; i++) {
		if (claim[i] >= 0)
			continue;
		char *line = device_line(c, &c->out->items[i]);
		config_sys_insert_after(c->cs, (size_t)anchor, line);
		free(line);
		anchor++;
	}
	return 0;
}

/* The keywords the new driver's NIF defines: the others go from a section
 * taken over from another driver. */
static void fit_section(struct ctx *c, long s, const struct nif *nif, const char *drivername)
{
	struct wd_sv v;
	if (!pi_get(c->pi, (size_t)s, "DriverName", &v) || !wd_sv_eq(v, drivername))
		pi_set(c->pi, (size_t)s, "DriverName", drivername);
	for (size_t i = c->pi->sec[s].header + 1; i < c->pi->sec[s].end;) {
		struct wd_sv k, val;
		if (pi_line_key(c->pi, i, &k, &val) && !wd_sv_ieq(k, "DriverName")) {
			char *key = wd_sv_dup(k);
			bool keep = nif_keyword(nif, key) != NULL;
			if (!keep) {
				pi_unset(c->pi, (size_t)s, key);
				free(key);
				continue; /* the next line is now line i */
			}
			free(key);
		}
		i++;
	}
	struct nif_kv *kv;
	size_t n = nif_mac_section(nif, &kv);
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(kv[i].key, "DriverName") && pi_key_line(c->pi, (size_t)s, kv[i].key) < 0)
			pi_set(c->pi, (size_t)s, kv[i].key, kv[i].value);
	nif_kv_free(kv, n);
}

static void rename_everywhere(struct ctx *c, const char *from, const char *to, const char *nif)
{
	long s = pi_section(c->pi, from);
	if (s >= 0)
		pi_rename_section(c->pi, (size_t)s, to);
	pi_rebind(c->pi, from, to);
	long lx = pi_section(c->pi, "IBMLXCFG");
	if (lx >= 0 && pi_key_line(c->pi, (size_t)lx, from) >= 0)
		pi_rename_key(c->pi, (size_t)lx, from, to, nif);
	else if (nif)
		pi_lxcfg_set(c->pi, to, nif);
}

/* The section name MPTS would have given instance k of a driver file. */
static char *mpts_section(const char *file, int k)
{
	char *s = stem(file), *name = k > 1 ? wd_xasprintf("%s_nif%d", s, k)
					    : wd_xasprintf("%s_nif", s);
	free(s);
	return name;
}

/* Is name bound somewhere while no section has it? */
static bool dangling_binding(struct ctx *c, const char *name)
{
	if (pi_section(c->pi, name) >= 0)
		return false;
	for (size_t s = 0; s < c->pi->nsec; s++) {
		struct pi_bindings b;
		if (!pi_bindings_get(c->pi, s, &b))
			continue;
		bool hit = false;
		for (size_t k = 0; k < b.n; k++)
			hit |= !strcasecmp(b.slot[k], name);
		pi_bindings_free(&b);
		if (hit)
			return true;
	}
	return false;
}

static void drop_section(struct ctx *c, const char *name)
{
	for (size_t s = 0; s < c->pi->nsec; s++)
		pi_bind_remove(c->pi, s, name);
	pi_lxcfg_remove(c->pi, name);
	long s = pi_section(c->pi, name);
	if (s >= 0)
		pi_remove_section(c->pi, (size_t)s);
}

static int edit_protocol_ini(struct ctx *c, const long *claim)
{
	size_t n = c->out->n;
	char **old = wd_xcalloc(n + 1, sizeof *old), **dangling = wd_xcalloc(n + 1, sizeof *old);
	int r = 0;
	/* Section names before any edit moves the indexes. */
	char **gone = wd_xcalloc(c->nmacs + 1, sizeof *gone);
	for (size_t k = 0; k < c->nmacs; k++)
		if (c->macs[k].drop && c->macs[k].section >= 0)
			gone[k] = wd_xstrdup(c->pi->sec[c->macs[k].section].name);
	for (size_t i = 0; i < n; i++) {
		long s = claim[i] >= 0 ? c->macs[claim[i]].section : -1;
		if (s >= 0) {
			old[i] = wd_xstrdup(c->pi->sec[s].name);
		} else if (claim[i] >= 0) {
			/* The line has no section, but protocols may be bound to the
			 * name MPTS gave it: the new section takes those bindings. */
			char *name = mpts_section(c->macs[claim[i]].file, c->macs[claim[i]].occurrence);
			if (dangling_binding(c, name))
				dangling[i] = name;
			else
				free(name);
		}
	}
	for (size_t k = 0; k < c->nmacs; k++) {
		if (gone[k])
			drop_section(c, gone[k]);
		free(gone[k]);
	}
	free(gone);
	/* Names next: sections that change name go through a temporary one,
	 * so that no new name meets an old one still in the file. */
	for (size_t i = 0; i < n; i++) {
		struct nic_item *it = &c->out->items[i];
		if (!old[i])
			continue;
		it->replaced_section = wd_xstrdup(old[i]);
		if (strcmp(old[i], it->section)) {
			char tmp[32];
			snprintf(tmp, sizeof tmp, "WDTMP%zu_nif", i);
			rename_everywhere(c, old[i], tmp, NULL);
			free(old[i]);
			old[i] = wd_xstrdup(tmp);
		}
	}
	for (size_t i = 0; !r && i < n; i++) {
		struct nic_item *it = &c->out->items[i];
		const struct wd_buf *nb = package_file(it->pkg, it->pkg->m.nif);
		struct nif nif;
		if (!nb)
			return wd_err_set(c->err, WD_ETRUST, "%s: the package has no %s", it->pkg->m.name,
					  it->pkg->m.nif);
		if ((r = nif_parse(&nif, nb->p, nb->len, c->err))) {
			wd_err_prefix(c->err, "%s: %s", it->pkg->m.name, it->pkg->m.nif);
			break;
		}
		long taken = pi_section(c->pi, it->section);
		if (old[i] && strcmp(old[i], it->section) && taken >= 0) {
			r = wd_err_set(c->err, WD_EFAIL, "PROTOCOL.INI: a section [%s] is there already "
				       "for no adapter warpdrv configures; remove it, then run again",
				       it->section);
		} else if (old[i]) {
			if (strcmp(old[i], it->section))
				rename_everywhere(c, old[i], it->section, it->pkg->m.nif);
			else
				pi_lxcfg_set(c->pi, it->section, it->pkg->m.nif);
		} else if (taken >= 0) {
			r = wd_err_set(c->err, WD_EFAIL, "PROTOCOL.INI: a section [%s] is there already "
				       "for no adapter CONFIG.SYS loads a driver for; remove it (or "
				       "add its driver's DEVICE= line), then run again", it->section);
		} else {
			pi_add_section(c->pi, it->section, -1);
			if (dangling[i]) {
				pi_lxcfg_remove(c->pi, dangling[i]);
				pi_rebind(c->pi, dangling[i], it->section);
			}
			pi_lxcfg_set(c->pi, it->section, it->pkg->m.nif);
			/* Protocols that MPTS bound to the null adapter now have
			 * a real one. */
			if (pi_rebind(c->pi, "NONETADP_nif", it->section) > 0) {
				long nul = pi_section(c->pi, "NONETADP_nif");
				if (nul >= 0)
					pi_remove_section(c->pi, (size_t)nul);
				pi_lxcfg_remove(c->pi, "NONETADP_nif");
			}
		}
		if (!r) {
			long s = pi_section(c->pi, it->section);
			fit_section(c, s, &nif, it->drivername);
		}
		nif_free(&nif);
	}
	for (size_t i = 0; i < n; i++) {
		free(old[i]);
		free(dangling[i]);
	}
	free(old);
	free(dangling);
	return r;
}

/* ---- the whole plan ---- */

static void unsupported_note(struct ctx *c, const struct pci_dev *d, size_t nic_no)
{
	int adapter = d->adapter ? d->adapter : (int)nic_no;
	if (d->vbox_model)
		add_note(&c->out->notes, &c->out->nnotes,
			 wd_xasprintf("no package drives the VirtualBox %s at %s; switch the adapter "
				      "to a supported Intel model on the host: VBoxManage modifyvm VM "
				      "--nictype%d 82540EM", d->vbox_model, d->slot, adapter));
	else
		add_note(&c->out->notes, &c->out->nnotes,
			 wd_xasprintf("no package drives the network controller at %s (%04x:%04x)",
				      d->slot, d->vendor & 0xffff, d->device & 0xffff));
}

/* "00:03.0" names the same slot as "0000:00:03.0". */
static bool same_slot(const char *given, const char *slot)
{
	if (!strncasecmp(slot, "0000:", 5) && strlen(given) == strlen(slot) - 5)
		slot += 5;
	return !strcasecmp(given, slot);
}

static int plan_items(struct ctx *c)
{
	struct pci_list *l = c->in->pci;
	size_t nic_no = 0;
	bool slot_seen = false;
	struct wd_err refused = {0};
	for (size_t i = 0; i < l->n; i++) {
		const struct pci_dev *d = &l->devs[i];
		if (!pci_is_network(d))
			continue;
		nic_no++;
		if (c->in->slot && !same_slot(c->in->slot, d->slot))
			continue;
		slot_seen = true;
		struct nic_item it = {.dev = d};
		int r = nic_choose(c->in, d, &it, c->err);
		if (r < 0) {
			for (size_t k = 0; k < it.nnotes; k++)
				free(it.notes[k]);
			free(it.notes);
			/* Only a subscription driver drives this one: the others
			 * are still configured; it stays as it is. */
			if (r != -WD_ELICENSE || c->in->driver)
				return r;
			if (!refused.code)
				refused = *c->err;
			add_note(&c->out->notes, &c->out->nnotes,
				 wd_xasprintf("%s; left as it is", c->err->msg));
			continue;
		}
		if (!r) {
			unsupported_note(c, d, nic_no);
			continue;
		}
		if (d->attachment && !strcasecmp(d->attachment, "nat"))
			add_note(&it.notes, &it.nnotes,
				 wd_xasprintf("adapter %d is attached to NAT; bridged networking is "
					      "recommended for OS/2 guests: VBoxManage modifyvm VM "
					      "--nic%d bridged --bridgeadapter%d HOST_INTERFACE",
					      d->adapter, d->adapter, d->adapter));
		c->out->items = wd_xrealloc(c->out->items, (c->out->n + 1) * sizeof it);
		c->out->items[c->out->n++] = it;
	}
	if (c->in->slot && !slot_seen)
		return wd_err_set(c->err, WD_EFAIL, "--slot %s: no network controller there "
				  "('warpdrv detect' lists them)", c->in->slot);
	if (!c->out->n && refused.code) {
		*c->err = refused;
		return -refused.code;
	}
	if (!c->out->n) {
		struct wd_buf b = {0};
		for (size_t i = 0; i < c->out->nnotes; i++)
			wd_buf_addf(&b, "%s%s", i ? "; " : ": ", c->out->notes[i]);
		int r = wd_err_set(c->err, WD_ENODEV, "no network adapter warpdrv can configure%s",
				   b.len ? b.p : " (no network controller found)");
		wd_buf_free(&b);
		return r;
	}
	/* Instances: the k-th adapter of one driver. */
	for (size_t i = 0; i < c->out->n; i++) {
		struct nic_item *it = &c->out->items[i];
		it->instance = 1;
		for (size_t k = 0; k < i; k++)
			it->instance += c->out->items[k].pkg == it->pkg;
		char *s = stem(it->pkg->m.driver);
		it->section = it->instance > 1 ? wd_xasprintf("%s_nif%d", s, it->instance)
					       : wd_xasprintf("%s_nif", s);
		free(s);
		it->drivername = nic_instance_drivername(it->pkg->m.driver_name, it->instance);
	}
	return 0;
}

int nic_plan(const struct nic_plan_in *in, struct config_sys *cs, struct protocol_ini *pi,
	     struct nic_plan *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	if (!pi || config_sys_find(cs, 0, "DEVICE", "PROTMAN.OS2") < 0)
		return wd_err_set(err, WD_EFAIL, "this volume has no MPTS networking (%s); install "
				  "MPTS first: warpdrv configures NIC drivers, it does not install "
				  "the network stack", !pi ? "no IBMCOM\\PROTOCOL.INI"
						     : "no DEVICE=...\\PROTMAN.OS2 line in CONFIG.SYS");
	struct ctx c = {in, cs, pi, NULL, 0, out, err};
	int r = plan_items(&c);
	if (!r) {
		read_mac_lines(&c);
		long *claim = wd_xcalloc(out->n + 1, sizeof *claim);
		claim_lines(&c, claim);
		mark_leftovers(&c, claim);
		for (size_t i = 0; i < out->n; i++)
			if (claim[i] >= 0)
				out->items[i].replaced_file = wd_xstrdup(c.macs[claim[i]].file);
		r = edit_config_sys(&c, claim);
		if (!r)
			r = edit_protocol_ini(&c, claim);
		for (size_t i = 0; i < out->n; i++) {
			struct nic_item *it = &out->items[i];
			it->unchanged = it->replaced_file && it->replaced_section &&
					!strcasecmp(it->replaced_file, it->pkg->m.driver) &&
					!strcmp(it->replaced_section, it->section);
		}
		free(claim);
	}
	for (size_t k = 0; k < c.nmacs; k++) {
		free(c.macs[k].file);
		free(c.macs[k].drivername);
	}
	free(c.macs);
	if (r)
		nic_plan_free(out);
	return r;
}

void nic_plan_free(struct nic_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct nic_item *it = &p->items[i];
		free(it->section);
		free(it->drivername);
		free(it->replaced_file);
		free(it->replaced_section);
		for (size_t k = 0; k < it->nnotes; k++)
			free(it->notes[k]);
		free(it->notes);
	}
	free(p->items);
	for (size_t k = 0; k < p->nnotes; k++)
		free(p->notes[k]);
	free(p->notes);
	memset(p, 0, sizeof *p);
}
