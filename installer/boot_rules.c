/* The networking rules over the boot model: each is an error only where
 * the model is sure the guest will fail, else a warning that says what
 * could not be verified. docs/config-files.md lists them. */
#include "installer/boot_model.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "installer/medium.h"

#define SV(v) (int)(v).n, (v).p
#define CS "CONFIG.SYS"
/* A warning names at most this many candidate sections. */
#define BM_NAMED_MAX 16

static const char *pi_file(const struct boot_model *m)
{
	return m->in.pi_label ? m->in.pi_label : WD_IBMCOM_PROTOCOL_INI;
}

static void rule_order(struct boot_model *m)
{
	if (!m->nmac)
		return;
	const struct bm_mac *first = &m->mac[0];
	if (m->netbind >= 0 && (size_t)m->netbind < first->line) {
		struct cs_stmt st;
		config_sys_stmt(m->in.cs, (size_t)m->netbind, &st);
		report_add(&m->rep, CS, (size_t)m->netbind + 1, CHECK_ERROR, "netbind-order", "",
			   "%.*s=%.*s comes before the MAC driver %s (line %zu), so it binds "
			   "nothing: move it after the MAC and protocol DEVICE= lines",
			   SV(st.keyword), SV(st.path), first->file, first->line + 1);
	}
	long p = m->in.loc ? m->in.loc->protman : -1;
	if (p >= 0 && (size_t)p > first->line)
		report_add(&m->rep, CS, (size_t)p + 1, CHECK_ERROR, "protman-order", "",
			   "PROTMAN.OS2 comes after the MAC driver %s (line %zu); it must be the "
			   "first NDIS driver: move this line before the MAC DEVICE= lines",
			   first->file, first->line + 1);
	if (p < 0)
		report_add(&m->rep, CS, first->line + 1, CHECK_ERROR, "mac-without-protman", "",
			   "the MAC driver %s is loaded but no DEVICE= line loads PROTMAN.OS2, "
			   "so it cannot start: add DEVICE=%c:\\IBMCOM\\PROTMAN.OS2 /I:%c:\\IBMCOM "
			   "before it, or REM this line", first->file,
			   m->in.loc ? m->in.loc->drive : 'C', m->in.loc ? m->in.loc->drive : 'C');
}

/* Is any protocol bound to an adapter? */
static bool any_binding(const struct boot_model *m)
{
	return m->ix->any_binding;
}

bool boot_netbind_fix(const struct boot_model *m, char **line, char **os2path, size_t *after)
{
	if (!m->nmac)
		return false;
	size_t last = m->mac[m->nmac - 1].line;
	for (size_t k = 0; k < m->nproto; k++)
		if (m->proto[k].line > (long)last)
			last = (size_t)m->proto[k].line;
	/* Protocol drivers nothing binds (NETBIOS.OS2) and MPTN's load before
	 * NETBIND too (docs/os2-facts.md, "CONFIG.SYS"): the last DEVICE= line from a
	 * PROTOCOL folder. */
	size_t nl = config_sys_lines(m->in.cs);
	for (size_t i = last + 1; i < nl; i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(m->in.cs, i, &st) || !wd_sv_ieq(st.keyword, "DEVICE") ||
		    st.dir.n < 10)
			continue;
		struct wd_sv tail = wd_sv_make(st.dir.p + st.dir.n - 10, 10);
		if (wd_sv_ieq(tail, "\\PROTOCOL\\"))
			last = i;
	}
	const struct pi_location *loc = m->in.loc;
	char d = loc ? loc->drive : 'C';
	const char *dir = loc && loc->dir ? loc->dir : "\\IBMCOM";
	*after = last;
	*line = wd_xasprintf("CALL=%c:%s\\PROTOCOL\\NETBIND.EXE", d, dir);
	*os2path = loc && loc->where == PI_OTHER_DRIVE ? NULL
		   : wd_xasprintf("%s\\PROTOCOL\\NETBIND.EXE", dir);
	return true;
}

static void rule_netbind(struct boot_model *m)
{
	char *line, *path;
	size_t last;
	if (m->netbind >= 0 || !any_binding(m) || !boot_netbind_fix(m, &line, &path, &last))
		return;
	if (m->in.netbind_file < 0)
		report_add(&m->rep, CS, last + 1, CHECK_ERROR, "no-netbind", "",
			   "no CALL= line runs NETBIND.EXE, so no protocol is bound to an adapter "
			   "and the network does not start, and NETBIND.EXE is not at %c:%s on this "
			   "volume: copy MPTS's NETBIND.EXE there, then add %s after this line (the "
			   "last MAC or protocol driver)", line[5], path ? path : "", line);
	else
		report_add(&m->rep, CS, last + 1, CHECK_ERROR, "no-netbind", "",
			   "no CALL= line runs NETBIND.EXE, so no protocol is bound to an adapter and "
			   "the network does not start: add %s after this line (the last MAC or "
			   "protocol driver)", line);
	free(line);
	free(path);
}

