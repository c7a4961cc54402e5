#include "catalog/index.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/names.h"
#include "catalog/version.h"
#include "trust/signed.h"
#include "common/date.h"

#define MAX_WORDS 10

/* A malformed line is a trust failure: the text was signed that way. */
#define bad(err, where, no, ...) wd_err_line(err, WD_ETRUST, where, no, __VA_ARGS__)

bool index_valid_keyid(const char *s, size_t n)
{
	if (!n || n > 128)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._:-", s[i]))
			return false;
	return true;
}

static bool word_ok(struct wd_sv v, size_t max, const char *extra)
{
	if (!v.n || v.n > max)
		return false;
	for (size_t i = 0; i < v.n; i++)
		if (!isalnum((unsigned char)v.p[i]) && (!v.p[i] || !strchr(extra, v.p[i])))
			return false;
	return true;
}

/* Sizes and serials: at most 15 digits, as the format says. */
static int u64_of(struct wd_sv v, uint64_t *out)
{
	unsigned long long x;
	if (v.n > 15 || wd_sv_u64(v, 999999999999999ULL, &x))
		return -1;
	*out = x;
	return 0;
}

/* "package NAME VERSION RELEASED KIND ENTITLEMENT|- FILE SIZE SHA256 SUMMARY...",
 * and "older" with the same fields (an older version of NAME). */
static int parse_package(struct wd_sv *w, int n, struct wd_sv rest, int no, const char *where,
			 bool older, struct repo_index *idx, struct wd_err *err)
{
	struct index_entry e = {.older = older};
	if (n < 10)
		return bad(err, where, no, "%s: expected NAME VERSION RELEASED KIND "
			   "ENTITLEMENT FILE SIZE SHA256 SUMMARY", older ? "older" : "package");
	if (!names_package_ok(w[1]))
		return bad(err, where, no, "package: malformed name (" NAMES_PACKAGE_RULE ")");
	if (!names_version_ok(w[2]))
		return bad(err, where, no, "package: malformed version (" NAMES_VERSION_RULE ")");
	if (names_date(w[3], &e.released))
		return bad(err, where, no, "package: release date must be YYYY-MM-DD");
	if (!pkg_kind_parse(w[4], &e.kind))
		return bad(err, where, no, "package: kind must be nic or psd");
	if (!wd_sv_eq(w[5], "-") && !word_ok(w[5], 32, ".+-"))
		return bad(err, where, no, "package: malformed entitlement");
	if (!names_file_ok(w[6]))
		return bad(err, where, no, "package: file must be " NAMES_FILE_RULE);
	if (u64_of(w[7], &e.size) || e.size > ((uint64_t)1 << 40))
		return bad(err, where, no, "package: size must be a number of bytes");
	if (!wd_sv_is_sha256_hex(w[8]))
		return bad(err, where, no, "package: SHA-256 must be 64 lowercase hex digits");
	e.name = wd_sv_dup(w[1]);
	e.version = wd_sv_dup(w[2]);
	e.entitlement = wd_sv_eq(w[5], "-") ? NULL : wd_sv_dup(w[5]);
	e.file = wd_sv_dup(w[6]);
	memcpy(e.sha256, w[8].p, 64);
	e.summary = wd_sv_dup(rest);
	if (!(idx->npkgs & (idx->npkgs - 1))) /* 0, 1, 2, 4...: the array doubles */
		idx->pkgs = wd_xrealloc(idx->pkgs, (idx->npkgs ? 2 * idx->npkgs : 1) *
						       sizeof *idx->pkgs);
	idx->pkgs[idx->npkgs++] = e;
	return 0;
}

