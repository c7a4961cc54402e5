#include "installer/check.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"

#define SV(v) (int)(v).n, (v).p
#define CONFIG_FILE_MAX (4u << 20)

static void add(struct check_report *rep, const char *file, size_t line,
		enum check_severity sev, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void add(struct check_report *rep, const char *file, size_t line,
		enum check_severity sev, const char *code, const char *fmt, ...)
{
	rep->v = wd_xrealloc(rep->v, (rep->n + 1) * sizeof *rep->v);
	struct finding *f = &rep->v[rep->n++];
	f->file = wd_xstrdup(file);
	f->line = line;
	f->severity = sev;
	f->code = code;
	struct wd_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	wd_buf_reserve(&b, len > 0 ? (size_t)len : 0);
	va_start(ap, fmt);
	vsnprintf(b.p, (size_t)len + 1, fmt, ap);
	va_end(ap);
	f->message = b.p;
	if (sev == CHECK_ERROR)
		rep->errors++;
}

void check_report_free(struct check_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->v[i].file);
		free(rep->v[i].message);
	}
	free(rep->v);
	memset(rep, 0, sizeof *rep);
}

static bool before(const struct finding *x, const struct finding *y)
{
	/* CONFIG.SYS first: it is read first at boot. */
	int xc = strcmp(x->file, "CONFIG.SYS") != 0, yc = strcmp(y->file, "CONFIG.SYS") != 0;
	if (xc != yc)
		return xc < yc;
	int c = strcmp(x->file, y->file);
	if (c)
		return c < 0;
	return x->line < y->line;
}

void check_sort(struct check_report *rep)
{
	/* Insertion sort: stable, so findings on one line keep the rules'
	 * order, and a report holds a handful of findings. */
	for (size_t i = 1; i < rep->n; i++) {
		struct finding f = rep->v[i];
		size_t j = i;
		while (j > 0 && before(&f, &rep->v[j - 1])) {
			rep->v[j] = rep->v[j - 1];
			j--;
		}
		rep->v[j] = f;
	}
}

/* ---- CONFIG.SYS alone ---- */

static void check_line_endings(const struct config_sys *cs, struct check_report *rep)
{
	size_t first = 0;
	size_t n = tl_count_lf_only(&cs->t, &first);
	if (!n)
		return;
	add(rep, "CONFIG.SYS", first + 1, CHECK_ERROR, "line-endings",
	    "%zu of %zu lines end in LF alone (the first is line %zu); OS/2 misreads such a "
	    "CONFIG.SYS and stops at boot (SYS02068): save it with CR LF line endings",
	    n, config_sys_lines(cs), first + 1);
}

static bool on_volume(const struct volume *v, const char *os2path)
{
	char *host = NULL;
	bool found = false;
	struct wd_err e;
	if (volume_resolve(v, os2path, &host, &found, &e) < 0)
		return false;
	free(host);
	return found;
}

/* A bare name ("ACPI.PSD", "TESTCFG.SYS") is looked up where OS/2 looks for
 * a PSD or a BASEDEV: the root, \OS2 and \OS2\BOOT. */
static bool bare_on_volume(const struct volume *v, struct wd_sv name)
{
	static const char *const dirs[] = {"", "OS2\\", "OS2\\BOOT\\"};
	for (int k = 0; k < 3; k++) {
		char *p = wd_xasprintf("\\%s%.*s", dirs[k], SV(name));
		bool ok = on_volume(v, p);
		free(p);
		if (ok)
			return true;
	}
	return false;
}

static void check_files(const struct volume *v, const struct config_sys *cs, size_t i,
			const struct cs_stmt *st, struct check_report *rep)
{
	if (!st->name.n)
		return;
	bool psd = wd_sv_ieq(st->keyword, "PSD");
	if (psd && (st->drive || st->dir.n)) {
		add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "psd-path",
		    "PSD= must name a file without a drive or path: write PSD=%.*s%s%.*s "
		    "(OS/2 finds it in \\OS2\\BOOT)",
		    SV(st->name), st->args.n ? " " : "", SV(st->args));
		return;
	}
	/* Another drive's files are not on this volume; nothing to say. */
	if (st->drive && st->drive != v->boot_drive)
		return;
	bool found;
	if (!st->dir.n) {
		found = bare_on_volume(v, st->name);
	} else {
		char *p = wd_xasprintf("%.*s%.*s", SV(st->dir), SV(st->name));
		found = on_volume(v, p);
		free(p);
	}
	(void)cs;
	if (!found)
		add(rep, "CONFIG.SYS", i + 1, CHECK_WARNING, "file-missing",
		    "%.*s= loads %.*s, which is not on the volume%s: install the file or "
		    "REM the line",
		    SV(st->keyword), SV(st->path),
		    st->dir.n ? "" : " (looked in \\, \\OS2 and \\OS2\\BOOT)");
}

