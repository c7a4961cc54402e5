#include "installer/boot_model.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

#define SV(v) (int)(v).n, (v).p

/* The protocol drivers whose module is known (docs/os2-facts.md): a protocol
 * section with this DriverName is served by that file. Others (TCPIP$ among
 * them: MPTN's split over several files) are not judged. */
static const struct {
	const char *drivername, *file;
} protocol_files[] = {
	{"NETBEUI$", "NETBEUI.OS2"},
	{"LANDD$", "LANDD.OS2"},
};

static bool in_macs_dir(struct wd_sv dir)
{
	const char *tail = &WD_MACS_DIR[1];
	size_t n = strlen(tail);
	if (dir.n < n)
		return false;
	if (dir.n > n && dir.p[dir.n - n - 1] != '\\')
		return false;
	return wd_sv_ieq(wd_sv_make(dir.p + dir.n - n, n), tail);
}

static const struct nif *nif_for_file_ix(const struct boot_input *in, const struct bm_index *ix,
					 const char *file)
{
	if (ix) {
		const size_t *k = ni_get(&ix->nif_file, wd_sv_cstr(file));
		return k ? &in->nifs[*k].nif : NULL;
	}
	for (size_t k = 0; k < in->nnifs; k++) {
		const char *fn = in->nifs[k].error ? NULL : in->nifs[k].nif.file_name;
		if (fn && fn[0] && tl_sv_ieq(wd_sv_trim(wd_sv_cstr(fn)), wd_sv_cstr(file)))
			return &in->nifs[k].nif;
	}
	return NULL;
}

static const struct pkg_manifest *pkg_for_file(const struct boot_input *in, const char *file)
{
	for (size_t k = 0; k < in->npkgs; k++)
		if (in->pkgs[k]->driver && !strcasecmp(in->pkgs[k]->driver, file))
			return in->pkgs[k];
	return NULL;
}

static bool is_mac_line_ix(const struct boot_input *in, const struct bm_index *ix,
			   const struct cs_stmt *st)
{
	if (!wd_sv_ieq(st->keyword, "DEVICE") || !st->name.n || wd_sv_ieq(st->name, "PROTMAN.OS2"))
		return false;
	if (in_macs_dir(st->dir))
		return true;
	char *file = wd_sv_dup(st->name);
	bool named = nif_for_file_ix(in, ix, file) || pkg_for_file(in, file);
	free(file);
	return named;
}

bool boot_is_mac_line(const struct boot_input *in, const struct cs_stmt *st)
{
	return is_mac_line_ix(in, NULL, st);
}