static void rule_where(struct boot_model *m)
{
	const struct pi_location *loc = m->in.loc;
	if (m->in.stale_ibmcom)
		report_add(&m->rep, WD_IBMCOM_PROTOCOL_INI, 0, CHECK_WARNING, "protocol-ini-unused", "",
			   "PROTMAN.OS2 reads %c:%s\\PROTOCOL.INI (its /I: switch), not this file: "
			   "it is unused; edit that one, and delete or keep this one as you like",
			   loc->drive, loc->dir);
	if (loc && loc->where == PI_OTHER_DRIVE)
		report_add(&m->rep, CS, (size_t)loc->protman + 1, CHECK_WARNING, "protocol-ini-elsewhere",
			   "", "PROTMAN.OS2 reads %c:%s\\PROTOCOL.INI, on drive %c:, not on this "
			   "volume: its bindings could not be checked; check the volume of drive "
			   "%c: too, or run with --boot-drive %c: if this volume is that drive",
			   loc->drive, loc->dir, loc->drive, loc->drive, loc->drive);
}

static void rule_pi_missing(struct boot_model *m)
{
	const struct pi_location *loc = m->in.loc;
	long line = loc && loc->protman >= 0 ? loc->protman : m->nmac ? (long)m->mac[0].line : -1;
	if (line < 0)
		return;
	report_add(&m->rep, CS, (size_t)line + 1, CHECK_ERROR, "protocol-ini-missing", "",
		   "this line loads an NDIS driver but the volume has no %s%s: configure "
		   "networking (MPTS, or warpdrv configure nic)%s",
		   loc ? loc->path : WD_IBMCOM_PROTOCOL_INI,
		   loc && loc->by_switch ? " (the folder PROTMAN's /I: names)" : "",
		   loc && loc->by_switch ? ", or correct the /I: folder" : " or REM the line");
}

static bool bound_somewhere(const struct boot_model *m, const char *name)
{
	return ni_get(&m->ix->bound, wd_sv_cstr(name)) != NULL;
}

/* Is dn the DriverName of a driver other than file (NULL: of any driver),
 * as a NIF on the volume or a package says (instances included)? */
static bool others_drivername(const struct boot_model *m, struct wd_sv dn, const char *file)
{
	return boot_others_drivername(m, dn, file);
}

/* Which sections are candidates, for which MACs: worked out once. A section
 * bound somewhere, with a DriverName no loaded driver answers to, is one
 * for every MAC when no NIF or package gives that DriverName, for the MACs
 * of file F when only F's do, else for none. */
static void index_candidates(const struct boot_model *m)
{
	struct bm_index *ix = m->ix;
	const struct protocol_ini *pi = m->in.pi;
	size_t n = pi ? pi->nsec : 0;
	ix->cand = wd_xcalloc(n + 1, 1);
	ix->cand_file = wd_xcalloc(n + 1, sizeof *ix->cand_file);
	ix->cand_next = wd_xcalloc(n + 1, sizeof *ix->cand_next);
	ix->cand_all = wd_xcalloc(n + 1, sizeof *ix->cand_all);
	for (size_t s = 0; s < n; s++) {
		struct wd_sv dn;
		if (!bound_somewhere(m, pi->sec[s].name) || !boot_section_dn(m, s, &dn))
			continue;
		if (boot_answering(m, s) >= 0)
			continue;
		const size_t *o = ni_get(&ix->owner_of, dn);
		if (!o) {
			ix->cand[s] = 1;
			ix->cand_all[ix->ncand_all++] = s;
		} else if (!ix->owners[*o].many) {
			ix->cand[s] = 2;
			ix->cand_file[s] = ix->owners[*o].file;
		}
	}
	/* Each file's list in file order: built from the last section. */
	for (size_t s = n; s-- > 0;) {
		if (ix->cand[s] != 2)
			continue;
		bool added;
		size_t *head = ni_put(&ix->cand_head, wd_sv_cstr(ix->cand_file[s]), s, &added);
		ix->cand_next[s] = added ? (size_t)-1 : *head;
		*head = s;
		++*ni_put(&ix->cand_count, wd_sv_cstr(ix->cand_file[s]), 0, NULL);
	}
	ix->cand_ok = true;
}

/* Up to max candidates of MAC mac, in file order, into out (NULL: none);
 * how many there are in all. */