/* "VVVV:DDDD[+SSSS:TTTT][~RR]=RANK": one device of a "choose" line. */
static int parse_pci(struct wd_sv v, struct pkg_pci *out)
{
	char buf[64];
	if (v.n >= sizeof buf)
		return -1;
	memcpy(buf, v.p, v.n);
	buf[v.n] = 0;
	unsigned a, b, c = 0, d = 0, rev = 0;
	int rank, used = 0;
	*out = (struct pkg_pci){.revision = -1};
	if (sscanf(buf, "%4x:%4x%n", &a, &b, &used) != 2)
		return -1;
	const char *s = buf + used;
	if (*s == '+' && sscanf(s, "+%4x:%4x%n", &c, &d, &used) == 2) {
		out->has_subsys = true;
		s += used;
	}
	if (*s == '~' && sscanf(s, "~%2x%n", &rev, &used) == 1) {
		out->revision = (int)rev;
		s += used;
	}
	if (sscanf(s, "=%d%n", &rank, &used) != 1 || s[used] || rank < 0 || rank > 1000)
		return -1;
	out->vendor = (uint16_t)a;
	out->device = (uint16_t)b;
	out->subsys_vendor = (uint16_t)c;
	out->subsys_device = (uint16_t)d;
	out->rank = rank;
	return 0;
}

/* "choose NAME DEV,DEV...|-" and "nic NAME DRIVER NIF DRIVERNAME IDN|- ISW|-":
 * about the package of the line just before ("older-choose" and "older-nic":
 * of the older line just before). */
static int parse_choice(struct wd_sv *w, int n, int no, const char *where,
			struct repo_index *idx, struct wd_err *err)
{
	bool older = w[0].n > 6 && !memcmp(w[0].p, "older-", 6);
	bool nic = wd_sv_eq(w[0], older ? "older-nic" : "nic");
	struct index_entry *e = idx->npkgs ? &idx->pkgs[idx->npkgs - 1] : NULL;
	if (!e || n < 2 || !wd_sv_eq(w[1], e->name) || e->older != older)
		return bad(err, where, no, "%.*s: must follow the %s line of the package it "
			   "names", (int)w[0].n, w[0].p, older ? "older" : "package");
	if (!nic) {
		if (n != 3 || e->choice)
			return bad(err, where, no, "choose: expected NAME and one list of devices, once");
		e->choice = true;
		for (size_t i = 0; !wd_sv_eq(w[2], "-") && i < w[2].n;) {
			const char *comma = memchr(w[2].p + i, ',', w[2].n - i);
			size_t end = comma ? (size_t)(comma - w[2].p) : w[2].n;
			e->pci = wd_xrealloc(e->pci, (e->npci + 1) * sizeof *e->pci);
			if (parse_pci(wd_sv_make(w[2].p + i, end - i), &e->pci[e->npci++]))
				return bad(err, where, no, "choose: a device must be VVVV:DDDD[+SSSS:TTTT]"
					   "[~RR]=RANK");
			i = end + 1;
		}
		return 0;
	}
	if (n != 7 || e->driver)
		return bad(err, where, no, "nic: expected NAME DRIVER NIF DRIVERNAME "
			   "INSTANCE-DRIVERNAME|- INSTANCE-SWITCH|-, once");
	for (int i = 2; i < 7; i++)
		if (!word_ok(w[i], 64, ".$%_-/"))
			return bad(err, where, no, "nic: malformed field %d", i);
	e->driver = wd_sv_dup(w[2]);
	e->nif = wd_sv_dup(w[3]);
	e->driver_name = wd_sv_dup(w[4]);
	e->instance_drivername = wd_sv_eq(w[5], "-") ? NULL : wd_sv_dup(w[5]);
	e->instance_switch = wd_sv_eq(w[6], "-") ? NULL : wd_sv_dup(w[6]);
	return 0;
}

/* A word of digits only. */
static bool digits_only(struct wd_sv v)
{
	for (size_t i = 0; i < v.n; i++)
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
	return v.n > 0;
}

/* The name of a field a newer build may add: a lowercase letter, then
 * lowercase letters, digits and '-', at most 32. */
static bool future_field(struct wd_sv v)
{
	if (!v.n || v.n > 32 || v.p[0] < 'a' || v.p[0] > 'z')
		return false;
	for (size_t i = 1; i < v.n; i++)
		if (!((v.p[i] >= 'a' && v.p[i] <= 'z') || (v.p[i] >= '0' && v.p[i] <= '9') ||
		      v.p[i] == '-'))
			return false;
	return true;
}

