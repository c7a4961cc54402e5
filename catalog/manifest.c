#include "catalog/manifest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/names.h"
#include "common/date.h"
#include "os2/nameidx.h"

/* One line split into space-separated words, views into the text. */
#define MAX_WORDS 12
struct line {
	struct wd_sv w[MAX_WORDS];
	int n;
	struct wd_sv rest1; /* everything after the first word (for summary) */
	int no;
};

static int split(struct wd_sv s, struct line *l)
{
	l->n = 0;
	size_t i = 0;
	while (i < s.n) {
		while (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t'))
			i++;
		if (i == s.n)
			break;
		if (l->n == MAX_WORDS)
			return -1;
		size_t b = i;
		while (i < s.n && s.p[i] != ' ' && s.p[i] != '\t')
			i++;
		l->w[l->n++] = wd_sv_make(s.p + b, i - b);
		if (l->n == 1)
			l->rest1 = wd_sv_trim(wd_sv_make(s.p + i, s.n - i));
	}
	return 0;
}

static bool printable(struct wd_sv v)
{
	for (size_t i = 0; i < v.n; i++)
		if ((unsigned char)v.p[i] < 0x20 || v.p[i] == 0x7f)
			return false;
	return true;
}

static int hex16(struct wd_sv v, uint16_t *out)
{
	if (v.n != 4)
		return -1;
	unsigned x = 0;
	for (size_t i = 0; i < 4; i++) {
		int c = tolower((unsigned char)v.p[i]);
		if (!isxdigit(c))
			return -1;
		x = x * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*out = (uint16_t)x;
	return 0;
}

static int id_pair(struct wd_sv v, uint16_t *a, uint16_t *b)
{
	if (v.n != 9 || v.p[4] != ':')
		return -1;
	return hex16(wd_sv_make(v.p, 4), a) || hex16(wd_sv_make(v.p + 5, 4), b) ? -1 : 0;
}

static int number(struct wd_sv v, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	if (wd_sv_u64(v, max, &x))
		return -1;
	*out = x;
	return 0;
}

bool pkg_safe_member(const char *name)
{
	size_t n = strlen(name);
	if (!n || n > 100 || name[0] == '/')
		return false;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '\\' || *c == ':')
			return false;
	/* every component non-empty and neither "." nor ".." */
	for (const char *p = name; *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!e)
			break;
		p = e + 1;
		if (!*p)
			return false;
	}
	return true;
}

bool pkg_safe_dest(const char *dest)
{
	if (dest[0] != '\\' || strlen(dest) > 259)
		return false;
	for (const char *p = dest + 1;;) {
		const char *e = strchr(p, '\\');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len || len > 255)
			return false;
		bool dots = true;
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)p[i];
			if (c < 0x20 || c == 0x7f || strchr("/:*?\"<>|", c))
				return false;
			if (c != '.')
				dots = false;
		}
		if (dots) /* ".", "..", "..." are all folder tricks on some system */
			return false;
		if (!e)
			return true;
		p = e + 1;
	}
}

/* ---- reserved destinations and names no OS/2 file system holds ---- */

/* Does dest ("\\A\\B\\C") start with the folders of prefix ("VAR\\LIB\\WARPDRV"),
 * compared without case? *exact tells whether it is that path itself. */
static bool dest_under(const char *dest, const char *prefix, bool *exact)
{
	size_t n = strlen(prefix);
	if (strncasecmp(dest + 1, prefix, n))
		return false;
	*exact = dest[1 + n] == '\0';
	return *exact || dest[1 + n] == '\\';
}

static const char *const device_names[] = {
	"CON", "PRN", "AUX", "NUL", "CLOCK$", "KBD$", "MOUSE$", "SCREEN$", "POINTER$",
	"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
};

/* Why one component of a destination is no name HPFS or JFS can hold (FAT
 * holds less still), or why warpdrv keeps it for itself; NULL when fine. */
