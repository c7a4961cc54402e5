/* The NIC planner's edits of CONFIG.SYS and PROTOCOL.INI, once each adapter
 * knows the line and section it takes (nic_plan.c). Every model edit is
 * checked: one refused (a name the file cannot hold) stops the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "installer/nic_ctx.h"

static int refused(struct nic_ctx *c, const char *what, const char *name)
{
	return wd_err_set(c->err, WD_EFAIL, "PROTOCOL.INI: could not %s [%s] (a name the file "
			  "cannot hold?); nothing was changed", what, name);
}

/* ---- CONFIG.SYS ---- */

static char *device_line(struct nic_ctx *c, const struct nic_item *it)
{
	char drive = c->in->v->boot_drive ? c->in->v->boot_drive : 'C';
	char *sw = manifest_instance_switch(&it->pkg->m, it->instance);
	char *line = wd_xasprintf("DEVICE=%c:%s%s%s%s", drive, WD_MACS_DIR, it->pkg->m.driver,
				  sw ? " " : "", sw ? sw : "");
	free(sw);
	return line;
}

/* The last line that loads file, or -1. */
static long last_line_of(struct nic_ctx *c, const char *file)
{
	long last = -1;
	for (size_t i = 0; i < config_sys_lines(c->cs); i++) {
		struct cs_stmt st;
		if (config_sys_stmt(c->cs, i, &st) && wd_sv_ieq(st.keyword, "DEVICE") &&
		    wd_sv_ieq(st.name, file))
			last = (long)i;
	}
	return last;
}

/* New lines, in adapter order: one of a driver already loaded goes after
 * that driver's last line (instance 1 loads first); the others right after
 * PROTMAN.OS2's, in turn. */
static int insert_new(struct nic_ctx *c)
{
	long protman = config_sys_find(c->cs, 0, "DEVICE", "PROTMAN.OS2");
	for (size_t i = 0; i < c->out->n; i++) {
		if (c->claim[i] >= 0)
			continue;
		const struct nic_item *it = &c->out->items[i];
		long last = last_line_of(c, it->pkg->m.driver);
		long at = last >= 0 ? last : protman;
		char *line = device_line(c, it);
		int r = at >= 0 ? config_sys_insert_after(c->cs, (size_t)at, line) : -1;
		free(line);
		if (r)
			return wd_err_set(c->err, WD_EFAIL, "CONFIG.SYS: no place for the DEVICE= line "
					  "of %s (no PROTMAN.OS2 line)", it->pkg->m.driver);
		if (at <= protman || last < 0)
			protman++;
	}
	return 0;
}

int nic_edit_config_sys(struct nic_ctx *c)
{
	/* Replacements first: they move no line. */
	for (size_t i = 0; i < c->out->n; i++) {
		struct nic_item *it = &c->out->items[i];
		if (c->claim[i] < 0)
			continue;
		struct mac_line *m = &c->macs[c->claim[i]];
		if (!strcasecmp(m->file, it->pkg->m.driver) && m->occurrence == it->instance)
			continue; /* already so: its switches stay */
		char *line = device_line(c, it);
		int r = config_sys_replace(c->cs, m->line, line);
		free(line);
		if (r)
			return wd_err_set(c->err, WD_EFAIL, "CONFIG.SYS line %zu could not be replaced",
					  m->line + 1);
	}
	/* Then the lines left over, in one pass (one by one, each would move
	 * every line after it). */
	size_t n = config_sys_lines(c->cs);
	bool *gone = wd_xcalloc(n + 1, sizeof *gone);
	for (size_t k = 0; k < c->nmacs; k++) {
		if (!c->macs[k].drop)
			continue;
		if (c->macs[k].line >= n) {
			free(gone);
			return wd_err_set(c->err, WD_EFAIL, "CONFIG.SYS line %zu could not be removed",
					  c->macs[k].line + 1);
		}
		gone[c->macs[k].line] = true;
	}
	config_sys_delete_marked(c->cs, gone);
	free(gone);
	return insert_new(c);
}