static bool loads_name(const struct cs_stmt *st, const char *keyword, const char *name)
{
	return st->loads && (!keyword || wd_sv_ieq(st->keyword, keyword)) &&
	       wd_sv_ieq(st->name, name);
}

static void check_acpi(const struct config_sys *cs, struct check_report *rep)
{
	long acpi = -1;
	struct cs_stmt st;
	for (size_t i = 0; i < config_sys_lines(cs) && acpi < 0; i++)
		if (config_sys_stmt(cs, i, &st) && loads_name(&st, "PSD", "ACPI.PSD"))
			acpi = (long)i;
	if (acpi < 0)
		return;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		if (!config_sys_stmt(cs, i, &st))
			continue;
		if (loads_name(&st, "PSD", "OS2APIC.PSD") || loads_name(&st, NULL, "APM.SYS") ||
		    loads_name(&st, NULL, "VAPM.SYS"))
			add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "acpi-conflict",
			    "%.*s cannot be loaded together with PSD=ACPI.PSD (line %ld): the ACPI "
			    "PSD replaces it; REM or remove this line",
			    SV(st.name), acpi + 1);
	}
}

void check_config_sys(const struct volume *v, const struct config_sys *cs,
		      struct check_report *rep)
{
	check_line_endings(cs, rep);
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		if (config_sys_stmt(cs, i, &st) && st.loads)
			check_files(v, cs, i, &st, rep);
	}
	check_acpi(cs, rep);
}

/* ---- networking ---- */

/* One DEVICE= line that loads a MAC driver. */
struct mac_load {
	size_t line;
	struct wd_sv name;   /* "E1000.OS2" */
	char *drivername;    /* of its first instance: "E1000$" */
	int instance;        /* 1 for the first line loading this file, 2 for the next... */
};

/* Does a section's DriverName name instance k of the driver whose first
 * instance is `first`? Extra instances are named two ways: MultiMac appends
 * the number (MMLEM$, MMLEM2$), Intel's E1000 replaces the last character
 * (E1000$, E1002$). Both are accepted. */
static bool instance_name(const char *first, int k, struct wd_sv dn)
{
	size_t n = strlen(first);
	if (n && first[n - 1] == '$')
		n--;
	if (k == 1) {
		char *s = wd_xasprintf("%.*s$", (int)n, first);
		bool eq = wd_sv_ieq(dn, s);
		free(s);
		return eq;
	}
	char *a = wd_xasprintf("%.*s%d$", (int)n, first, k);
	char *b = n ? wd_xasprintf("%.*s%d$", (int)n - 1, first, k) : wd_xstrdup("");
	bool eq = wd_sv_ieq(dn, a) || (*b && wd_sv_ieq(dn, b));
	free(a);
	free(b);
	return eq;
}

static const struct nif *nif_for_file(const struct check_nif *nifs, size_t nnif,
				      struct wd_sv name)
{
	for (size_t k = 0; k < nnif; k++) {
		const char *fn = nifs[k].nif.file_name;
		if (fn && tl_sv_ieq(wd_sv_trim(wd_sv_cstr(fn)), name))
			return &nifs[k].nif;
	}
	return NULL;
}

static bool in_macs_dir(struct wd_sv dir)
{
	const char *tail = "IBMCOM\\MACS\\";
	size_t n = strlen(tail);
	if (dir.n < n)
		return false;
	struct wd_sv end = wd_sv_make(dir.p + dir.n - n, n);
	if (dir.n > n && dir.p[dir.n - n - 1] != '\\')
		return false;
	return wd_sv_ieq(end, tail);
}