static const char *name_problem(const char *p, size_t len)
{
	if (len > 254)
		return "has a name longer than 254 characters (the HPFS limit)";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] >= 0x80 || p[i] == ' ')
			return "has a character outside printable ASCII (the volume's code page is "
			       "unknown)";
	if (p[len - 1] == '.')
		return "has a name ending in a dot, which OS/2 drops";
	size_t base = 0;
	while (base < len && p[base] != '.')
		base++;
	for (size_t i = 0; i < sizeof device_names / sizeof *device_names; i++)
		if (strlen(device_names[i]) == base && !strncasecmp(p, device_names[i], base))
			return "names an OS/2 device (CON, NUL, COM1, CLOCK$...), not a file";
	for (size_t i = 0; i + 4 <= len; i++)
		if (!strncasecmp(p + i, ".wd-", 4))
			return "has a name with '.wd-' in it: warpdrv writes its temporary files "
			       "under such names (FILE.wd-new)";
	return NULL;
}

/* The folders and files warpdrv keeps for itself. */
static const char *reserved_problem(const char *dest)
{
	bool exact;
	if (dest_under(dest, "VAR\\LIB\\WARPDRV", &exact))
		return "lies in warpdrv's state folder \\VAR\\LIB\\WARPDRV";
	if (dest_under(dest, "VAR\\CACHE\\WARPDRV", &exact))
		return "lies in warpdrv's cache folder \\VAR\\CACHE\\WARPDRV";
	if (!strcasecmp(dest, "\\VAR\\LOG\\WARPDRV.LOG"))
		return "is warpdrv's text log \\VAR\\LOG\\WARPDRV.LOG";
	static const char *const above[] = {"VAR", "VAR\\LIB", "VAR\\CACHE", "VAR\\LOG",
					    "IBMCOM", "IBMCOM\\MACS"};
	for (size_t i = 0; i < sizeof above / sizeof *above; i++)
		if (dest_under(dest, above[i], &exact) && exact)
			return "is a folder warpdrv needs (its state, MPTS), not a file";
	if (!strcasecmp(dest, "\\CONFIG.SYS"))
		return "is CONFIG.SYS, which warpdrv changes only through its own edits";
	const char *last = strrchr(dest, '\\') + 1;
	if (!strcasecmp(last, "PROTOCOL.INI"))
		return "is a PROTOCOL.INI, which warpdrv changes only through its own edits";
	return NULL;
}

const char *pkg_dest_problem(const char *dest)
{
	if (!pkg_safe_dest(dest))
		return "is unsafe (expected \\FOLDER\\FILE, no drive letter, no . or ..)";
	const char *why = reserved_problem(dest);
	for (const char *p = dest + 1; !why;) {
		const char *e = strchr(p, '\\');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		why = name_problem(p, len);
		if (!e)
			break;
		p = e + 1;
	}
	return why;
}

#define GROW(arr, n) ((arr) = wd_xrealloc((arr), ((n) + 1) * sizeof *(arr)), &(arr)[(n)++])

/* A malformed line is a trust failure: the text was signed that way. */
#define bad(err, where, no, ...) wd_err_line(err, WD_ETRUST, where, no, __VA_ARGS__)

static int parse_pci(struct line *l, struct pkg_manifest *m, const char *where,
		     struct wd_err *err)
{
	struct pkg_pci p = {.revision = -1, .rank = -1};
	if (l->n < 2 || id_pair(l->w[1], &p.vendor, &p.device))
		return bad(err, where, l->no, "pci: expected VENDOR:DEVICE in hex (8086:100e)");
	for (int i = 2; i < l->n; i += 2) {
		if (i + 1 >= l->n)
			return bad(err, where, l->no, "pci: '%.*s' needs a value", (int)l->w[i].n, l->w[i].p);
		struct wd_sv k = l->w[i], v = l->w[i + 1];
		uint64_t x;
		if (wd_sv_eq(k, "subsys")) {
			if (p.has_subsys || id_pair(v, &p.subsys_vendor, &p.subsys_device))
				return bad(err, where, l->no, "pci: subsys must be VENDOR:DEVICE in hex, once");
			p.has_subsys = true;
		} else if (wd_sv_eq(k, "rev")) {
			if (p.revision >= 0 || v.n != 2 || !isxdigit((unsigned char)v.p[0]) ||
			    !isxdigit((unsigned char)v.p[1]))
				return bad(err, where, l->no, "pci: rev must be two hex digits, once");
			p.revision = (int)strtol((char[3]){v.p[0], v.p[1], 0}, NULL, 16);
		} else if (wd_sv_eq(k, "rank")) {
			if (p.rank >= 0 || number(v, 1000, &x))
				return bad(err, where, l->no, "pci: rank must be a number 0..1000, once");
			p.rank = (int)x;
		} else {
			return bad(err, where, l->no, "pci: unknown option (expected subsys, rev, rank)");
		}
	}
	if (p.rank < 0)
		return bad(err, where, l->no, "pci: a rank is required (rank 1 is preferred)");
	*GROW(m->pci, m->npci) = p;
	return 0;
}