/* ---- PROTOCOL.INI ---- */

char *nic_section_text(const struct protocol_ini *pi, const char *name)
{
	long s = pi_section(pi, name);
	if (s < 0)
		return NULL;
	struct wd_buf b = {0};
	for (size_t i = pi->sec[s].header; i < pi->sec[s].end; i++) {
		struct wd_sv t = tl_text(&pi->t, i);
		wd_buf_add(&b, t.p, t.n);
		wd_buf_addc(&b, '\n');
	}
	/* the blank lines after it separate it from the next section: a
	 * section added after it is no change of its own */
	while (b.len && strchr("\n\r \t", b.p[b.len - 1]))
		b.len--;
	long lx = pi_section(pi, "IBMLXCFG");
	struct wd_sv v;
	if (lx >= 0 && pi_get(pi, (size_t)lx, name, &v))
		wd_buf_add(&b, v.p, v.n);
	wd_buf_cstr(&b);
	return b.p;
}

/* The NIF that decides the new section: the volume's for that driver where
 * there is one, else the package's. */
static int new_nif(struct nic_ctx *c, const struct nic_item *it, struct nif *nif)
{
	for (size_t k = 0; k < c->in->nnifs; k++) {
		const struct vol_nif *v = &c->in->nifs[k];
		if (v->error || !v->nif.file_name || strcasecmp(v->nif.file_name, it->pkg->m.driver))
			continue;
		/* Only its summary was kept: the keywords are read again, and
		 * the NIF counts only if it still names that file. */
		struct wd_err e;
		if (vol_nif_load(c->in->v, v, nif, &e))
			continue;
		if (nif->file_name && !strcasecmp(nif->file_name, it->pkg->m.driver))
			return 0;
		nif_free(nif);
	}
	return nic_package_nif(it->pkg, nif, c->err);
}

int nic_package_nif(const struct package *p, struct nif *nif, struct wd_err *err)
{
	const struct wd_buf *nb = package_member(p, p->m.nif);
	if (!nb)
		return wd_err_set(err, WD_ETRUST, "%s %s: the package has no %s", p->m.name,
				  p->m.version, p->m.nif);
	int r = nif_parse(nif, nb->p, nb->len, err);
	if (r) {
		nif_free(nif);
		wd_err_prefix(err, "%s %s: %s", p->m.name, p->m.version, p->m.nif);
	}
	return r;
}

struct fit_drop {
	const struct nif *nif;
	nic_fit_note *note;
	void *ud;
	bool bad; /* a key pi_unset could not have named (a NUL byte in it) */
};

static bool fit_drop(void *ud, struct wd_sv k, struct wd_sv val)
{
	struct fit_drop *f = ud;
	if (wd_sv_ieq(k, "DriverName"))
		return false;
	char *key = wd_sv_dup(k), *v = wd_sv_dup(val);
	bool keep = nif_keyword(f->nif, key) != NULL;
	if (f->note && !f->bad)
		f->note(f->ud, keep ? NIC_CARRIED : NIC_DROPPED, key, v);
	if (!keep && memchr(k.p, '\0', k.n))
		f->bad = true;
	free(key);
	free(v);
	return !keep;
}

int nic_fit_keywords(struct protocol_ini *pi, size_t s, const struct nif *nif,
		     nic_fit_note *note, void *ud)
{
	/* Each keyword line is looked at once and those that go leave in one
	 * pass (a section of many keywords costs no more than its lines). */
	struct fit_drop f = {nif, note, ud, false};
	pi_drop_keys(pi, s, fit_drop, &f);
	if (f.bad)
		return -1;
	struct nif_kv *kv;
	size_t n = nif_mac_section(nif, &kv), m = 0;
	const char **keys = wd_xcalloc(n + 1, sizeof *keys), **values = wd_xcalloc(n + 1, sizeof *values);
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(kv[i].key, "DriverName"))
			continue;
		keys[m] = kv[i].key;
		values[m++] = kv[i].value;
	}
	/* pi_add_keys adds the ones the section lacks, each once; the notes
	 * name the same ones, first value first. */
	struct nameidx have = {0};
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v))
			ni_put(&have, k, i, NULL);
	}
	for (size_t i = 0; i < m; i++) {
		bool added;
		ni_put(&have, wd_sv_cstr(keys[i]), 0, &added);
		if (added && note)
			note(ud, NIC_ADDED, keys[i], values[i]);
	}
	ni_free(&have);
	int r = pi_add_keys(pi, s, keys, values, m);
	free(keys);
	free(values);
	nif_kv_free(kv, n);
	return r ? -1 : 0;
}