static size_t candidates_of(const struct boot_model *m, size_t mac, size_t *out, size_t max)
{
	struct bm_index *ix = m->ix;
	if (!m->in.pi)
		return 0;
	if (!ix->cand_ok)
		index_candidates(m);
	struct wd_sv file = wd_sv_cstr(m->mac[mac].file);
	const size_t *head = ni_get(&ix->cand_head, file), *count = ni_get(&ix->cand_count, file);
	size_t total = ix->ncand_all + (count ? *count : 0);
	size_t a = 0, b = head ? *head : (size_t)-1;
	for (size_t n = 0; out && n < max && n < total; n++) {
		if (b == (size_t)-1 || (a < ix->ncand_all && ix->cand_all[a] < b)) {
			out[n] = ix->cand_all[a++];
		} else {
			out[n] = b;
			b = ix->cand_next[b];
		}
	}
	return total;
}

size_t boot_candidates(const struct boot_model *m, size_t mac, size_t *out)
{
	return candidates_of(m, mac, out, (size_t)-1);
}

void candidates_first(const struct boot_model *m, size_t mac, size_t *out)
{
	candidates_of(m, mac, out, 1);
}

/* A MAC whose DriverName was guessed and matches no section, while some
 * section could be its: a warning naming them. */
static void guessed_no_section(struct boot_model *m, size_t k)
{
	const struct bm_mac *x = &m->mac[k];
	/* The first few: a message per MAC naming every section would grow
	 * with the square of the files. */
	size_t c[BM_NAMED_MAX];
	size_t n = candidates_of(m, k, c, BM_NAMED_MAX);
	struct wd_buf b = {0};
	for (size_t i = 0; i < n && i < BM_NAMED_MAX; i++)
		wd_buf_addf(&b, "%s[%s]", i ? ", " : "", m->in.pi->sec[c[i]].name);
	if (n > BM_NAMED_MAX)
		wd_buf_addf(&b, " and %zu more", n - BM_NAMED_MAX);
	report_add(&m->rep, CS, x->line + 1, CHECK_WARNING, "mac-no-section", x->drivername,
		   "the MAC driver %s is loaded here; its DriverName could not be verified (no "
		   "NIF in \\IBMCOM\\MACS names %s) and no section has DriverName = %s, the "
		   "usual name; it may answer to %s: put the driver's NIF in \\IBMCOM\\MACS to "
		   "make it certain", x->file, x->file, x->drivername, b.p);
	wd_buf_free(&b);
}

static void rule_mac_sections(struct boot_model *m)
{
	for (size_t k = 0; k < m->nmac; k++) {
		const struct bm_mac *x = &m->mac[k];
		if (x->paired)
			report_add(&m->rep, CS, x->line + 1, CHECK_WARNING, "mac-no-section",
				   x->file, "the MAC driver %s is loaded here; its DriverName could "
				   "not be verified (no NIF in \\IBMCOM\\MACS names %s), and [%s] is "
				   "the one bound MAC section no other driver answers to, so it is "
				   "taken for this driver's (DriverName = %s): put the driver's NIF in "
				   "\\IBMCOM\\MACS to make it certain", x->file, x->file,
				   m->in.pi->sec[x->section].name, x->drivername);
		if (x->section >= 0)
			continue;
		if (x->source != BM_GUESSED || !candidates_of(m, k, NULL, 0))
			report_add(&m->rep, CS, x->line + 1, CHECK_ERROR, "mac-no-section", x->drivername,
				   "the MAC driver %s is loaded here but %s has no section with "
				   "DriverName = %s (%s), so it will not start: add the section, or "
				   "REM this line", x->file, pi_file(m), x->drivername,
				   x->source == BM_FROM_NIF ? "its NIF says so"
				   : x->source == BM_FROM_PACKAGE ? "its package says so"
				   : "the usual name; no section could be its");
		else
			guessed_no_section(m, k);
	}
}

/* Is section s a MAC's: bound, or named by a NIF's or a package's DriverName? */
static bool is_mac_section(const struct boot_model *m, size_t s)
{
	const struct protocol_ini *pi = m->in.pi;
	if (bound_somewhere(m, pi->sec[s].name))
		return true;
	struct wd_sv dn;
	if (!boot_section_dn(m, s, &dn))
		return false;
	return others_drivername(m, dn, NULL);
}