/* What a manifest's parse keeps from line to line. */
struct parse_state {
	bool seen_format;
	/* each file's SRC and DEST by their spelling without case, to their
	 * entry: a manifest of many files is read in time in proportion to them
	 * (but for sources that differ only in case, looked for one by one) */
	struct nameidx src, dest;
};

/* Whether f names a SRC (exactly) or DEST (without case) listed before; of
 * two, the one listed first is named. */
static int listed_twice(const struct pkg_manifest *m, struct parse_state *ps,
			const struct pkg_file *f, const char *where, int no, struct wd_err *err)
{
	size_t n = m->nfiles, src = n, dest = n;
	const size_t *at = ni_get(&ps->src, wd_sv_make(f->src, strlen(f->src)));
	if (at && !strcmp(m->files[*at].src, f->src))
		src = *at;
	/* the first spelling is indexed: one differing only in case is looked
	 * for file by file */
	for (size_t i = 0; at && src == n && i < n; i++)
		if (!strcmp(m->files[i].src, f->src))
			src = i;
	if ((at = ni_get(&ps->dest, wd_sv_make(f->dest, strlen(f->dest)))))
		dest = *at;
	if (src < n && src <= dest)
		return bad(err, where, no, "file: '%s' listed twice", f->src);
	if (dest < n)
		return bad(err, where, no, "file: destination '%s' listed twice", f->dest);
	return 0;
}

static int parse_file(struct line *l, struct pkg_manifest *m, bool recipe, const char *where,
		      struct parse_state *ps, struct wd_err *err)
{
	if (l->n != 3 && l->n != 5)
		return bad(err, where, l->no, "file: expected 'file SRC DEST SIZE SHA256'");
	if (l->n == 3 && !recipe)
		return bad(err, where, l->no, "file: the size and SHA-256 are missing");
	struct pkg_file f = {0};
	f.src = wd_sv_dup(l->w[1]);
	f.dest = wd_sv_dup(l->w[2]);
	int r = 0;
	if (!pkg_safe_member(f.src))
		r = bad(err, where, l->no, "file: unsafe file name '%s'", f.src);
	else if (!pkg_safe_dest(f.dest))
		r = bad(err, where, l->no, "file: unsafe destination '%s' (expected \\FOLDER\\FILE, "
			"no drive letter, no . or ..)", f.dest);
	else if (pkg_dest_problem(f.dest))
		r = bad(err, where, l->no, "file: destination '%s' %s", f.dest,
			pkg_dest_problem(f.dest));
	if (!r)
		r = listed_twice(m, ps, &f, where, l->no, err);
	if (!r && l->n == 5) {
		if (number(l->w[3], (uint64_t)1 << 40, &f.size))
			r = bad(err, where, l->no, "file: size must be a number of bytes");
		else if (!wd_sv_is_sha256_hex(l->w[4]))
			r = bad(err, where, l->no, "file: SHA-256 must be 64 lowercase hex digits");
		else {
			memcpy(f.sha256, l->w[4].p, 64);
			f.sha256[64] = '\0';
			f.has_hash = true;
		}
	}
	if (r) {
		free(f.src);
		free(f.dest);
		return r;
	}
	ni_put(&ps->src, wd_sv_make(f.src, strlen(f.src)), m->nfiles, NULL);
	ni_put(&ps->dest, wd_sv_make(f.dest, strlen(f.dest)), m->nfiles, NULL);
	*GROW(m->files, m->nfiles) = f;
	return 0;
}