static size_t collect_macs(const struct config_sys *cs, const struct check_nif *nifs,
			   size_t nnif, struct mac_load **out)
{
	struct mac_load *m = NULL;
	size_t n = 0;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(cs, i, &st) || !wd_sv_ieq(st.keyword, "DEVICE") || !st.name.n)
			continue;
		const struct nif *nif = nif_for_file(nifs, nnif, st.name);
		if (!nif && !in_macs_dir(st.dir))
			continue;
		m = wd_xrealloc(m, (n + 1) * sizeof *m);
		m[n].line = i;
		m[n].name = st.name;
		if (nif) {
			m[n].drivername = wd_xstrdup(nif->drivername);
		} else {
			/* No NIF: the <NAME>.OS2 / <NAME>$ convention. */
			struct wd_sv stem = st.name;
			const char *dot = memchr(stem.p, '.', stem.n);
			if (dot)
				stem.n = (size_t)(dot - stem.p);
			m[n].drivername = wd_xasprintf("%.*s$", SV(stem));
		}
		m[n].instance = 1;
		for (size_t k = 0; k < n; k++)
			if (tl_sv_ieq(m[k].name, st.name))
				m[n].instance++;
		n++;
	}
	*out = m;
	return n;
}

static bool section_named(const struct protocol_ini *pi, struct wd_sv name)
{
	for (size_t s = 0; s < pi->nsec; s++)
		if (tl_sv_ieq(wd_sv_cstr(pi->sec[s].name), name))
			return true;
	return false;
}

static bool bound_somewhere(const struct protocol_ini *pi, const char *name)
{
	bool found = false;
	for (size_t s = 0; s < pi->nsec && !found; s++) {
		struct pi_bindings b;
		if (!pi_bindings_get(pi, s, &b))
			continue;
		for (size_t k = 0; k < b.n; k++)
			found = found || tl_sv_ieq(wd_sv_cstr(b.slot[k]), wd_sv_cstr(name));
		pi_bindings_free(&b);
	}
	return found;
}

/* The instances a NIF's driver can have; more than any machine holds. */
#define MAX_INSTANCES 8

static bool is_mac_section(const struct protocol_ini *pi, size_t s,
			   const struct check_nif *nifs, size_t nnif)
{
	if (bound_somewhere(pi, pi->sec[s].name))
		return true;
	struct wd_sv dn;
	if (!pi_get(pi, s, "DriverName", &dn))
		return false;
	for (size_t k = 0; k < nnif; k++)
		for (int inst = 1; inst <= MAX_INSTANCES; inst++)
			if (nifs[k].nif.drivername && instance_name(nifs[k].nif.drivername, inst, dn))
				return true;
	return false;
}

static void check_order(const struct config_sys *cs, const struct mac_load *m, size_t nm,
			struct check_report *rep)
{
	if (!nm)
		return;
	struct cs_stmt st;
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		if (!config_sys_stmt(cs, i, &st) || !st.loads)
			continue;
		if ((wd_sv_ieq(st.keyword, "CALL") || wd_sv_ieq(st.keyword, "RUN")) &&
		    wd_sv_ieq(st.name, "NETBIND.EXE") && i < m[0].line)
			add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "netbind-order",
			    "%.*s=%.*s comes before the MAC driver %.*s (line %zu), so it binds "
			    "nothing: move it after the MAC and protocol DEVICE= lines",
			    SV(st.keyword), SV(st.path), SV(m[0].name), m[0].line + 1);
		if (wd_sv_ieq(st.keyword, "DEVICE") && wd_sv_ieq(st.name, "PROTMAN.OS2") &&
		    i > m[0].line)
			add(rep, "CONFIG.SYS", i + 1, CHECK_ERROR, "protman-order",
			    "PROTMAN.OS2 comes after the MAC driver %.*s (line %zu); it must be the "
			    "first NDIS driver: move this line before the MAC DEVICE= lines",
			    SV(m[0].name), m[0].line + 1);
	}
}

static void check_protocol_ini_missing(const struct config_sys *cs, const struct mac_load *m,
				       size_t nm, struct check_report *rep)
{
	long line = config_sys_find(cs, 0, "DEVICE", "PROTMAN.OS2");
	if (line < 0 && nm)
		line = (long)m[0].line;
	if (line >= 0)
		add(rep, "CONFIG.SYS", (size_t)line + 1, CHECK_ERROR, "protocol-ini-missing",
		    "this line loads an NDIS driver but the volume has no %s: configure "
		    "networking (MPTS, or warpdrv configure nic) or REM the line",
		    CHECK_PROTOCOL_INI);
}