static int parse_line(struct wd_sv s, int no, const char *where, struct repo_index *idx,
		      unsigned *seen, struct wd_err *err)
{
	struct wd_sv w[MAX_WORDS];
	int n = 0;
	struct wd_sv rest = {0};
	size_t i = 0;
	while (i < s.n) {
		while (i < s.n && s.p[i] == ' ')
			i++;
		if (i == s.n)
			break;
		if (n == MAX_WORDS - 1) { /* the last word is the rest of the line */
			rest = wd_sv_make(s.p + i, s.n - i);
			w[n++] = rest;
			break;
		}
		size_t b = i;
		while (i < s.n && s.p[i] != ' ')
			i++;
		w[n++] = wd_sv_make(s.p + b, i - b);
	}
	if (!n)
		return 0;
	enum { FORMAT = 1, SERIAL = 2, ISSUED = 4, EXPIRES = 8 };
	if (!(*seen & FORMAT)) {
		if (n == 2 && wd_sv_eq(w[0], "format") && !wd_sv_eq(w[1], "1") &&
		    w[1].n <= 6 && digits_only(w[1]))
			return bad(err, where, no, "format %.*s: this index is for a newer warpdrv "
				   "(this one reads format 1): upgrade warpdrv", (int)w[1].n, w[1].p);
		if (n != 2 || !wd_sv_eq(w[0], "format") || !wd_sv_eq(w[1], "1"))
			return bad(err, where, no, "the first line must be 'format 1'");
		*seen |= FORMAT;
		return 0;
	}
	if (wd_sv_eq(w[0], "package") || wd_sv_eq(w[0], "older"))
		return parse_package(w, n, rest, no, where, wd_sv_eq(w[0], "older"), idx, err);
	if (wd_sv_eq(w[0], "choose") || wd_sv_eq(w[0], "nic") || wd_sv_eq(w[0], "older-choose") ||
	    wd_sv_eq(w[0], "older-nic"))
		return parse_choice(w, n, no, where, idx, err);
	if (wd_sv_eq(w[0], "revoke")) {
		if (n != 2 || !index_valid_keyid(w[1].p, w[1].n))
			return bad(err, where, no, "revoke: one key id of letters, digits and ._:-");
		idx->revoked = wd_xrealloc(idx->revoked, (idx->nrevoked + 1) * sizeof *idx->revoked);
		idx->revoked[idx->nrevoked++] = wd_sv_dup(w[1]);
		return 0;
	}
	if (wd_sv_eq(w[0], "mirror")) {
		if (n != 2 || !index_valid_mirror(w[1].p, w[1].n))
			return bad(err, where, no, "mirror: one http:// or https:// URL with a host "
				   "and no user part");
		if (idx->nmirrors == INDEX_MAX_MIRRORS)
			return bad(err, where, no, "mirror: at most %d", INDEX_MAX_MIRRORS);
		idx->mirrors = wd_xrealloc(idx->mirrors, (idx->nmirrors + 1) * sizeof *idx->mirrors);
		idx->mirrors[idx->nmirrors++] = wd_sv_dup(w[1]);
		return 0;
	}
	unsigned bit = wd_sv_eq(w[0], "serial") ? SERIAL : wd_sv_eq(w[0], "issued") ? ISSUED
		     : wd_sv_eq(w[0], "expires") ? EXPIRES : 0;
	/* A field of a newer format 1 (a word of lowercase letters, digits and
	 * '-') is passed over, so that a repository may add one and older
	 * builds still read it (docs/formats.md); anything else is refused. */
	if (!bit && future_field(w[0]))
		return 0;
	if (!bit)
		return bad(err, where, no, "unknown field '%.*s'", (int)(w[0].n > 40 ? 40 : w[0].n),
			   w[0].p);
	if (*seen & bit)
		return bad(err, where, no, "'%.*s' given twice", (int)w[0].n, w[0].p);
	*seen |= bit;
	if (n != 2)
		return bad(err, where, no, "'%.*s' takes one value", (int)w[0].n, w[0].p);
	if (bit == SERIAL && u64_of(w[1], &idx->serial))
		return bad(err, where, no, "serial must be a number");
	if (bit == ISSUED && names_date(w[1], &idx->issued))
		return bad(err, where, no, "issued must be a date YYYY-MM-DD");
	if (bit == EXPIRES && names_date(w[1], &idx->expires))
		return bad(err, where, no, "expires must be a date YYYY-MM-DD");
	return 0;
}