static char *stem_name(const char *file, const char *suffix)
{
	size_t n = strcspn(file, ".");
	char *s = wd_xasprintf("%.*s%s", (int)n, file, suffix);
	for (char *c = s; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return s;
}

static bool section_has_drivername(const struct protocol_ini *pi, const char *dn)
{
	return pi && pi_section_by_driver(pi, 0, dn) >= 0;
}

static void index_vendor(const struct boot_input *in, struct bm_index *ix)
{
	ix->vendor_built = true;
	const struct protocol_ini *pi = in->pi;
	if (!pi)
		return;
	ix->vendor_next = wd_xcalloc(pi->nsec + 1, sizeof *ix->vendor_next);
	for (size_t s = pi->nsec; s-- > 0;) { /* backwards: each prepended */
		struct wd_sv dn;
		if (!pi_get(pi, s, "DriverName", &dn) || dn.n < 3 || dn.p[dn.n - 1] != '$' ||
		    !isalnum((unsigned char)dn.p[dn.n - 2]))
			continue;
		bool added;
		size_t *head = ni_put(&ix->vendor, wd_sv_make(dn.p, dn.n - 2), s, &added);
		ix->vendor_next[s] = added ? SIZE_MAX : *head;
		*head = s;
	}
}

/* The vendor's name of instance k >= 2 of file, whose first instance
 * answers to first: the first name with one letter or digit added before
 * the `$` (3Com's ELNK16$, then ELNK16X$; MultiMac's MMLEM2$ is one too),
 * as PROTOCOL.INI's sections have it: the (k-1)-th such DriverName in file
 * order that no NIF or package gives another driver. One letter or digit
 * makes at most 36 names, so the walk stops after 64 sections. NULL: none. */
static char *vendor_instance(const struct boot_input *in, struct bm_index *ix,
			     const char *first, int k, const char *file)
{
	if (!ix || !in->pi || k < 2)
		return NULL;
	if (!ix->vendor_built)
		index_vendor(in, ix);
	size_t n = strlen(first);
	if (n && first[n - 1] == '$')
		n--;
	const size_t *head = ni_get(&ix->vendor, wd_sv_make(first, n));
	int seen = 1, steps = 0;
	for (size_t s = head ? *head : SIZE_MAX; s != SIZE_MAX && steps < 64;
	     s = ix->vendor_next[s], steps++) {
		struct wd_sv dn;
		if (!pi_get(in->pi, s, "DriverName", &dn))
			continue;
		const size_t *o = ni_get(&ix->owner_of, dn);
		if (o && (ix->owners[*o].many || !ix->owners[*o].file ||
			  strcasecmp(ix->owners[*o].file, file)))
			continue; /* another driver's name */
		if (++seen == k)
			return wd_sv_dup(dn);
	}
	return NULL;
}

/* Instance k >= 2 of a driver without data for it: the conventions the
 * project knows (docs/os2-facts.md, "PROTOCOL.INI"): NAME2$ (MultiMac),
 * the last digit replaced (Intel: E1002$), and the vendor's own name, a
 * letter or digit added before the `$` (vendor_instance). The one a
 * section has, else the first. */
static char *guess_instance(const struct boot_input *in, struct bm_index *ix, const char *first,
			    int k, const char *file)
{
	size_t n = strlen(first);
	if (n && first[n - 1] == '$')
		n--;
	char *a = wd_xasprintf("%.*s%d$", (int)n, first, k);
	if (section_has_drivername(in->pi, a))
		return a;
	if (n && isdigit((unsigned char)first[n - 1])) {
		char *b = wd_xasprintf("%.*s%d$", (int)n - 1, first, k);
		if (section_has_drivername(in->pi, b)) {
			free(a);
			return b;
		}
		free(b);
	}
	char *v = vendor_instance(in, ix, first, k, file);
	if (v) {
		free(a);
		return v;
	}
	return a;
}

static char *drivername_ix(const struct boot_input *in, const struct bm_index *ix,
			   const char *file, int k, enum bm_source *src)
{
	const struct nif *nif = nif_for_file_ix(in, ix, file);
	const struct pkg_manifest *p = pkg_for_file(in, file);
	char *dn = p ? manifest_instance_drivername(p, k) : NULL;
	if (k == 1 && nif && nif->drivername) {
		free(dn);
		*src = BM_FROM_NIF;
		return wd_xstrdup(nif->drivername);
	}
	if (dn) {
		*src = BM_FROM_PACKAGE;
		return dn;
	}
	*src = BM_GUESSED;
	char *first = nif && nif->drivername ? wd_xstrdup(nif->drivername)
		    : p ? wd_xstrdup(p->driver_name) : stem_name(file, "$");
	if (k == 1)
		return first;
	char *g = guess_instance(in, (struct bm_index *)ix, first, k, file);
	free(first);
	return g;
}

char *boot_drivername(const struct boot_input *in, const char *file, int k,
		      enum bm_source *src)
{
	return drivername_ix(in, NULL, file, k, src);
}

/* Room for one more in an array grown by doubling (n a count so far). */
static void *grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1) || (n && n < 8))
		return v;
	return wd_xrealloc(v, (n ? n * 2 : 8) * size);
}