static void check_loaded_have_sections(const struct protocol_ini *pi, const struct mac_load *m,
				       size_t nm, struct check_report *rep)
{
	for (size_t k = 0; k < nm; k++) {
		bool found = false;
		for (size_t s = 0; s < pi->nsec && !found; s++) {
			struct wd_sv dn;
			found = pi_get(pi, s, "DriverName", &dn) &&
				instance_name(m[k].drivername, m[k].instance, dn);
		}
		if (found)
			continue;
		/* An extra instance may be named either way (see instance_name). */
		int n = (int)strlen(m[k].drivername) - 1;
		char *want = m[k].instance == 1 ? wd_xstrdup(m[k].drivername)
			   : wd_xasprintf("%.*s%d$ or %.*s%d$", n, m[k].drivername, m[k].instance,
					  n > 0 ? n - 1 : 0, m[k].drivername, m[k].instance);
		add(rep, "CONFIG.SYS", m[k].line + 1, CHECK_ERROR, "mac-no-section",
		    "the MAC driver %.*s is loaded here but %s has no section with "
		    "DriverName = %s, so it will not start: add the section, or REM this line",
		    SV(m[k].name), CHECK_PROTOCOL_INI, want);
		free(want);
	}
}

static void check_sections_loaded(const struct protocol_ini *pi, const struct mac_load *m,
				  size_t nm, const struct check_nif *nifs, size_t nnif,
				  struct check_report *rep)
{
	for (size_t s = 0; s < pi->nsec; s++) {
		if (!is_mac_section(pi, s, nifs, nnif))
			continue;
		struct wd_sv dn;
		if (!pi_get(pi, s, "DriverName", &dn)) {
			add(rep, CHECK_PROTOCOL_INI, pi->sec[s].header + 1, CHECK_ERROR,
			    "section-no-driver",
			    "[%s] is bound as a network adapter but has no DriverName: add "
			    "DriverName = <driver>$ or remove the section and its bindings",
			    pi->sec[s].name);
			continue;
		}
		bool loaded = false;
		for (size_t k = 0; k < nm && !loaded; k++)
			loaded = instance_name(m[k].drivername, m[k].instance, dn);
		if (!loaded)
			add(rep, CHECK_PROTOCOL_INI, pi->sec[s].header + 1, CHECK_ERROR,
			    "section-no-driver",
			    "[%s] is for the MAC driver %.*s, which no DEVICE= line in CONFIG.SYS "
			    "loads: add its DEVICE= line after PROTMAN.OS2, or remove the section "
			    "and its bindings",
			    pi->sec[s].name, SV(dn));
	}
}

static void check_bindings(const struct protocol_ini *pi, struct check_report *rep)
{
	for (size_t s = 0; s < pi->nsec; s++) {
		struct pi_bindings b;
		if (!pi_bindings_get(pi, s, &b))
			continue;
		long line = pi_key_line(pi, s, "Bindings");
		for (size_t k = 0; k < b.n; k++)
			if (b.slot[k][0] && !section_named(pi, wd_sv_cstr(b.slot[k])))
				add(rep, CHECK_PROTOCOL_INI, (size_t)line + 1, CHECK_ERROR,
				    "binding-unknown",
				    "[%s] binds to %s, but there is no section [%s]: fix the name "
				    "or add the adapter's section",
				    pi->sec[s].name, b.slot[k], b.slot[k]);
		pi_bindings_free(&b);
	}
}

static void check_lxcfg(const struct protocol_ini *pi, struct check_report *rep)
{
	long s = pi_section(pi, "IBMLXCFG");
	if (s < 0)
		return;
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v) && !section_named(pi, k))
			add(rep, CHECK_PROTOCOL_INI, i + 1, CHECK_ERROR, "lxcfg-unknown",
			    "[IBMLXCFG] lists %.*s, but there is no section [%.*s]: remove the "
			    "entry or add the section",
			    SV(k), SV(k));
	}
}

static void check_drivername_twice(const struct protocol_ini *pi, struct check_report *rep)
{
	for (size_t s = 0; s < pi->nsec; s++) {
		struct wd_sv dn;
		if (!pi_get(pi, s, "DriverName", &dn))
			continue;
		for (size_t t = 0; t < s; t++) {
			struct wd_sv other;
			if (!pi_get(pi, t, "DriverName", &other) || !tl_sv_ieq(dn, other))
				continue;
			add(rep, CHECK_PROTOCOL_INI, (size_t)pi_key_line(pi, s, "DriverName") + 1,
			    CHECK_ERROR, "drivername-twice",
			    "[%s] and [%s] both have DriverName = %.*s; a driver reads only one: "
			    "remove one of them",
			    pi->sec[t].name, pi->sec[s].name, SV(dn));
			break;
		}
	}
}