static int parse_config(struct line *l, struct pkg_config **arr, size_t *n, const char *where,
			struct wd_err *err)
{
	if (l->n != 3)
		return bad(err, where, l->no, "%.*s: expected KEYWORD VALUE", (int)l->w[0].n, l->w[0].p);
	struct wd_sv k = l->w[1];
	static const char *const kw[] = {"PSD", "BASEDEV", "DEVICE", "RUN", "CALL", "IFS", NULL};
	bool ok = false;
	for (int i = 0; kw[i]; i++)
		ok |= wd_sv_ieq(k, kw[i]);
	if (!ok)
		return bad(err, where, l->no, "config: keyword must be one of PSD, BASEDEV, DEVICE, "
			   "RUN, CALL, IFS");
	struct pkg_config c = {wd_sv_dup(k), wd_sv_dup(l->w[2])};
	for (char *p = c.keyword; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	*GROW(*arr, *n) = c;
	return 0;
}

/* A DOS file name's characters, so that the name also makes a PROTOCOL.INI
 * section label ("A[B.OS2" would not). */
static bool plain_83(const char *v)
{
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-$#@!", *c))
			return false;
	return true;
}

/* A word of at most 16 characters with exactly one %d and no other '%'. */
static bool valid_pattern(struct wd_sv v)
{
	if (!v.n || v.n > 16)
		return false;
	int d = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] != '%')
			continue;
		if (i + 1 >= v.n || v.p[i + 1] != 'd')
			return false;
		d++;
		i++;
	}
	return d == 1;
}

/* A field that may appear once: its value (rest of the line) as a new string. */
static int once(char **slot, struct line *l, const char *field, const char *where,
		struct wd_err *err)
{
	if (*slot)
		return bad(err, where, l->no, "'%s' given twice", field);
	if (l->n < 2 || !l->rest1.n)
		return bad(err, where, l->no, "'%s' needs a value", field);
	*slot = wd_sv_dup(l->rest1);
	return 0;
}

/* The fields of a NIC driver (docs/formats.md, "NIC drivers"). */
static bool nic_field(struct wd_sv k)
{
	return wd_sv_eq(k, "driver") || wd_sv_eq(k, "nif") || wd_sv_eq(k, "drivername") ||
	       wd_sv_eq(k, "instance-drivername") || wd_sv_eq(k, "instance-switch") ||
	       wd_sv_eq(k, "slot-keyword");
}

static int parse_nic_field(struct line *l, struct pkg_manifest *m, const char *where,
			   struct wd_err *err)
{
	struct wd_sv k = l->w[0];
	if (wd_sv_eq(k, "driver") || wd_sv_eq(k, "nif")) {
		bool drv = wd_sv_eq(k, "driver");
		char *v = l->n == 2 ? wd_sv_dup(l->w[1]) : NULL;
		bool ok = v && strlen(v) <= 12 && pkg_safe_member(v) && !strchr(v, '/') &&
			  plain_83(v);
		free(v);
		if (!ok)
			return bad(err, where, l->no, "%s: one 8.3 file name without a path",
				   drv ? "driver" : "nif");
		return once(drv ? &m->driver : &m->nif, l, drv ? "driver" : "nif", where, err);
	}
	if (wd_sv_eq(k, "drivername")) {
		if (l->n != 2 || l->w[1].n > 16)
			return bad(err, where, l->no, "drivername: one word such as MMLEM$");
		return once(&m->driver_name, l, "drivername", where, err);
	}
	if (wd_sv_eq(k, "instance-drivername") || wd_sv_eq(k, "instance-switch")) {
		bool dn = wd_sv_eq(k, "instance-drivername");
		if (l->n != 2 || !valid_pattern(l->w[1]))
			return bad(err, where, l->no, "%s: one word with one %%d, such as %s",
				   dn ? "instance-drivername" : "instance-switch",
				   dn ? "MMLEM%d$" : "/A%d");
		return once(dn ? &m->instance_drivername : &m->instance_switch, l,
			    dn ? "instance-drivername" : "instance-switch", where, err);
	}
	if (wd_sv_eq(k, "slot-keyword")) {
		uint64_t first = 0;
		bool ok = l->n == 3 && l->w[1].n && l->w[1].n <= 16 && !number(l->w[2], 99, &first);
		for (size_t i = 0; ok && i < l->w[1].n; i++)
			ok = isalnum((unsigned char)l->w[1].p[i]) || l->w[1].p[i] == '_';
		if (!ok)
			return bad(err, where, l->no, "slot-keyword: a keyword and the number of "
				   "the first card, such as SLOT 0");
		int r = once(&m->slot_keyword, l, "slot-keyword", where, err);
		if (!r) {
			free(m->slot_keyword);
			m->slot_keyword = wd_sv_dup(l->w[1]);
			m->slot_first = (int)first;
		}
		return r;
	}
	return bad(err, where, l->no, "unknown field '%.*s'", (int)k.n, k.p);
}