struct named_line {
	const struct index_entry *e;
	int no;
};

/* By name, then version newest first, then line. */
static int by_name_version_line(const void *a, const void *b)
{
	const struct named_line *x = a, *y = b;
	int c = strcmp(x->e->name, y->e->name);
	if (!c)
		c = -version_cmp(x->e->version, y->e->version);
	return c ? c : (x->no > y->no) - (x->no < y->no);
}

/* The first problem of one name's entries v[0..n) (newest first): two of one
 * version, no package line or two, an older line newer than the package
 * line. *line gets the line to name. */
static const char *name_problem(const struct named_line *v, size_t n, int *line)
{
	const struct named_line *pkg = NULL;
	for (size_t i = 0; i < n; i++) {
		if (i && !version_cmp(v[i].e->version, v[i - 1].e->version)) {
			*line = v[i].no > v[i - 1].no ? v[i].no : v[i - 1].no;
			return "";
		}
		if (!v[i].e->older && pkg) {
			*line = v[i].no > pkg->no ? v[i].no : pkg->no;
			return "listed twice (one package line a name; its other versions go on "
			       "older lines)";
		}
		if (!v[i].e->older)
			pkg = &v[i];
	}
	if (!pkg) {
		*line = v[0].no;
		return "has older lines but no package line";
	}
	if (pkg != &v[0]) {
		*line = v[0].no;
		return "has an older line newer than its package line (the package line is the "
		       "newest version)";
	}
	return NULL;
}

/* Each name once on a package line, its newest version, and each version of
 * it once: sorted once rather than compared with every earlier line, so that
 * an index of 20,000 packages is not 200 million compares. */
static int check_unique(const struct repo_index *idx, const int *lines, const char *where,
			struct wd_err *err)
{
	struct named_line *v = wd_xcalloc(idx->npkgs + 1, sizeof *v);
	for (size_t i = 0; i < idx->npkgs; i++)
		v[i] = (struct named_line){&idx->pkgs[i], lines[i]};
	qsort(v, idx->npkgs, sizeof *v, by_name_version_line);
	int r = 0, first = 0;
	for (size_t i = 0, end; i < idx->npkgs; i = end) {
		for (end = i + 1; end < idx->npkgs && !strcmp(v[end].e->name, v[i].e->name); end++)
			;
		int line = 0;
		const char *why = end - i > 1 || v[i].e->older ? name_problem(v + i, end - i, &line)
							       : NULL;
		if (why && (!first || line < first)) { /* the earliest line is named */
			first = line;
			const struct index_entry *e = &idx->pkgs[0];
			for (size_t k = i; k < end; k++)
				if (v[k].no == line)
					e = v[k].e;
			if (!*why) /* one version twice */
				r = bad(err, where, line, "%s: '%s' %s listed twice", e->older ? "older"
					: "package", e->name, e->version);
			else
				r = bad(err, where, line, "%s: '%s' %s", e->older ? "older" : "package",
					e->name, why);
		}
	}
	free(v);
	return r;
}

int index_parse(const char *text, size_t len, const char *where, struct repo_index *idx,
		struct wd_err *err)
{
	memset(idx, 0, sizeof *idx);
	if (len > INDEX_MAX_BYTES)
		return wd_err_set(err, WD_ETRUST, "%s: larger than %d bytes", where, INDEX_MAX_BYTES);
	unsigned seen = 0;
	int r = 0, no = 0;
	int *lines = NULL; /* the line of each package, for check_unique */
	size_t cap = 0;
	for (size_t i = 0; !r && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		struct wd_sv s = wd_sv_make(text + i, e - i);
		i = e + 1;
		no++;
		for (size_t k = 0; !r && k < s.n; k++)
			if ((unsigned char)s.p[k] < 0x20 || s.p[k] == 0x7f)
				r = bad(err, where, no, "a control character or NUL byte");
		size_t had = idx->npkgs;
		if (!r && s.n && s.p[0] != '#')
			r = parse_line(s, no, where, idx, &seen, err);
		if (idx->npkgs > had) {
			if (idx->npkgs > cap) {
				cap = cap ? 2 * cap : 64;
				lines = wd_xrealloc(lines, cap * sizeof *lines);
			}
			lines[idx->npkgs - 1] = no;
		}
	}
	if (!r)
		r = check_unique(idx, lines, where, err);
	free(lines);
	if (!r && seen != 15)
		r = wd_err_set(err, WD_ETRUST, "%s: format, serial, issued and expires are all "
			       "required", where);
	if (!r && idx->expires < idx->issued)
		r = wd_err_set(err, WD_ETRUST, "%s: expires before it was issued", where);
	if (r)
		index_free(idx);
	return r;
}