/* Setup's notes: what a driver change carries and drops ("drops
 * SPEEDDUPLEX = 3: E1000 only"). */
struct change_notes {
	struct nic_item *it;
	const char *old;
};

static void change_note(void *ud, enum nic_fit what, const char *key, const char *value)
{
	struct change_notes *n = ud;
	if (what == NIC_CARRIED)
		nic_add_note(&n->it->notes, &n->it->nnotes,
			     wd_xasprintf("carries %s = %s", key, value));
	else if (what == NIC_DROPPED)
		nic_add_note(&n->it->notes, &n->it->nnotes,
			     wd_xasprintf("drops %s = %s: %s only", key, value, n->old));
}

static int fit_section(struct nic_ctx *c, const char *name, const struct nif *nif,
		       struct nic_item *it, bool same_driver)
{
	long s = pi_section(c->pi, name);
	if (s < 0)
		return refused(c, "find", name);
	struct wd_sv v;
	if ((!pi_get(c->pi, (size_t)s, "DriverName", &v) || !wd_sv_eq(v, it->drivername)) &&
	    pi_set(c->pi, (size_t)s, "DriverName", it->drivername))
		return refused(c, "set DriverName in", name);
	if (same_driver)
		return 0;
	/* On a driver change the new NIF decides; a driver that stays keeps
	 * every keyword. */
	char *old = it->replaced_file ? nic_stem(it->replaced_file) : wd_xstrdup("the old driver");
	struct change_notes cn = {it, old};
	int r = nic_fit_keywords(c->pi, (size_t)s, nif, change_note, &cn);
	free(old);
	return r ? refused(c, "change", name) : 0;
}

static int rename_everywhere(struct nic_ctx *c, const char *from, const char *to, const char *nif)
{
	long s = pi_section(c->pi, from);
	if (s >= 0 && pi_rename_section(c->pi, (size_t)s, to))
		return refused(c, "rename", from);
	if (pi_rebind(c->pi, from, to) < 0)
		return refused(c, "rebind", from);
	long lx = pi_section(c->pi, "IBMLXCFG");
	int r = 0;
	if (lx >= 0 && pi_key_line(c->pi, (size_t)lx, from) >= 0)
		r = pi_rename_key(c->pi, (size_t)lx, from, to, nif);
	else if (nif)
		r = pi_lxcfg_set(c->pi, to, nif);
	return r ? refused(c, "list in [IBMLXCFG]", to) : 0;
}

/* The section name MPTS would have given instance k of a driver file. */
static char *mpts_section(const char *file, int k)
{
	char *s = nic_stem(file), *name = k > 1 ? wd_xasprintf("%s_nif%d", s, k)
						: wd_xasprintf("%s_nif", s);
	free(s);
	return name;
}

