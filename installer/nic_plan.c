#include "installer/nic_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "installer/nic_ctx.h"

/* ---- what the volume has now: the boot model's MAC lines ---- */

static void read_mac_lines(struct nic_ctx *c, const struct boot_model *m)
{
	c->macs = wd_xcalloc(m->nmac + 1, sizeof *c->macs);
	for (size_t k = 0; k < m->nmac; k++) {
		struct mac_line *x = &c->macs[c->nmacs++];
		x->line = m->mac[k].line;
		x->file = wd_xstrdup(m->mac[k].file);
		x->occurrence = m->mac[k].instance;
		x->drivername = wd_xstrdup(m->mac[k].drivername);
		x->guessed = m->mac[k].source == BM_GUESSED;
		x->section = m->mac[k].section;
	}
}

static bool driven_by_none(struct nic_ctx *c, const struct pci_dev *d)
{
	int rank;
	for (size_t i = 0; i < c->in->npkgs; i++)
		if (nic_drives(c->in->pkgs[i], d, &rank))
			return false;
	return true;
}

/* Is line k the driver of a device that is not being configured now (one
 * --slot left out, say)? Then it is that device's line, not one to take. A
 * driver no package knows may be the one of a controller no package drives
 * (a third-party virtio driver, say). */
static bool serves_another(struct nic_ctx *c, size_t k)
{
	const struct package *p = nic_package_of_driver(c->in, c->macs[k].file);
	for (size_t i = 0; i < c->in->pci->n; i++) {
		const struct pci_dev *d = &c->in->pci->devs[i];
		bool planned = false;
		for (size_t n = 0; n < c->out->n; n++)
			planned |= c->out->items[n].dev == d;
		int rank;
		if (!planned && pci_is_network(d) &&
		    (p ? nic_drives(p, d, &rank) : driven_by_none(c, d)))
			return true;
	}
	return false;
}

/* The place of device d among the network controllers package p drives
 * (1 for the first): the k-th such device is the k-th line of p's driver. */
static int ordinal(struct nic_ctx *c, const struct package *p, const struct pci_dev *d)
{
	int k = 0, rank;
	for (size_t i = 0; i < c->in->pci->n; i++) {
		const struct pci_dev *x = &c->in->pci->devs[i];
		if (pci_is_network(x) && nic_drives(p, x, &rank))
			k++;
		if (x == d)
			return k;
	}
	return 0;
}