static void add_mac(struct boot_model *m, size_t line, const struct cs_stmt *st)
{
	m->mac = grow(m->mac, m->nmac, sizeof *m->mac);
	struct bm_mac *x = &m->mac[m->nmac++];
	memset(x, 0, sizeof *x);
	x->line = line;
	x->file = wd_sv_dup(st->name);
	/* Its instance: how many lines loaded this file before it, plus one. */
	size_t *count = ni_put(&m->ix->mac_file, wd_sv_cstr(x->file), 0, NULL);
	x->instance = (int)++*count;
	x->drivername = drivername_ix(&m->in, m->ix, x->file, x->instance, &x->source);
	ni_put(&m->ix->mac_dn, wd_sv_cstr(x->drivername), m->nmac - 1, NULL);
	x->pkg = pkg_for_file(&m->in, x->file);
	x->section = m->in.pi ? pi_section_by_driver(m->in.pi, 0, x->drivername) : -1;
}

static void find_lanman(struct boot_model *m)
{
	const struct config_sys *cs = m->in.cs;
	for (size_t i = 0; i < config_sys_lines(cs) && !m->lanman; i++) {
		struct wd_sv t = tl_text(&cs->t, i);
		for (size_t k = 0; k + 33 <= t.n && !m->lanman; k++)
			if ((t.p[k] == 'D' || t.p[k] == 'd') &&
			    !strncasecmp(t.p + k, "DO NOT MODIFY BETWEEN THESE LINES", 33)) {
				m->lanman = true;
				m->lanman_line = (long)i;
				m->lanman_why = wd_xstrdup("LAN Manager's 'DO NOT MODIFY BETWEEN THESE "
							   "LINES' block");
			}
	}
	long p = m->in.loc ? m->in.loc->protman : -1;
	struct cs_stmt st;
	if (m->lanman || p < 0 || !config_sys_stmt(cs, (size_t)p, &st))
		return;
	for (size_t k = 0; k + 8 <= st.dir.n; k++)
		if (!strncasecmp(st.dir.p + k, "\\LANMAN\\", 8)) {
			m->lanman = true;
			m->lanman_line = p;
			m->lanman_why = wd_xasprintf("PROTMAN.OS2 loaded from LAN Manager's folder "
						     "%.*s", SV(st.dir));
			return;
		}
}

static void add_proto(struct boot_model *m, size_t s)
{
	const struct protocol_ini *pi = m->in.pi;
	struct bm_proto p = {.section = s, .line = -1};
	if (!pi_bindings_get(pi, s, &p.b))
		return;
	p.bindings_line = pi_key_line(pi, s, "Bindings");
	struct wd_sv dn = {"", 0};
	boot_section_dn(m, s, &dn);
	p.drivername = wd_sv_dup(dn);
	for (size_t k = 0; k < sizeof protocol_files / sizeof *protocol_files; k++)
		if (wd_sv_ieq(dn, protocol_files[k].drivername))
			p.file = protocol_files[k].file;
	for (size_t k = 0; k < sizeof protocol_files / sizeof *protocol_files; k++)
		if (p.file == protocol_files[k].file) {
			/* Looked up once for all the sections it serves. */
			if (m->ix->proto_line[k] == -2)
				m->ix->proto_line[k] = config_sys_find(m->in.cs, 0, "DEVICE", p.file);
			p.line = m->ix->proto_line[k];
		}
	m->proto = grow(m->proto, m->nproto, sizeof *m->proto);
	m->proto[m->nproto++] = p;
	for (size_t i = 0; i < p.b.n; i++) {
		ni_put(&m->ix->bound, wd_sv_cstr(p.b.slot[i]), m->ix->nranks, NULL);
		m->ix->nranks++;
		m->ix->any_binding = m->ix->any_binding || p.b.slot[i][0];
	}
}

/* [NETBIOS] ADAPTERn = netbeui$,n: which protocol binding each NetBIOS
 * adapter is. */