static int parse_line(struct line *l, struct pkg_manifest *m, bool recipe, const char *where,
		      struct parse_state *ps, struct wd_err *err)
{
	struct wd_sv k = l->w[0];
	uint64_t x;
	if (!ps->seen_format) {
		if (!wd_sv_eq(k, "format") || l->n != 2)
			return bad(err, where, l->no, "the first line must be 'format %s'", "1");
		if (number(l->w[1], 1000, &x) || x != MANIFEST_FORMAT)
			return bad(err, where, l->no, "format %.*s is not one this warpdrv reads; "
				   "use a newer warpdrv", (int)l->w[1].n, l->w[1].p);
		m->format = (int)x;
		ps->seen_format = true;
		return 0;
	}
	if (wd_sv_eq(k, "name")) {
		if (l->n != 2 || !names_package_ok(l->w[1]))
			return bad(err, where, l->no, "name: " NAMES_PACKAGE_RULE);
		return once(&m->name, l, "name", where, err);
	}
	if (wd_sv_eq(k, "version")) {
		if (l->n != 2 || !names_version_ok(l->w[1]))
			return bad(err, where, l->no, "version: " NAMES_VERSION_RULE);
		return once(&m->version, l, "version", where, err);
	}
	if (wd_sv_eq(k, "released")) {
		if (m->released >= 0)
			return bad(err, where, l->no, "'%s' given twice", "released");
		if (l->n != 2 || names_date(l->w[1], &m->released))
			return bad(err, where, l->no, "released: expected a date YYYY-MM-DD");
		return 0;
	}
	if (wd_sv_eq(k, "summary"))
		return once(&m->summary, l, "summary", where, err);
	if (wd_sv_eq(k, "kind")) {
		if (m->kind != PKG_KIND_UNSET)
			return bad(err, where, l->no, "'%s' given twice", "kind");
		if (l->n != 2 || !pkg_kind_parse(l->w[1], &m->kind))
			return bad(err, where, l->no, "kind: expected 'nic' or 'psd'");
		return 0;
	}
	if (wd_sv_eq(k, "entitlement")) {
		if (l->n != 2 || !names_package_ok(l->w[1]))
			return bad(err, where, l->no, "entitlement: one lowercase word");
		return once(&m->entitlement, l, "entitlement", where, err);
	}
	if (wd_sv_eq(k, "replaces")) {
		if (l->n != 2 || !names_package_ok(l->w[1]))
			return bad(err, where, l->no, "replaces: one package name");
		*GROW(m->replaces, m->nreplaces) = wd_sv_dup(l->w[1]);
		return 0;
	}
	if (wd_sv_eq(k, "pci"))
		return parse_pci(l, m, where, err);
	if (nic_field(k))
		return parse_nic_field(l, m, where, err);
	if (wd_sv_eq(k, "file"))
		return parse_file(l, m, recipe, where, ps, err);
	if (wd_sv_eq(k, "config-need"))
		return parse_config(l, &m->config_need, &m->nconfig_need, where, err);
	if (wd_sv_eq(k, "config-displace"))
		return parse_config(l, &m->config_displace, &m->nconfig_displace, where, err);
	return bad(err, where, l->no, "unknown field '%.*s'", (int)(k.n > 40 ? 40 : k.n), k.p);
}