static long first_line_driving(struct nic_ctx *c, const struct pci_dev *d, bool by_ordinal)
{
	for (size_t k = 0; k < c->nmacs; k++) {
		const struct package *p = nic_package_of_driver(c->in, c->macs[k].file);
		int rank;
		if (c->macs[k].claimed || !p || !nic_drives(p, d, &rank))
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
static void claim_lines(struct nic_ctx *c)
{
	long *claim = c->claim;
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

static void item_free(struct nic_item *it);

/* A driver being replaced may be loaded once more than there are adapters
 * for it (an adapter removed in VirtualBox): its lines left over would load
 * the old driver beside the new one, so they go with their sections. */
static void mark_leftovers(struct nic_ctx *c)
{
	for (size_t k = 0; k < c->nmacs; k++) {
		if (c->macs[k].claimed || serves_another(c, k))
			continue;
		for (size_t i = 0; i < c->out->n; i++) {
			const struct nic_item *it = &c->out->items[i];
			long cl = c->claim[i];
			if (cl < 0 || strcasecmp(c->macs[cl].file, c->macs[k].file) ||
			    !strcasecmp(it->pkg->m.driver, c->macs[k].file))
				continue;
			c->macs[k].drop = true;
			nic_add_note(&c->out->notes, &c->out->nnotes,
				     wd_xasprintf("CONFIG.SYS line %zu loads %s once more than there "
						  "are adapters for it: it goes, with its PROTOCOL.INI "
						  "section", c->macs[k].line + 1, c->macs[k].file));
			break;
		}
	}
}

/* ---- the old adapter's section when no NIF gives its DriverName ---- */

/* The NIF file of a driver: its package's, else NAME.NIF. */
static char *nif_of(struct nic_ctx *c, const char *file)
{
	const struct package *p = nic_package_of_driver(c->in, file);
	if (p && p->m.nif)
		return wd_xstrdup(p->m.nif);
	char *s = nic_stem(file), *n = wd_xasprintf("%s.NIF", s);
	free(s);
	return n;
}

/* [IBMLXCFG]'s entries: name -> its first line. */
static void index_lxcfg(const struct protocol_ini *pi, struct nameidx *ix)
{
	long lx = pi_section(pi, "IBMLXCFG");
	if (lx < 0)
		return;
	for (size_t i = pi->sec[lx].header + 1; i < pi->sec[lx].end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v))
			ni_put(ix, k, i, NULL);
	}
}

static bool lxcfg_names(const struct protocol_ini *pi, const struct nameidx *lx, size_t s,
			const char *nif)
{
	const size_t *i = ni_get(lx, wd_sv_cstr(pi->sec[s].name));
	struct wd_sv k, v;
	return i && pi_line_key(pi, *i, &k, &v) && wd_sv_ieq(v, nif);
}

struct ranked {
	size_t rank, order, s;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The candidates of line k: boot_candidates whose [IBMLXCFG] entry names
 * the driver's NIF (all of them when none does), in binding order (where
 * each is first bound: protocols in file order, slots in order), file
 * order among equals. */
static size_t candidates(struct nic_ctx *c, const struct boot_model *m, size_t k, size_t *out)
{
	size_t *all = wd_xcalloc(c->pi->nsec + 1, sizeof *all), n = 0;
	size_t na = boot_candidates(m, k, all);
	char *nif = nif_of(c, c->macs[k].file);
	struct nameidx lx = {0};
	index_lxcfg(c->pi, &lx);
	struct ranked *r = wd_xcalloc(na + 1, sizeof *r);
	for (size_t i = 0; i < na; i++) {
		if (!lxcfg_names(c->pi, &lx, all[i], nif))
			continue;
		r[n] = (struct ranked){boot_binding_rank(m, c->pi->sec[all[i]].name), n, all[i]};
		n++;
	}
	/* No entry names the driver's NIF: a driver loaded under a file name
	 * of its own choosing (AUTONIC's AUTO.OS2, a copy of the card's
	 * driver), whose NIF is no AUTO.NIF. Then every candidate is one. */
	for (size_t i = 0; !n && i < na; i++)
		r[i] = (struct ranked){boot_binding_rank(m, c->pi->sec[all[i]].name), i, all[i]};
	if (!n)
		n = na;
	qsort(r, n, sizeof *r, by_rank);
	for (size_t i = 0; i < n; i++)
		out[i] = r[i].s;
	free(r);
	ni_free(&lx);
	free(nif);
	free(all);
	return n;
}

static int ambiguous(struct nic_ctx *c, size_t k, const size_t *cand, size_t n)
{
	struct wd_buf b = {0};
	for (size_t i = 0; i < n; i++)
		wd_buf_addf(&b, "%s[%s]", i ? (i + 1 == n ? " or " : ", ") : "", c->pi->sec[cand[i]].name);
	int r = wd_err_set(c->err, WD_EFAIL, "CONFIG.SYS line %zu loads %s, whose DriverName no NIF "
			   "on the volume gives, and %s could be its PROTOCOL.INI section: run again "
			   "with --section NAME to say which; nothing was changed",
			   c->macs[k].line + 1, c->macs[k].file, b.p);
	wd_buf_free(&b);
	return r;
}

/* The candidates --section did not choose answer to no loaded driver: they
 * go, with their bindings, each named in a note. */
static void rule_out(struct nic_ctx *c, const size_t *cand, size_t n, long pick)
{
	for (size_t i = 0; i < n; i++) {
		if ((long)cand[i] == pick)
			continue;
		const char *name = c->pi->sec[cand[i]].name;
		c->stale = wd_xrealloc(c->stale, (c->nstale + 1) * sizeof *c->stale);
		c->stale[c->nstale++] = wd_xstrdup(name);
		nic_add_note(&c->out->notes, &c->out->nnotes,
			     wd_xasprintf("[%s] answers to no driver CONFIG.SYS loads and --section "
					  "chose [%s]: it goes, with its bindings", name,
					  c->pi->sec[pick].name));
	}
}

/* Lines of one driver without a section map to its candidates in binding
 * order when there are as many; else --section decides or the run stops. */
static int find_sections(struct nic_ctx *c, const struct boot_model *m)
{
	size_t *cand = wd_xcalloc(c->pi->nsec + 1, sizeof *cand);
	bool *none = wd_xcalloc(c->nmacs + 1, sizeof *none);
	for (size_t j = 0; j < c->nmacs; j++)
		none[j] = c->macs[j].section < 0 && c->macs[j].guessed;
	int r = 0;
	for (size_t k = 0; !r && k < c->nmacs; k++) {
		struct mac_line *x = &c->macs[k];
		if (!x->claimed || x->section >= 0 || !x->guessed)
			continue;
		size_t nc = candidates(c, m, k, cand), nl = 0, pos = 0;
		for (size_t j = 0; j < c->nmacs; j++)
			if (none[j] && !strcasecmp(c->macs[j].file, x->file)) {
				pos += j < k;
				nl++;
			}
		long pick = -1;
		if (nc && nc == nl)
			pick = (long)cand[pos];
		for (size_t i = 0; nc && pick < 0 && c->in->section && i < nc; i++)
			if (!strcasecmp(c->pi->sec[cand[i]].name, c->in->section))
				pick = (long)cand[i];
		if (nc && pick < 0)
			r = ambiguous(c, k, cand, nc);
		else if (nc != nl)
			rule_out(c, cand, nc, pick);
		x->section = pick;
	}
	free(none);
	free(cand);
	return r;
}

/* ---- the whole plan ---- */

static void unsupported_note(struct nic_ctx *c, const struct pci_dev *d, size_t nic_no)
{
	int adapter = d->adapter ? d->adapter : (int)nic_no;
	nic_add_note(&c->out->notes, &c->out->nnotes, nic_unsupported_why(d, adapter));
}

/* "00:03.0" names the same slot as "0000:00:03.0". */
static bool same_slot(const char *given, const char *slot)
{
	if (!strncasecmp(slot, "0000:", 5) && strlen(given) == strlen(slot) - 5)
		slot += 5;
	return !strcasecmp(given, slot);
}

static void item_free(struct nic_item *it)
{
	free(it->section);
	free(it->drivername);
	free(it->replaced_file);
	free(it->replaced_section);
	for (size_t k = 0; k < it->nnotes; k++)
		free(it->notes[k]);
	free(it->notes);
}

/* One device: 1 planned, 0 left out with a note, or a negative code. */
static int plan_device(struct nic_ctx *c, const struct pci_dev *d, size_t nic_no,
		       struct wd_err *refused)
{
	struct nic_item it = {.dev = d};
	int r = nic_choose(c->in, d, &it, c->err);
	if (r < 0) {
		item_free(&it);
		/* Only a subscription driver drives this one: the others are
		 * still configured; it stays as it is. */
		if (r != -WD_ELICENSE || c->in->driver || c->in->off)
			return r;
		if (!refused->code)
			*refused = *c->err;
		nic_add_note(&c->out->notes, &c->out->nnotes,
			     wd_xasprintf("%s; left as it is", c->err->msg));
		return 0;
	}
	if (!r) {
		unsupported_note(c, d, nic_no);
		return 0;
	}
	if (d->attachment && !strcasecmp(d->attachment, "nat"))
		nic_add_note(&it.notes, &it.nnotes,
			     wd_xasprintf("adapter %d is attached to NAT; bridged networking is "
					  "recommended for OS/2 guests: VBoxManage modifyvm VM "
					  "--nic%d bridged --bridgeadapter%d HOST_INTERFACE",
					  d->adapter, d->adapter, d->adapter));
	c->out->items = wd_xrealloc(c->out->items, (c->out->n + 1) * sizeof it);
	c->out->items[c->out->n++] = it;
	return 1;
}

/* Instances: the k-th adapter of one driver, named as its manifest's
 * instance scheme says (docs/setup.md, "Instances"): each its own DEVICE=
 * line and section, the card told by the scheme's switch, slot keyword or
 * load order. A driver whose manifest declares no scheme is the one case
 * where a further adapter stays unconfigured, with a warning. */
static void name_instances(struct nic_ctx *c)
{
	size_t kept = 0;
	for (size_t i = 0; i < c->out->n; i++) {
		struct nic_item *it = &c->out->items[i];
		it->instance = 1;
		for (size_t k = 0; k < kept; k++)
			it->instance += c->out->items[k].pkg == it->pkg;
		it->drivername = manifest_instance_drivername(&it->pkg->m, it->instance);
		char *s = nic_stem(it->pkg->m.driver);
		if (!it->drivername) {
			nic_add_note(&c->out->warnings, &c->out->nwarnings,
				     wd_xasprintf("the %s at %s stays unconfigured: it would be %s's "
						  "adapter %d, and %s's manifest declares no instance "
						  "scheme (no DriverName for a further adapter), so only "
						  "the first %s is configured",
						  it->dev->vbox_model ? it->dev->vbox_model : "NIC",
						  it->dev->slot, s, it->instance, it->pkg->m.name, s));
			free(s);
			item_free(it);
			continue;
		}
		it->slot = -1;
		/* The driver picks its card by an index keyword its NIF defines
		 * (the manifest's slot-keyword, from that NIF). */
		if (it->instance > 1 && !it->pkg->m.instance_switch && it->pkg->m.slot_keyword)
			it->slot = it->pkg->m.slot_first + it->instance - 1;
		it->section = it->instance > 1 ? wd_xasprintf("%s_nif%d", s, it->instance)
					       : wd_xasprintf("%s_nif", s);
		free(s);
		c->out->items[kept++] = *it;
	}
	c->out->n = kept;
}

static int no_adapter(struct nic_ctx *c, const struct wd_err *refused)
{
	if (refused->code) {
		*c->err = *refused;
		return -refused->code;
	}
	struct wd_buf b = {0};
	for (size_t i = 0; i < c->out->nnotes; i++)
		wd_buf_addf(&b, "%s%s", i ? "; " : ": ", c->out->notes[i]);
	int r = wd_err_set(c->err, WD_ENODEV, "no network adapter warpdrv can configure%s",
			   b.len ? b.p : " (no network controller found)");
	wd_buf_free(&b);
	return r;
}

static int plan_items(struct nic_ctx *c)
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
		int r = plan_device(c, d, nic_no, &refused);
		if (r < 0)
			return r;
	}
	if (c->in->slot && !slot_seen)
		return wd_err_set(c->err, WD_EFAIL, "--slot %s: no network controller there "
				  "('warpdrv detect' lists them)", c->in->slot);
	name_instances(c);
	return c->out->n ? 0 : no_adapter(c, &refused);
}