static void read_adapters(struct boot_model *m)
{
	long s = pi_section(m->in.pi, "NETBIOS");
	if (s < 0)
		return;
	const struct pi_section *sec = &m->in.pi->sec[s];
	for (size_t i = sec->header + 1; i < sec->end; i++) {
		struct wd_sv k, v;
		unsigned long long n, slot;
		if (!pi_line_key(m->in.pi, i, &k, &v) || k.n < 8 || !wd_sv_istarts(k, "ADAPTER") ||
		    wd_sv_u64(wd_sv_make(k.p + 7, k.n - 7), 255, &n))
			continue;
		const char *comma = memchr(v.p, ',', v.n);
		struct wd_sv dn = wd_sv_trim(wd_sv_make(v.p, comma ? (size_t)(comma - v.p) : v.n));
		struct wd_sv at = comma ? wd_sv_trim(wd_sv_make(comma + 1, v.n - (size_t)(comma - v.p) - 1))
					: wd_sv_make("", 0);
		m->adapters = grow(m->adapters, m->nadapters, sizeof *m->adapters);
		struct bm_netbios *x = &m->adapters[m->nadapters++];
		x->n = (int)n;
		x->drivername = wd_sv_dup(dn);
		x->slot = at.n && !wd_sv_u64(at, 255, &slot) ? (long)slot : -1;
		x->line = i;
	}
}

/* A DriverName's owner gains file (NULL: any file). */
static void add_owner(struct bm_index *ix, struct wd_sv dn, const char *file)
{
	bool added;
	size_t *o = ni_put(&ix->owner_of, dn, ix->nowners, &added);
	if (added) {
		ix->owners = grow(ix->owners, ix->nowners, sizeof *ix->owners);
		ix->owners[ix->nowners++] = (struct bm_owner){file, !file};
		return;
	}
	struct bm_owner *w = &ix->owners[*o];
	if (!file || strcasecmp(w->file ? w->file : "", file))
		w->many = true;
}

/* What the NIFs and packages say, before any line is read. */
static void index_inputs(struct boot_model *m)
{
	struct bm_index *ix = m->ix;
	const struct boot_input *in = &m->in;
	ix->proto_line[0] = ix->proto_line[1] = -2;
	for (size_t k = 0; k < in->nnifs; k++) {
		if (in->nifs[k].error)
			continue;
		const struct nif *n = &in->nifs[k].nif;
		const char *fn = n->file_name;
		if (fn && fn[0])
			ni_put(&ix->nif_file, wd_sv_trim(wd_sv_cstr(fn)), k, NULL);
		if (n->drivername)
			add_owner(ix, wd_sv_cstr(n->drivername), fn);
	}
	for (size_t k = 0; k < in->npkgs; k++)
		for (int i = 1; i <= 8; i++) {
			char *dn = manifest_instance_drivername(in->pkgs[k], i);
			if (!dn)
				continue;
			ix->owned = grow(ix->owned, ix->nowned, sizeof *ix->owned);
			ix->owned[ix->nowned++] = dn;
			add_owner(ix, wd_sv_cstr(dn), in->pkgs[k]->driver);
		}
}

bool boot_section_dn(const struct boot_model *m, size_t s, struct wd_sv *dn)
{
	struct bm_index *ix = m->ix;
	const struct protocol_ini *pi = m->in.pi;
	if (!ix->dn_state) {
		ix->dn = wd_xcalloc(pi->nsec + 1, sizeof *ix->dn);
		ix->dn_state = wd_xcalloc(pi->nsec + 1, 1);
	}
	if (!ix->dn_state[s])
		ix->dn_state[s] = pi_get(pi, s, "DriverName", &ix->dn[s]) ? 2 : 1;
	if (ix->dn_state[s] == 2)
		*dn = ix->dn[s];
	return ix->dn_state[s] == 2;
}

bool boot_others_drivername(const struct boot_model *m, struct wd_sv dn, const char *file)
{
	const size_t *o = ni_get(&m->ix->owner_of, dn);
	if (!o)
		return false;
	const struct bm_owner *w = &m->ix->owners[*o];
	return !file || w->many || strcasecmp(w->file, file);
}

size_t boot_binding_rank(const struct boot_model *m, const char *name)
{
	const size_t *r = ni_get(&m->ix->bound, wd_sv_cstr(name));
	return r ? *r : m->ix->nranks;
}