int index_read(const char *text, size_t len, const struct keyring *kr, int today,
	       const char *where, struct repo_index *idx, struct wd_err *err)
{
	size_t body;
	char fpr[WD_FPR_HEX];
	int r = signed_verify(text, len, kr, where, &body, fpr, err);
	if (r)
		return r;
	if ((r = index_parse(text, body, where, idx, err)))
		return r;
	memcpy(idx->signer, fpr, WD_FPR_HEX);
	if (today != INDEX_NO_EXPIRY && today > idx->expires) {
		char d[WD_DATE_LEN];
		wd_date_format(idx->expires, d);
		index_free(idx);
		return wd_err_set(err, WD_ETRUST, "%s: expired on %s; the repository must publish a "
				  "fresh index (an old one could hide revocations)", where, d);
	}
	return 0;
}

int index_choice_read(struct repo_index *idx, const char *text, size_t len, const char *where,
		      struct wd_err *err)
{
	unsigned seen = 1; /* past 'format 1' */
	int no = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct wd_sv line = wd_sv_make(text + i, end - i);
		i = end + 1;
		no++;
		if (!line.n)
			continue;
		if (!(line.n > 7 && !memcmp(line.p, "choose ", 7)) &&
		    !(line.n > 4 && !memcmp(line.p, "nic ", 4)))
			return bad(err, where, no, "only choose and nic lines belong here");
		int r = parse_line(line, no, where, idx, &seen, err);
		if (r)
			return r;
	}
	return 0;
}

void index_choice_write(const struct index_entry *e, struct wd_buf *out)
{
	if (!e->choice)
		return;
	const char *pre = e->older ? "older-" : "";
	wd_buf_addf(out, "%schoose %s ", pre, e->name);
	for (size_t i = 0; i < e->npci; i++) {
		const struct pkg_pci *p = &e->pci[i];
		wd_buf_addf(out, "%s%04x:%04x", i ? "," : "", p->vendor, p->device);
		if (p->has_subsys)
			wd_buf_addf(out, "+%04x:%04x", p->subsys_vendor, p->subsys_device);
		if (p->revision >= 0)
			wd_buf_addf(out, "~%02x", (unsigned)p->revision);
		wd_buf_addf(out, "=%d", p->rank);
	}
	wd_buf_adds(out, e->npci ? "\n" : "-\n");
	if (e->driver && e->nif && e->driver_name)
		wd_buf_addf(out, "%snic %s %s %s %s %s %s\n", pre, e->name, e->driver, e->nif,
			    e->driver_name,
			    e->instance_drivername ? e->instance_drivername : "-",
			    e->instance_switch ? e->instance_switch : "-");
}

void index_write(const struct repo_index *idx, struct wd_buf *out)
{
	char is[WD_DATE_LEN], ex[WD_DATE_LEN];
	wd_date_format(idx->issued, is);
	wd_date_format(idx->expires, ex);
	wd_buf_addf(out, "format 1\nserial %llu\nissued %s\nexpires %s\n",
		    (unsigned long long)idx->serial, is, ex);
	for (size_t i = 0; i < idx->npkgs; i++) {
		const struct index_entry *e = &idx->pkgs[i];
		char rel[WD_DATE_LEN];
		wd_date_format(e->released, rel);
		wd_buf_addf(out, "%s %s %s %s %s %s %s %llu %s %s\n", e->older ? "older" : "package",
			    e->name, e->version, rel,
			    pkg_kind_name(e->kind), e->entitlement ? e->entitlement : "-", e->file,
			    (unsigned long long)e->size, e->sha256, e->summary);
		index_choice_write(e, out);
	}
	for (size_t i = 0; i < idx->nrevoked; i++)
		wd_buf_addf(out, "revoke %s\n", idx->revoked[i]);
	for (size_t i = 0; i < idx->nmirrors; i++)
		wd_buf_addf(out, "mirror %s\n", idx->mirrors[i]);
}