/* Networking this planner can configure, or the reason it cannot. */
static int mpts_there(struct nic_ctx *c, const struct boot_model *m)
{
	const struct pi_location *loc = c->in->loc;
	if (!loc)
		return wd_err_set(c->err, WD_EFAIL, "no PROTOCOL.INI location given to the planner");
	if (m->lanman)
		return wd_err_set(c->err, WD_EFAIL, "this volume's networking is LAN Manager's (%s), "
				  "not MPTS: warpdrv configures MPTS only; nothing was changed",
				  m->lanman_why);
	if (loc->where == PI_OTHER_DRIVE)
		return wd_err_set(c->err, WD_EFAIL, "PROTMAN.OS2 (CONFIG.SYS line %ld) reads "
				  "%c:%s\\PROTOCOL.INI, on drive %c:, not on this volume (%c:): "
				  "warpdrv edits only this volume; configure the adapter there with "
				  "MPTS, or move that PROTOCOL.INI to this drive and change /I:; "
				  "nothing was changed", loc->protman + 1, loc->drive, loc->dir,
				  loc->drive, c->in->v->boot_drive ? c->in->v->boot_drive : 'C');
	if (!c->pi || loc->protman < 0)
		return wd_err_set(c->err, WD_EFAIL, "this volume has no MPTS networking (%s%s); "
				  "install MPTS first: warpdrv configures NIC drivers, it does not "
				  "install the network stack", loc->protman < 0 ? "" : "no ",
				  loc->protman < 0 ? "no DEVICE=...\\PROTMAN.OS2 line in CONFIG.SYS"
						   : loc->path);
	if (m->autonic >= 0) {
		struct wd_sv t = tl_text(&c->cs->t, (size_t)m->autonic);
		return wd_err_set(c->err, WD_EFAIL, "CONFIG.SYS line %ld (%.*s) loads AUTONIC.SYS, "
				  "which at each boot copies the files of the card's folder "
				  "\\IBMCOM\\AUTO\\VVVV.DDDD over \\IBMCOM\\PROTOCOL.INI and "
				  "\\IBMCOM\\MACS\\AUTO.OS2: what warpdrv changed there would be "
				  "undone at the next boot, and warpdrv does not edit AUTONIC's "
				  "folders; REM that line and run again (setup then replaces the "
				  "AUTO.OS2 line with the card's own driver); nothing was changed",
				  m->autonic + 1, (int)t.n, t.p);
	}
	if (!m->mpts)
		return wd_err_set(c->err, WD_EFAIL, "this volume has no MPTS networking (%s has no "
				  "[PROT_MAN] section with DriverName = PROTMAN$: empty, damaged or "
				  "not MPTS's); configure networking with MPTS first", loc->path);
	return 0;
}