/* Could a loaded driver whose DriverName was guessed answer to dn? */
static bool guessed_may_answer(const struct boot_model *m, struct wd_sv dn)
{
	/* Such a driver may unless a NIF or package gives dn to another
	 * file: given by none, any of them may; by one file, its own lines. */
	const size_t *o = ni_get(&m->ix->owner_of, dn);
	if (!o)
		return m->ix->any_guessed;
	const struct bm_owner *w = &m->ix->owners[*o];
	return !w->many && ni_get(&m->ix->guessed, wd_sv_cstr(w->file)) != NULL;
}

static void rule_sections_loaded(struct boot_model *m)
{
	const struct protocol_ini *pi = m->in.pi;
	for (size_t s = 0; s < pi->nsec; s++) {
		if (!is_mac_section(m, s))
			continue;
		struct wd_sv dn;
		const char *name = pi->sec[s].name;
		if (!boot_section_dn(m, s, &dn)) {
			report_add(&m->rep, pi_file(m), pi->sec[s].header + 1, CHECK_ERROR,
				   "section-no-driver", name,
				   "[%s] is bound as a network adapter but has no DriverName: add "
				   "DriverName = <driver>$ or remove the section and its bindings", name);
			continue;
		}
		if (boot_answering(m, s) >= 0)
			continue;
		bool sure = !guessed_may_answer(m, dn);
		report_add(&m->rep, pi_file(m), pi->sec[s].header + 1, sure ? CHECK_ERROR : CHECK_WARNING,
			   "section-no-driver", name,
			   "[%s] is for the MAC driver %.*s, which no DEVICE= line in CONFIG.SYS "
			   "loads%s: add its DEVICE= line after PROTMAN.OS2, or remove the section "
			   "and its bindings%s", name, SV(dn),
			   sure ? "" : " as far as could be verified (a driver without a NIF on the "
				       "volume may answer to it)",
			   sure ? "" : "; a NIF for each MAC driver in \\IBMCOM\\MACS makes it certain");
	}
}

static bool section_named(const struct protocol_ini *pi, const char *name)
{
	return pi_section(pi, name) >= 0;
}

static void rule_bindings(struct boot_model *m)
{
	const struct protocol_ini *pi = m->in.pi;
	for (size_t k = 0; k < m->nproto; k++) {
		const struct bm_proto *p = &m->proto[k];
		const char *name = pi->sec[p->section].name;
		for (size_t i = 0; i < p->b.n; i++)
			if (p->b.slot[i][0] && !section_named(pi, p->b.slot[i]))
				report_add(&m->rep, pi_file(m), (size_t)p->bindings_line + 1, CHECK_ERROR,
					   "binding-unknown", p->b.slot[i],
					   "[%s] binds to %s, but there is no section [%s]: fix the "
					   "name or add the adapter's section", name, p->b.slot[i],
					   p->b.slot[i]);
		if (p->file && p->line < 0 && any_binding(m))
			report_add(&m->rep, pi_file(m), (size_t)p->bindings_line + 1, CHECK_ERROR,
				   "protocol-not-loaded", name,
				   "[%s] is bound, but no DEVICE= line in CONFIG.SYS loads its driver "
				   "%s: add DEVICE=...\\IBMCOM\\PROTOCOL\\%s before NETBIND, or remove "
				   "the section", name, p->file, p->file);
	}
}

static void rule_lxcfg(struct boot_model *m)
{
	const struct protocol_ini *pi = m->in.pi;
	long s = pi_section(pi, "IBMLXCFG");
	if (s < 0)
		return;
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++) {
		struct wd_sv k, v;
		if (!pi_line_key(pi, i, &k, &v))
			continue;
		char *key = wd_sv_dup(k);
		if (!section_named(pi, key))
			report_add(&m->rep, pi_file(m), i + 1, CHECK_ERROR, "lxcfg-unknown", key,
				   "[IBMLXCFG] lists %s, but there is no section [%s]: remove the "
				   "entry or add the section", key, key);
		free(key);
	}
}

static void rule_drivername_twice(struct boot_model *m)
{
	const struct protocol_ini *pi = m->in.pi;
	for (size_t s = 0; s < pi->nsec; s++) {
		struct wd_sv dn;
		if (!boot_section_dn(m, s, &dn))
			continue;
		long first = pi_first_with_driver(pi, dn);
		if (first < 0 || (size_t)first >= s)
			continue;
		size_t t = (size_t)first;
		report_add(&m->rep, pi_file(m), (size_t)pi_key_line(pi, s, "DriverName") + 1,
			   CHECK_ERROR, "drivername-twice", pi->sec[s].name,
			   "[%s] and [%s] both have DriverName = %.*s; a driver reads only "
			   "one: remove one of them", pi->sec[t].name, pi->sec[s].name, SV(dn));
	}
}