void index_free(struct repo_index *idx)
{
	for (size_t i = 0; i < idx->npkgs; i++) {
		struct index_entry *e = &idx->pkgs[i];
		free(e->name);
		free(e->version);
		free(e->entitlement);
		free(e->file);
		free(e->summary);
		free(e->pci);
		free(e->driver);
		free(e->nif);
		free(e->driver_name);
		free(e->instance_drivername);
		free(e->instance_switch);
	}
	free(idx->pkgs);
	for (size_t i = 0; i < idx->nrevoked; i++)
		free(idx->revoked[i]);
	free(idx->revoked);
	for (size_t i = 0; i < idx->nmirrors; i++)
		free(idx->mirrors[i]);
	free(idx->mirrors);
	wd_buf_free(&idx->text);
	memset(idx, 0, sizeof *idx);
}

const struct index_entry *index_find(const struct repo_index *idx, const char *name)
{
	for (size_t i = 0; i < idx->npkgs; i++)
		if (!idx->pkgs[i].older && !strcmp(idx->pkgs[i].name, name))
			return &idx->pkgs[i];
	return NULL;
}

struct order_item {
	struct index_entry e;
	size_t pos;
};

static int by_name_newest(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;
	int c = strcmp(x->e.name, y->e.name);
	if (!c)
		c = -version_cmp(x->e.version, y->e.version);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int index_order(struct repo_index *idx, const char *dir, struct wd_err *err)
{
	struct order_item *v = wd_xcalloc(idx->npkgs + 1, sizeof *v);
	for (size_t i = 0; i < idx->npkgs; i++)
		v[i] = (struct order_item){idx->pkgs[i], i};
	qsort(v, idx->npkgs, sizeof *v, by_name_newest);
	int r = 0;
	for (size_t i = 0; i < idx->npkgs; i++) {
		bool same_name = i && !strcmp(v[i].e.name, v[i - 1].e.name);
		if (!r && same_name && !version_cmp(v[i].e.version, v[i - 1].e.version)) {
			const struct order_item *a = v[i].pos < v[i - 1].pos ? &v[i] : &v[i - 1];
			const struct order_item *b = a == &v[i] ? &v[i - 1] : &v[i];
			r = wd_err_set(err, WD_EFAIL, "%s: %s and %s are both %s %s%s%s: keep one "
				       "file of each version (an index lists every version once)",
				       dir, a->e.file, b->e.file, a->e.name, a->e.version,
				       strcmp(a->e.version, b->e.version) ? " = " : "",
				       strcmp(a->e.version, b->e.version) ? b->e.version : "");
		}
		v[i].e.older = same_name;
		idx->pkgs[i] = v[i].e;
	}
	free(v);
	return r;
}

bool index_valid_mirror(const char *s, size_t n)
{
	size_t skip = n >= 8 && !strncasecmp(s, "https://", 8) ? 8
		    : n >= 7 && !strncasecmp(s, "http://", 7) ? 7 : 0;
	if (!skip || n > 1024 || n == skip || s[skip] == '/')
		return false;
	bool in_host = true;
	for (size_t i = skip; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c >= 0x7f)
			return false;
		if (c == '/' || c == '?' || c == '#')
			in_host = false;
		if (in_host && c == '@')
			return false;
	}
	return true;
}

bool index_is_revoked(const struct repo_index *idx, const char *keyid)
{
	for (size_t i = 0; i < idx->nrevoked; i++)
		if (!strcmp(idx->revoked[i], keyid))
			return true;
	return false;
}