static void model_of(struct nic_ctx *c, struct boot_model *m)
{
	static const struct pi_location none = {.where = PI_NO_PROTMAN, .protman = -1};
	c->manifests = wd_xcalloc(c->in->npkgs + 1, sizeof *c->manifests);
	for (size_t i = 0; i < c->in->npkgs; i++)
		c->manifests[i] = &c->in->pkgs[i]->m;
	const struct pi_location *loc = c->in->loc ? c->in->loc : &none;
	struct boot_input bi = {
		.cs = c->cs,
		.pi = c->pi,
		.loc = loc,
		.pi_label = loc->path,
		.nifs = c->in->nifs,
		.nnifs = c->in->nnifs,
		.pkgs = c->manifests,
		.npkgs = c->in->npkgs,
	};
	boot_model_build(m, &bi);
}

static int plan_edits(struct nic_ctx *c, const struct boot_model *m)
{
	read_mac_lines(c, m);
	c->claim = wd_xcalloc(c->out->n + 1, sizeof *c->claim);
	c->before = wd_xcalloc(c->out->n + 1, sizeof *c->before);
	claim_lines(c);
	mark_leftovers(c);
	int r = find_sections(c, m);
	for (size_t i = 0; !r && i < c->out->n; i++) {
		long k = c->claim[i];
		if (k < 0)
			continue;
		c->out->items[i].replaced_file = wd_xstrdup(c->macs[k].file);
		if (c->macs[k].section >= 0)
			c->before[i] = nic_section_text(c->pi, c->pi->sec[c->macs[k].section].name);
	}
	if (!r)
		r = nic_edit_config_sys(c);
	if (!r)
		r = nic_edit_protocol_ini(c);
	return r;
}