static bool bound(const struct protocol_ini *pi, const char *name)
{
	for (size_t s = 0; s < pi->nsec; s++) {
		struct pi_bindings b;
		if (!pi_bindings_get(pi, s, &b))
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

/* A new section for an adapter with none to take over. */
static int add_section(struct nic_ctx *c, struct nic_item *it, const char *dangling)
{
	if (pi_add_section(c->pi, it->section, -1) < 0)
		return refused(c, "add", it->section);
	if (dangling && (pi_lxcfg_remove(c->pi, dangling) < 0 ||
			 pi_rebind(c->pi, dangling, it->section) < 0))
		return refused(c, "rebind", dangling);
	if (pi_lxcfg_set(c->pi, it->section, it->pkg->m.nif))
		return refused(c, "list in [IBMLXCFG]", it->section);
	/* Protocols that MPTS bound to the null adapter now have a real one. */
	if (pi_rebind(c->pi, "NONETADP_nif", it->section) > 0) {
		long nul = pi_section(c->pi, "NONETADP_nif");
		if (nul >= 0)
			pi_remove_section(c->pi, (size_t)nul);
		pi_lxcfg_remove(c->pi, "NONETADP_nif");
	}
	return 0;
}

/* Section names before any edit moves the indexes: old[i] the section item
 * i takes over, dangling[i] a name bound while no section has it. */
static void old_names(struct nic_ctx *c, char **old, char **dangling)
{
	for (size_t i = 0; i < c->out->n; i++) {
		long k = c->claim[i];
		long s = k >= 0 ? c->macs[k].section : -1;
		if (s >= 0) {
			old[i] = wd_xstrdup(c->pi->sec[s].name);
		} else if (k >= 0) {
			/* The line has no section, but protocols may be bound to the
			 * name MPTS gave it: the new section takes those bindings. */
			char *name = mpts_section(c->macs[k].file, c->macs[k].occurrence);
			if (pi_section(c->pi, name) < 0 && bound(c->pi, name))
				dangling[i] = name;
			else
				free(name);
		}
	}
	/* Names first: each drop moves the indexes after it. */
	char **gone = wd_xcalloc(c->nmacs + 1, sizeof *gone);
	for (size_t k = 0; k < c->nmacs; k++)
		if (c->macs[k].drop && c->macs[k].section >= 0)
			gone[k] = wd_xstrdup(c->pi->sec[c->macs[k].section].name);
	/* All in one pass: one by one, each would go over the whole file. */
	char **names = wd_xcalloc(c->nstale + c->nmacs + 1, sizeof *names);
	size_t nn = 0;
	for (size_t k = 0; k < c->nstale; k++)
		names[nn++] = c->stale[k];
	for (size_t k = 0; k < c->nmacs; k++)
		if (gone[k])
			names[nn++] = gone[k];
	pi_drop_sections(c->pi, names, nn);
	free(names);
	for (size_t k = 0; k < c->nmacs; k++)
		free(gone[k]);
	free(gone);
}

/* Sections that change name go through a temporary one first, so that no
 * new name meets an old one still in the file. */
static int rename_to_temporary(struct nic_ctx *c, char **old)
{
	for (size_t i = 0; i < c->out->n; i++) {
		struct nic_item *it = &c->out->items[i];
		if (!old[i])
			continue;
		it->replaced_section = wd_xstrdup(old[i]);
		if (!strcmp(old[i], it->section))
			continue;
		char *tmp = wd_xasprintf("WDTMP%zu_nif", i);
		int r = rename_everywhere(c, old[i], tmp, NULL);
		free(old[i]);
		old[i] = tmp;
		if (r)
			return r;
	}
	return 0;
}

static int place_section(struct nic_ctx *c, struct nic_item *it, const char *old,
			 const char *dangling)
{
	long taken = pi_section(c->pi, it->section);
	if (old && strcmp(old, it->section) && taken >= 0)
		return wd_err_set(c->err, WD_EFAIL, "PROTOCOL.INI: a section [%s] is there already "
				  "for no adapter warpdrv configures; remove it, then run again",
				  it->section);
	if (old && strcmp(old, it->section))
		return rename_everywhere(c, old, it->section, it->pkg->m.nif);
	if (old)
		return pi_lxcfg_set(c->pi, it->section, it->pkg->m.nif)
			       ? refused(c, "list in [IBMLXCFG]", it->section) : 0;
	if (taken >= 0)
		return wd_err_set(c->err, WD_EFAIL, "PROTOCOL.INI: a section [%s] is there already "
				  "for no adapter CONFIG.SYS loads a driver for; remove it (or add "
				  "its driver's DEVICE= line), then run again", it->section);
	return add_section(c, it, dangling);
}

/* Notes that tell the truth about the result. */
static void after_notes(struct nic_ctx *c, size_t i)
{
	struct nic_item *it = &c->out->items[i];
	char *now = nic_section_text(c->pi, it->section);
	bool line_same = it->replaced_file && !strcasecmp(it->replaced_file, it->pkg->m.driver) &&
			 c->macs[c->claim[i]].occurrence == it->instance;
	it->unchanged = line_same && it->replaced_section &&
			!strcmp(it->replaced_section, it->section) && c->before[i] && now &&
			!strcmp(c->before[i], now);
	free(now);
	if (!bound(c->pi, it->section))
		nic_add_note(&it->notes, &it->nnotes,
			     wd_xasprintf("[%s] is bound to no protocol, so this adapter carries no "
					  "traffic: bind it with MPTS (Adapters and Protocols), or add "
					  "%s to a protocol's Bindings in PROTOCOL.INI", it->section,
					  it->section));
}

/* The index keyword of a further instance (docs/setup.md, "The second
 * card's slot"): SLOT = 1 on the second card, as the NIF numbers them. */
static int set_slot(struct nic_ctx *c, struct nic_item *it, const struct nif *nif)
{
	const char *key = it->pkg->m.slot_keyword;
	long s = pi_section(c->pi, it->section);
	if (s < 0)
		return refused(c, "find", it->section);
	if (!nif_keyword(nif, key))
		return wd_err_set(c->err, WD_EFAIL, "%s %s: its manifest's slot-keyword %s is not "
				  "a keyword of its NIF %s, so [%s] cannot pick the card at %s: "
				  "nothing was changed", it->pkg->m.name, it->pkg->m.version, key,
				  it->pkg->m.nif, it->section, it->dev->slot);
	char v[24];
	snprintf(v, sizeof v, "%ld", it->slot);
	struct wd_sv have;
	if (pi_get(c->pi, (size_t)s, key, &have) && wd_sv_eq(have, v))
		return 0;
	if (pi_set(c->pi, (size_t)s, key, v))
		return refused(c, "set the slot keyword in", it->section);
	nic_add_note(&it->notes, &it->nnotes,
		     wd_xasprintf("sets %s = %s in [%s]: the %s at %s is adapter %d of %s in PCI "
				  "order, and %s numbers the cards from %d", key, v, it->section,
				  it->dev->vbox_model ? it->dev->vbox_model : "NIC", it->dev->slot,
				  it->instance, it->pkg->m.driver, it->pkg->m.nif,
				  it->pkg->m.slot_first));
	return 0;
}

int nic_edit_protocol_ini(struct nic_ctx *c)
{
	size_t n = c->out->n;
	char **old = wd_xcalloc(n + 1, sizeof *old), **dangling = wd_xcalloc(n + 1, sizeof *old);
	old_names(c, old, dangling);
	int r = rename_to_temporary(c, old);
	for (size_t i = 0; !r && i < n; i++) {
		struct nic_item *it = &c->out->items[i];
		struct nif nif;
		if ((r = new_nif(c, it, &nif)))
			break;
		r = place_section(c, it, old[i], dangling[i]);
		bool same = it->replaced_file && !strcasecmp(it->replaced_file, it->pkg->m.driver);
		if (!r)
			r = fit_section(c, it->section, &nif, it, same && old[i]);
		if (!r && it->slot >= 0)
			r = set_slot(c, it, &nif);
		nif_free(&nif);
	}
	for (size_t i = 0; !r && i < n; i++)
		after_notes(c, i);
	for (size_t i = 0; i < n; i++) {
		free(old[i]);
		free(dangling[i]);
	}
	free(old);
	free(dangling);
	return r;
}