void check_network(const struct config_sys *cs, const struct protocol_ini *pi,
		   const struct check_nif *nifs, size_t nnif, struct check_report *rep)
{
	struct mac_load *m;
	size_t nm = collect_macs(cs, nifs, nnif, &m);
	check_order(cs, m, nm, rep);
	if (!pi) {
		check_protocol_ini_missing(cs, m, nm, rep);
	} else {
		check_loaded_have_sections(pi, m, nm, rep);
		check_sections_loaded(pi, m, nm, nifs, nnif, rep);
		check_bindings(pi, rep);
		check_lxcfg(pi, rep);
		check_drivername_twice(pi, rep);
	}
	for (size_t k = 0; k < nm; k++)
		free(m[k].drivername);
	free(m);
}

/* ---- reading the volume ---- */

static int read_protocol_ini(const struct volume *v, struct protocol_ini *pi, bool *have,
			     struct wd_err *err)
{
	char *host;
	bool found;
	*have = false;
	int r = volume_resolve(v, CHECK_PROTOCOL_INI, &host, &found, err);
	if (r || !found) {
		if (!r)
			free(host);
		return r;
	}
	struct wd_buf b = {0};
	r = wd_read_file(host, CONFIG_FILE_MAX, &b, err);
	free(host);
	if (!r) {
		protocol_ini_parse(pi, b.p ? b.p : "", b.len);
		*have = true;
	}
	wd_buf_free(&b);
	return r;
}

static bool is_nif_name(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcasecmp(name + n - 4, ".NIF");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The NIF file names in IBMCOM\MACS, in byte order so findings are stable. */
static size_t list_nifs(const char *dir, char ***out)
{
	char **names = NULL;
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!is_nif_name(e->d_name))
			continue;
		names = wd_xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = wd_xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_str);
	*out = names;
	return n;
}

static int read_nifs(const struct volume *v, struct check_nif **out, size_t *nout,
		     struct check_report *rep, struct wd_err *err)
{
	*out = NULL;
	*nout = 0;
	char *dir;
	bool found;
	int r = volume_resolve(v, "IBMCOM\\MACS", &dir, &found, err);
	if (r)
		return r;
	char **names = NULL;
	size_t n = found ? list_nifs(dir, &names) : 0;
	struct check_nif *nifs = wd_xcalloc(n, sizeof *nifs);
	size_t got = 0;
	for (size_t k = 0; k < n; k++) {
		char *path = wd_path_join(dir, names[k]);
		char *label = wd_xasprintf("IBMCOM\\MACS\\%s", names[k]);
		struct wd_buf b = {0};
		struct wd_err e;
		int rr = wd_read_file(path, CONFIG_FILE_MAX, &b, &e);
		if (!rr)
			rr = nif_parse(&nifs[got].nif, b.p ? b.p : "", b.len, &e);
		if (rr) {
			add(rep, label, 0, CHECK_WARNING, "nif-unreadable",
			    "%s; the driver it describes is judged by its file name instead", e.msg);
			nif_free(&nifs[got].nif);
			free(label);
		} else {
			nifs[got++].file = label;
		}
		wd_buf_free(&b);
		free(path);
		free(names[k]);
	}
	free(names);
	free(dir);
	*out = nifs;
	*nout = got;
	return 0;
}

int check_volume(const struct volume *v, const struct config_sys *cs, struct check_report *rep,
		 struct wd_err *err)
{
	memset(rep, 0, sizeof *rep);
	struct protocol_ini pi;
	bool have_pi;
	int r = read_protocol_ini(v, &pi, &have_pi, err);
	if (r)
		return r;
	struct check_nif *nifs;
	size_t nnif;
	r = read_nifs(v, &nifs, &nnif, rep, err);
	if (!r) {
		check_config_sys(v, cs, rep);
		check_network(cs, have_pi ? &pi : NULL, nifs, nnif, rep);
		check_sort(rep);
	}
	for (size_t k = 0; k < nnif; k++) {
		nif_free(&nifs[k].nif);
		free(nifs[k].file);
	}
	free(nifs);
	if (have_pi)
		protocol_ini_free(&pi);
	if (r)
		check_report_free(rep);
	return r;
}