int nic_plan(const struct nic_plan_in *in, struct config_sys *cs, struct protocol_ini *pi,
	     struct nic_plan *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	struct nic_ctx c = {.in = in, .cs = cs, .pi = pi, .out = out, .err = err};
	struct boot_model m;
	model_of(&c, &m);
	int r = mpts_there(&c, &m);
	if (!r)
		r = plan_items(&c);
	if (!r)
		r = plan_edits(&c, &m);
	boot_model_free(&m);
	for (size_t k = 0; k < c.nmacs; k++) {
		free(c.macs[k].file);
		free(c.macs[k].drivername);
	}
	for (size_t i = 0; c.before && i < out->n; i++)
		free(c.before[i]);
	free(c.before);
	for (size_t i = 0; i < c.nstale; i++)
		free(c.stale[i]);
	free(c.stale);
	free(c.claim);
	free(c.macs);
	free(c.manifests);
	if (r)
		nic_plan_free(out);
	return r;
}

void nic_plan_free(struct nic_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		item_free(&p->items[i]);
	free(p->items);
	for (size_t k = 0; k < p->nnotes; k++)
		free(p->notes[k]);
	free(p->notes);
	for (size_t k = 0; k < p->nwarnings; k++)
		free(p->warnings[k]);
	free(p->warnings);
	memset(p, 0, sizeof *p);
}