static void index_free(struct bm_index *ix)
{
	if (!ix)
		return;
	struct nameidx *all[] = {&ix->nif_file, &ix->mac_file, &ix->mac_dn, &ix->bound,
				 &ix->owner_of, &ix->guessed, &ix->proto_of, &ix->cand_head, &ix->cand_count,
				 &ix->vendor};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++)
		ni_free(all[k]);
	free(ix->owners);
	for (size_t k = 0; k < ix->nowned; k++)
		free(ix->owned[k]);
	free(ix->owned);
	free(ix->dn);
	free(ix->dn_state);
	free(ix->cand);
	free(ix->cand_file);
	free(ix->cand_next);
	free(ix->cand_all);
	free(ix->vendor_next);
	free(ix);
}

/* The candidates worked out before a pairing are stale after it. */
static void forget_candidates(struct bm_index *ix)
{
	free(ix->cand);
	free(ix->cand_file);
	free(ix->cand_next);
	free(ix->cand_all);
	ni_free(&ix->cand_head);
	ni_free(&ix->cand_count);
	ix->cand = NULL;
	ix->cand_file = NULL;
	ix->cand_next = NULL;
	ix->cand_all = NULL;
	ix->ncand_all = 0;
	ix->cand_ok = false;
}

/* A MAC loaded under a file name that says nothing of its DriverName (a
 * generic one, AUTONIC's AUTO.OS2): when it is the one MAC whose DriverName
 * was guessed and has no section, and one bound section alone could be its
 * (answered by no loaded driver, its DriverName no other driver's), that
 * section is its: the load answers to its DriverName, still a guess (check
 * says so). Only one such MAC: more are the planner's to tell (--section). */
static void pair_by_elimination(struct boot_model *m)
{
	if (!m->in.pi || m->lanman)
		return;
	long only = -1;
	for (size_t k = 0; k < m->nmac; k++)
		if (m->mac[k].source == BM_GUESSED && m->mac[k].section < 0) {
			if (only >= 0)
				return;
			only = (long)k;
		}
	size_t c[2];
	if (only < 0 || boot_candidates(m, (size_t)only, NULL) != 1)
		return;
	candidates_first(m, (size_t)only, c);
	struct wd_sv dn;
	if (!boot_section_dn(m, c[0], &dn))
		return;
	struct bm_mac *x = &m->mac[only];
	/* the index of DriverNames holds the old name's bytes: made again,
	 * without it, before they are freed */
	char *old = x->drivername;
	x->drivername = wd_sv_dup(dn);
	x->section = (long)c[0];
	x->paired = true;
	ni_free(&m->ix->mac_dn);
	for (size_t k = 0; k < m->nmac; k++)
		ni_put(&m->ix->mac_dn, wd_sv_cstr(m->mac[k].drivername), k, NULL);
	free(old);
	forget_candidates(m->ix);
}

void boot_model_build(struct boot_model *m, const struct boot_input *in)
{
	memset(m, 0, sizeof *m);
	m->in = *in;
	m->ix = wd_xcalloc(1, sizeof *m->ix);
	m->netbind = -1;
	m->autonic = -1;
	m->lanman_line = -1;
	index_inputs(m);
	find_lanman(m);
	const struct config_sys *cs = in->cs;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(cs, i, &st))
			continue;
		if (is_mac_line_ix(in, m->ix, &st))
			add_mac(m, i, &st);
		else if (m->netbind < 0 && st.loads && wd_sv_ieq(st.name, "NETBIND.EXE") &&
			 (wd_sv_ieq(st.keyword, "CALL") || wd_sv_ieq(st.keyword, "RUN")))
			m->netbind = (long)i;
		else if (m->autonic < 0 && st.loads && wd_sv_ieq(st.keyword, "DEVICE") &&
			 wd_sv_ieq(st.name, "AUTONIC.SYS"))
			m->autonic = (long)i;
	}
	if (in->pi) {
		m->mpts = pi_section_by_driver(in->pi, 0, "PROTMAN$") >= 0;
		for (size_t s = 0; s < in->pi->nsec; s++)
			add_proto(m, s);
		read_adapters(m);
		pair_by_elimination(m);
	}
	for (size_t k = 0; k < m->nmac; k++)
		if (m->mac[k].source == BM_GUESSED && m->mac[k].section < 0) {
			ni_put(&m->ix->guessed, wd_sv_cstr(m->mac[k].file), k, NULL);
			m->ix->any_guessed = true;
		}
	boot_rules(m);
	check_sort(&m->rep);
}