/* Is value "yes" (quoted or not, any case)? */
static bool says_yes(struct wd_sv v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"')
		v = wd_sv_make(v.p + 1, v.n - 2);
	return wd_sv_ieq(v, "yes");
}

/* The medium: a protocol bound to a driver of a package (Ethernet: every
 * driver warpdrv installs) whose section selects another medium and no
 * Ethernet frame gets no frame it accepts (docs/setup.md, "The medium"). */
static void rule_medium(struct boot_model *m)
{
	const struct protocol_ini *pi = m->in.pi;
	for (size_t k = 0; k < m->nproto; k++) {
		const struct bm_proto *p = &m->proto[k];
		const struct medium_protocol *mp = NULL;
		for (size_t i = 0; i < medium_nprotocols && !mp; i++)
			if (!strcasecmp(p->drivername, medium_protocols[i].drivername))
				mp = &medium_protocols[i];
		if (!mp)
			continue;
		const char *eth = NULL;
		for (size_t i = 0; i < p->b.n && !eth; i++) {
			long s = p->b.slot[i][0] ? pi_section(pi, p->b.slot[i]) : -1;
			long x = s >= 0 ? boot_answering(m, (size_t)s) : -1;
			if (x >= 0 && m->mac[x].pkg)
				eth = p->b.slot[i];
		}
		if (!eth)
			continue;
		struct wd_buf on = {0}, frames = {0};
		bool any_eth = false;
		for (size_t i = 0; mp->ethernet[i]; i++) {
			struct wd_sv v;
			any_eth |= pi_get(pi, p->section, mp->ethernet[i], &v) && says_yes(v);
			wd_buf_addf(&frames, "%s%s", i ? ", " : "", mp->ethernet[i]);
		}
		for (size_t i = 0; mp->other[i]; i++) {
			struct wd_sv v;
			if (pi_get(pi, p->section, mp->other[i], &v) && says_yes(v))
				wd_buf_addf(&on, "%s%s = %.*s", on.len ? ", " : "", mp->other[i], SV(v));
		}
		const char *name = pi->sec[p->section].name;
		if (on.len && !any_eth) {
			long line = pi_key_line(pi, p->section, "DriverName");
			report_add(&m->rep, pi_file(m), (size_t)(line >= 0 ? line : (long)pi->sec[p->section].header) + 1,
				   CHECK_ERROR, "medium", name,
				   "[%s] (%s) selects another medium (%s) and no Ethernet frame, but it "
				   "is bound to [%s], an Ethernet adapter: it would get no frame it "
				   "accepts; set the frame your network uses to \"yes\" (one of %s) and "
				   "%s to \"no\" in [%s]", name, mp->what, on.p, eth, frames.p,
				   mp->other[0], name);
		}
		wd_buf_free(&on);
		wd_buf_free(&frames);
	}
}

void boot_rules(struct boot_model *m)
{
	if (m->lanman) {
		/* Not MPTS: its rules would be wrong here. */
		report_add(&m->rep, CS, (size_t)m->lanman_line + 1, CHECK_WARNING, "not-mpts", "",
			   "networking is LAN Manager's (%s), not MPTS: warpdrv checks and "
			   "configures MPTS only, so it was not checked", m->lanman_why);
		return;
	}
	rule_order(m);
	rule_where(m);
	const struct pi_location *loc = m->in.loc;
	if (loc && loc->where == PI_OTHER_DRIVE)
		return;
	if (!m->in.pi) {
		rule_pi_missing(m);
		return;
	}
	if (!m->mpts) {
		report_add(&m->rep, pi_file(m), 0, CHECK_ERROR, "protocol-ini-not-mpts", "",
			   "PROTMAN reads this file, but it has no [PROT_MAN] section with "
			   "DriverName = PROTMAN$ (it is empty, damaged or not an MPTS file): "
			   "configure networking again with MPTS");
		return;
	}
	rule_netbind(m);
	if (m->autonic >= 0)
		report_add(&m->rep, CS, (size_t)m->autonic + 1, CHECK_WARNING, "autonic", "",
			   "AUTONIC.SYS is loaded here: at each boot it finds the card and copies "
			   "the files of its folder \\IBMCOM\\AUTO\\VVVV.DDDD (the card's PCI "
			   "vendor and device) over \\IBMCOM\\PROTOCOL.INI and "
			   "\\IBMCOM\\MACS\\AUTO.OS2, so a change made to those two does not "
			   "last: make it in that folder, or REM this line and load the card's "
			   "driver by its own name");
	rule_mac_sections(m);
	rule_sections_loaded(m);
	rule_bindings(m);
	rule_lxcfg(m);
	rule_drivername_twice(m);
	rule_medium(m);
}