static int check_complete(struct pkg_manifest *m, const char *where, struct wd_err *err)
{
	const char *missing = !m->name ? "name" : !m->version ? "version"
			    : m->released < 0 ? "released" : !m->summary ? "summary"
			    : m->kind == PKG_KIND_UNSET ? "kind" : !m->nfiles ? "file" : NULL;
	if (missing)
		return wd_err_set(err, WD_ETRUST, "%s: the field '%s' is missing", where, missing);
	if (m->kind == PKG_KIND_NIC) {
		if (!m->driver || !m->nif || !m->driver_name || !m->npci)
			return wd_err_set(err, WD_ETRUST, "%s: a nic package needs driver, nif, "
					  "drivername and at least one pci line", where);
		const char *need[2] = {m->driver, m->nif};
		for (int i = 0; i < 2; i++) {
			bool listed = false;
			for (size_t f = 0; f < m->nfiles; f++) {
				const char *base = strrchr(m->files[f].dest, '\\');
				listed |= !strcasecmp(base + 1, need[i]);
			}
			if (!listed)
				return wd_err_set(err, WD_ETRUST, "%s: '%s' is named but no file line "
						  "installs it", where, need[i]);
		}
	} else if (m->driver || m->nif || m->driver_name || m->instance_drivername ||
		   m->instance_switch || m->slot_keyword) {
		return wd_err_set(err, WD_ETRUST, "%s: driver, nif and drivername belong to nic "
				  "packages only", where);
	}
	return 0;
}

int manifest_parse(const char *text, size_t len, bool recipe, const char *where,
		   struct pkg_manifest *m, struct wd_err *err)
{
	memset(m, 0, sizeof *m);
	m->released = -1;
	m->kind = PKG_KIND_UNSET;
	if (len > MANIFEST_MAX_BYTES)
		return wd_err_set(err, WD_ETRUST, "%s: larger than %d bytes", where, MANIFEST_MAX_BYTES);
	struct parse_state ps = {0};
	int r = 0, no = 0;
	for (size_t i = 0; !r && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		struct wd_sv s = wd_sv_make(text + i, e - i);
		i = e + 1;
		no++;
		if (s.n && s.p[s.n - 1] == '\r')
			s.n--;
		if (!printable(s)) {
			r = bad(err, where, no, "a control character or NUL byte");
			break;
		}
		if (memchr(s.p, '#', s.n) == s.p || !wd_sv_trim(s).n)
			continue;
		struct line l = {.no = no};
		if (split(s, &l) < 0) {
			r = bad(err, where, no, "more than %d words", MAX_WORDS);
			break;
		}
		if (l.n)
			r = parse_line(&l, m, recipe, where, &ps, err);
	}
	ni_free(&ps.src);
	ni_free(&ps.dest);
	if (!r && !ps.seen_format)
		r = wd_err_set(err, WD_ETRUST, "%s: empty; the first line must be 'format 1'", where);
	if (!r)
		r = check_complete(m, where, err);
	if (r)
		manifest_free(m);
	return r;
}

static void free_config(struct pkg_config *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].keyword);
		free(c[i].value);
	}
	free(c);
}

void manifest_free(struct pkg_manifest *m)
{
	free(m->name);
	free(m->version);
	free(m->summary);
	free(m->entitlement);
	for (size_t i = 0; i < m->nreplaces; i++)
		free(m->replaces[i]);
	free(m->replaces);
	free(m->pci);
	free(m->driver);
	free(m->nif);
	free(m->driver_name);
	free(m->instance_drivername);
	free(m->instance_switch);
	free(m->slot_keyword);
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].src);
		free(m->files[i].dest);
	}
	free(m->files);
	free_config(m->config_need, m->nconfig_need);
	free_config(m->config_displace, m->nconfig_displace);
	memset(m, 0, sizeof *m);
}