void boot_model_free(struct boot_model *m)
{
	for (size_t k = 0; k < m->nmac; k++) {
		free(m->mac[k].file);
		free(m->mac[k].drivername);
	}
	free(m->mac);
	for (size_t k = 0; k < m->nproto; k++) {
		free(m->proto[k].drivername);
		pi_bindings_free(&m->proto[k].b);
	}
	free(m->proto);
	for (size_t k = 0; k < m->nadapters; k++)
		free(m->adapters[k].drivername);
	free(m->adapters);
	free(m->lanman_why);
	index_free(m->ix);
	check_report_free(&m->rep);
	memset(m, 0, sizeof *m);
}

long boot_answering(const struct boot_model *m, size_t s)
{
	struct wd_sv dn;
	if (!m->in.pi || !boot_section_dn(m, s, &dn))
		return -1;
	const size_t *k = ni_get(&m->ix->mac_dn, dn);
	return k ? (long)*k : -1;
}

/* ---- the postcondition ---- */

static const struct bm_proto *proto_named(const struct boot_model *m, const char *name)
{
	struct bm_index *ix = m->ix;
	if (!ix->proto_of.cap)
		for (size_t k = 0; k < m->nproto; k++)
			ni_put(&ix->proto_of, wd_sv_cstr(m->in.pi->sec[m->proto[k].section].name), k, NULL);
	const size_t *k = ni_get(&ix->proto_of, wd_sv_cstr(name));
	return k ? &m->proto[*k] : NULL;
}

static int rebound(const struct boot_model *old, const struct boot_model *new_,
		   const struct boot_change *c, struct wd_err *err)
{
	for (size_t k = 0; k < old->nproto; k++) {
		const struct bm_proto *p = &old->proto[k];
		const char *name = old->in.pi->sec[p->section].name;
		for (size_t i = 0; i < p->b.n; i++) {
			if (strcasecmp(p->b.slot[i], c->old_section))
				continue;
			const struct bm_proto *q = proto_named(new_, name);
			const char *now = q && i < q->b.n ? q->b.slot[i] : "";
			if (!strcasecmp(now, c->new_section))
				continue;
			return wd_err_set(err, WD_EFAIL, "the plan fails its check: [%s] was bound "
					  "to [%s] at position %zu and would be bound to %s%s%s "
					  "there instead of [%s]; nothing was written", name,
					  c->old_section, i + 1, *now ? "[" : "nothing", now,
					  *now ? "]" : "", c->new_section);
		}
	}
	return 0;
}

/* The DEVICE= line of old whose driver, its DriverName unknown, may answer
 * to section name (one of its candidates: boot_candidates' rule, read from
 * its index in one pass over the MACs), or -1. */
static long line_that_may_answer(const struct boot_model *old, const char *name)
{
	long s = pi_section(old->in.pi, name);
	if (s < 0 || !old->nmac)
		return -1;
	boot_candidates(old, 0, NULL); /* the index, worked out once */
	const struct bm_index *ix = old->ix;
	for (size_t k = 0; ix->cand && k < old->nmac; k++) {
		if (old->mac[k].source != BM_GUESSED || old->mac[k].section >= 0)
			continue;
		if (ix->cand[s] == 1 ||
		    (ix->cand[s] == 2 && !strcasecmp(ix->cand_file[s], old->mac[k].file)))
			return (long)k;
	}
	return -1;
}

static int bindings_answered(const struct boot_model *old, const struct boot_model *m,
			     struct wd_err *err)
{
	for (size_t k = 0; k < m->nproto; k++) {
		const struct bm_proto *p = &m->proto[k];
		for (size_t i = 0; i < p->b.n; i++) {
			if (!p->b.slot[i][0])
				continue;
			long s = pi_section(m->in.pi, p->b.slot[i]);
			if (s >= 0 && boot_answering(m, (size_t)s) >= 0)
				continue;
			long mac = line_that_may_answer(old, p->b.slot[i]);
			if (mac >= 0) {
				const struct bm_mac *x = &old->mac[mac];
				struct wd_sv t = tl_text(&old->in.cs->t, x->line);
				return wd_err_set(err, WD_EFAIL, "the plan fails its check: [%s] would "
						  "be bound to %s, which no driver loaded by CONFIG.SYS "
						  "answers to; it is the section CONFIG.SYS line %zu "
						  "(%.*s) may answer to, whose DriverName no NIF on the "
						  "volume gives: put that driver's NIF in \\IBMCOM\\MACS to "
						  "make it certain, then run again; nothing was written",
						  m->in.pi->sec[p->section].name, p->b.slot[i],
						  x->line + 1, SV(t));
			}
			return wd_err_set(err, WD_EFAIL, "the plan fails its check: [%s] would be "
					  "bound to %s, which no driver loaded by CONFIG.SYS answers "
					  "to; nothing was written", m->in.pi->sec[p->section].name,
					  p->b.slot[i]);
		}
	}
	return 0;
}

/* Codes are lower-case words that differ in more than case, so one index
 * without case serves report_find_error's strcmp of code, strcasecmp of
 * key. */
static char *error_key(const char *code, const char *key, size_t *len)
{
	size_t c = strlen(code), k = strlen(key);
	char *p = wd_xmalloc(c + k + 2);
	memcpy(p, code, c + 1);
	memcpy(p + c + 1, key, k + 1);
	*len = c + 1 + k;
	return p;
}

int boot_postcondition(const struct boot_model *old, const struct boot_model *new_,
		       const struct boot_change *ch, size_t n, struct wd_err *err)
{
	if (!old->in.pi || !new_->in.pi)
		return wd_err_set(err, WD_EFAIL, "the plan fails its check: no PROTOCOL.INI to "
				  "judge it by; nothing was written");
	int r = 0;
	const struct finding *first_old = NULL;
	for (size_t i = 0; !r && i < n; i++)
		if (ch[i].old_section)
			r = rebound(old, new_, &ch[i], err);
	if (!r)
		r = bindings_answered(old, new_, err);
	/* The old errors by code and key ("code\0key"), looked up once each. */
	struct nameidx had = {0};
	char **keys = wd_xcalloc(old->rep.n + 1, sizeof *keys);
	size_t *lens = wd_xcalloc(old->rep.n + 1, sizeof *lens);
	for (size_t i = 0; !r && i < old->rep.n; i++) {
		const struct finding *f = &old->rep.v[i];
		if (f->severity != CHECK_ERROR)
			continue;
		keys[i] = error_key(f->code, f->key, &lens[i]);
		ni_put(&had, wd_sv_make(keys[i], lens[i]), i, NULL);
	}
	for (size_t i = 0; !r && i < new_->rep.n; i++) {
		const struct finding *f = &new_->rep.v[i];
		if (f->severity != CHECK_ERROR)
			continue;
		size_t len;
		char *key = error_key(f->code, f->key, &len);
		const size_t *was = ni_get(&had, wd_sv_make(key, len));
		bool known = was != NULL;
		free(key);
		/* An error the old files had already is not the plan's: said so,
		 * in check's words, so that the user repairs it (docs/setup.md,
		 * "Before and after"). */
		if (!known)
			r = wd_err_set(err, WD_EFAIL, "the plan fails its check: after it, %s line "
				       "%zu: %s [%s]; nothing was written", f->file, f->line,
				       f->message, f->code);
		else if (!first_old)
			first_old = &old->rep.v[*was]; /* its line in the files as they are */
	}
	if (!r && first_old)
		r = wd_err_set(err, WD_EFAIL, "already broken before this change: %s line %zu: %s "
			       "[%s]; repair that first, then run again; nothing was written",
			       first_old->file, first_old->line, first_old->message, first_old->code);
	for (size_t i = 0; i < old->rep.n; i++)
		free(keys[i]);
	free(keys);
	free(lens);
	ni_free(&had);
	return r;
}