/* The package kinds, written once: each is the planner that configures it
 * (nic: installer/nic_plan.c, psd: installer/acpi_plan.c), so a new kind
 * comes with its planner; a new driver of a kind is only a recipe. */
static const char *const kind_names[] = {[PKG_KIND_NIC] = "nic", [PKG_KIND_PSD] = "psd"};
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

const char *pkg_kind_name(enum pkg_kind k)
{
	return k >= 0 && (size_t)k < NKINDS ? kind_names[k] : "unset";
}

bool pkg_kind_parse(struct wd_sv word, enum pkg_kind *k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (wd_sv_eq(word, kind_names[i])) {
			*k = (enum pkg_kind)i;
			return true;
		}
	return false;
}

void manifest_write(const struct pkg_manifest *m, struct wd_buf *out)
{
	char d[WD_DATE_LEN];
	wd_date_format(m->released, d);
	wd_buf_addf(out, "format %d\nname %s\nversion %s\nreleased %s\nsummary %s\nkind %s\n",
		    MANIFEST_FORMAT, m->name, m->version, d, m->summary, pkg_kind_name(m->kind));
	if (m->entitlement)
		wd_buf_addf(out, "entitlement %s\n", m->entitlement);
	for (size_t i = 0; i < m->nreplaces; i++)
		wd_buf_addf(out, "replaces %s\n", m->replaces[i]);
	for (size_t i = 0; i < m->npci; i++) {
		const struct pkg_pci *p = &m->pci[i];
		wd_buf_addf(out, "pci %04x:%04x", p->vendor, p->device);
		if (p->has_subsys)
			wd_buf_addf(out, " subsys %04x:%04x", p->subsys_vendor, p->subsys_device);
		if (p->revision >= 0)
			wd_buf_addf(out, " rev %02x", p->revision);
		wd_buf_addf(out, " rank %d\n", p->rank);
	}
	if (m->driver)
		wd_buf_addf(out, "driver %s\nnif %s\ndrivername %s\n", m->driver, m->nif,
			    m->driver_name);
	if (m->instance_drivername)
		wd_buf_addf(out, "instance-drivername %s\n", m->instance_drivername);
	if (m->instance_switch)
		wd_buf_addf(out, "instance-switch %s\n", m->instance_switch);
	if (m->slot_keyword)
		wd_buf_addf(out, "slot-keyword %s %d\n", m->slot_keyword, m->slot_first);
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct pkg_file *f = &m->files[i];
		wd_buf_addf(out, "file %s %s", f->src, f->dest);
		if (f->has_hash)
			wd_buf_addf(out, " %llu %s", (unsigned long long)f->size, f->sha256);
		wd_buf_addc(out, '\n');
	}
	for (size_t i = 0; i < m->nconfig_need; i++)
		wd_buf_addf(out, "config-need %s %s\n", m->config_need[i].keyword,
			    m->config_need[i].value);
	for (size_t i = 0; i < m->nconfig_displace; i++)
		wd_buf_addf(out, "config-displace %s %s\n", m->config_displace[i].keyword,
			    m->config_displace[i].value);
}

const struct pkg_file *manifest_find_dest(const struct pkg_manifest *m, const char *dest)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (!strcasecmp(m->files[i].dest, dest))
			return &m->files[i];
	return NULL;
}

/* "MMLEM%d$" with n: "MMLEM2$". The pattern holds exactly one %d. */
static char *fill(const char *pattern, int n)
{
	const char *at = strstr(pattern, "%d");
	return wd_xasprintf("%.*s%d%s", (int)(at - pattern), pattern, n, at + 2);
}

char *manifest_instance_drivername(const struct pkg_manifest *m, int k)
{
	if (k <= 1)
		return m->driver_name ? wd_xstrdup(m->driver_name) : NULL;
	return m->instance_drivername ? fill(m->instance_drivername, k) : NULL;
}

char *manifest_instance_switch(const struct pkg_manifest *m, int k)
{
	if (k <= 1 || !m->instance_switch)
		return NULL;
	return fill(m->instance_switch, k - 1);
}
