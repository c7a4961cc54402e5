#define _GNU_SOURCE /* memmem */
/* Device names from the PCI ID database (pci.ids): only the sections of the
 * vendors present are read (each found by its text), the whole database in
 * one pass only when one is not found so; and built-in names for
 * VirtualBox's devices. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "pci/pci.h"

#if defined(__SSE2__) && !defined(WD_PCI_PLAIN)
#include <emmintrin.h>
#endif

/* The newlines of [p, end) in order. A section is read a line at a time
 * (44 bytes on average), and a memchr per line costs more in its start than
 * in its search: where the machine has SSE2 (every x86-64), 64 bytes are
 * compared at once and their newlines kept as a mask; elsewhere, and built
 * with WD_PCI_PLAIN, it is memchr. Nothing past end is read. */
struct nl_iter {
	const char *blk, *end; /* SSE2: the 64 bytes (or fewer, at end) of mask */
	uint64_t mask;         /* their newlines not yet returned */
};

#if defined(__SSE2__) && !defined(WD_PCI_PLAIN)
static inline uint64_t nl16(const char *p)
{
	__m128i x = _mm_loadu_si128((const void *)p);
	return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
}

static inline void nl_load(struct nl_iter *it)
{
	size_t left = (size_t)(it->end - it->blk);
	if (left >= 64) {
		const char *q = it->blk;
		it->mask = nl16(q) | nl16(q + 16) << 16 | nl16(q + 32) << 32 | nl16(q + 48) << 48;
		return;
	}
	uint64_t m = 0;
	for (size_t i = 0; i < left; i++)
		m |= (uint64_t)(it->blk[i] == '\n') << i;
	it->mask = m;
}

static inline void nl_start(struct nl_iter *it, const char *p, const char *end)
{
	it->blk = p;
	it->end = end;
	it->mask = 0;
	if (p < end)
		nl_load(it);
}

/* The next newline; NULL when none is left. */
static inline const char *nl_next(struct nl_iter *it)
{
	while (!it->mask) {
		if (it->end - it->blk <= 64)
			return NULL;
		it->blk += 64;
		nl_load(it);
	}
	const char *r = it->blk + __builtin_ctzll(it->mask);
	it->mask &= it->mask - 1;
	return r;
}
#else
static inline void nl_start(struct nl_iter *it, const char *p, const char *end)
{
	it->blk = p;
	it->end = end;
	it->mask = 0;
}

static inline const char *nl_next(struct nl_iter *it)
{
	const char *r = it->blk < it->end ? memchr(it->blk, '\n', (size_t)(it->end - it->blk)) : NULL;
	it->blk = r ? r + 1 : it->end;
	return r;
}
#endif

static const struct {
	int vendor, device;
	const char *name;
} builtin[] = {
	{0x80ee, 0xcafe, "VirtualBox Guest Service"},
	{0x80ee, 0xbeef, "VirtualBox Graphics Adapter"},
	{0x8086, 0x1237, "Intel 440FX host bridge"},
	{0x8086, 0x7000, "Intel PIIX3 ISA bridge"},
	{0x8086, 0x7010, "Intel PIIX3 IDE"},
	{0x8086, 0x7111, "Intel PIIX4 IDE"},
	{0x8086, 0x7113, "Intel PIIX4 ACPI"},
	{0x8086, 0x27b9, "Intel ICH9 LPC bridge"},
	{0x8086, 0x2829, "Intel ICH8M AHCI controller"},
	{0x8086, 0x2415, "Intel 82801AA AC'97 audio"},
	{0x106b, 0x003f, "Apple KeyLargo/Intrepid USB (OHCI)"},
};

static void name_builtin(struct pci_dev *d)
{
	if (d->name)
		return;
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		if (builtin[i].vendor == d->vendor && builtin[i].device == d->device) {
			d->name = wd_xstrdup(builtin[i].name);
			return;
		}
	const struct vbox_nic_model *m = vbox_model_of(d);
	if (m)
		d->name = wd_xstrdup(m->title);
}

/* One more than the value of each hex digit, 0 for any other byte:
 * isxdigit's digits in every locale, without its call per character (the
 * database has 36,000 lines). */
static const unsigned char hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
};

static inline int hex4(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	int a = hexval[u[0]] - 1, b = hexval[u[1]] - 1, c = hexval[u[2]] - 1, d = hexval[u[3]] - 1;
	if ((a | b | c | d) < 0)
		return -1;
	return a << 12 | b << 8 | c << 4 | d;
}

static bool wants_vendor(const struct pci_list *l, int vendor)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->devs[i].vendor == vendor && !l->devs[i].name)
			return true;
	return false;
}

static void scan(struct pci_list *l, const char *p, const char *end)
{
	int vendor = -1;
	struct wd_sv vname = {0};
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (vendor < 0 && p[0] == '\t') {
			p = nl ? nl + 1 : end; /* a device of a vendor not asked for */
			continue;
		}
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);
		if (n && p[n - 1] == '\r')
			n--; /* a database saved with CRLF: the CR is no part of a name */
		if (n > 6 && p[0] != '\t' && p[0] != '#') {
			if (p[0] == 'C' && p[1] == ' ')
				break; /* the class list follows the vendors */
			int v = hex4(p);
			vendor = v >= 0 && wants_vendor(l, v) ? v : -1;
			vname = wd_sv_trim(wd_sv_make(p + 4, n - 4));
		} else if (vendor >= 0 && n > 7 && p[0] == '\t' && p[1] != '\t') {
			int dev = hex4(p + 1);
			for (size_t i = 0; dev >= 0 && i < l->n; i++) {
				struct pci_dev *d = &l->devs[i];
				if (d->vendor == vendor && d->device == dev && !d->name) {
					struct wd_sv dn = wd_sv_trim(wd_sv_make(p + 5, n - 5));
					d->name = wd_xasprintf("%.*s %.*s", (int)vname.n, vname.p, (int)dn.n, dn.p);
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* Whether the line at p (below end) is a vendor's: four hex digits at its
 * start, then a blank. */
static bool vendor_line(const char *p, const char *end)
{
	return end - p > 5 && p[0] != '\t' && hex4(p) >= 0 && (p[4] == ' ' || p[4] == '\t');
}

/* The first vendor's line that starts at or after p (a line start) and
 * before lim, in a database that ends at end, stopping at the class list
 * ("C " lines follow the vendors); NULL when none. */
static const char *next_vendor(const char *p, const char *lim, const char *end)
{
	struct nl_iter it;
	nl_start(&it, p, end);
	while (p < lim) {
		if (p[0] == 'C' && end - p > 1 && p[1] == ' ')
			return NULL;
		if (vendor_line(p, end))
			return p;
		const char *nl = nl_next(&it);
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* A probe reads at most this far for the next vendor's line: a section may
 * be long (Intel's is 370 KB of 8,500 lines), and reading to its end at
 * every probe costs more than the bisection saves. */
#define PROBE_MAX 2048

/* The vendor's line by bisection: pci.ids lists its vendors in order of
 * their IDs, so a probe's next vendor line says which half to keep. A probe
 * that meets no vendor line within PROBE_MAX keeps the lower half on trust;
 * *from is then where a search by text starts (every vendor line before it
 * has a lower ID). Only a line that is the vendor's is returned; a database
 * not in that order just makes it miss (NULL), and find_vendor then looks
 * for the text. */
static const char *bisect_vendor(const char *begin, const char *end, int want, const char **from)
{
	const char *lo = begin, *hi = end; /* the line sought starts in [lo, hi) */
	bool trusted = true;                /* false once a probe kept a half on trust */
	while (hi - lo > 4096) {
		const char *mid = lo + (hi - lo) / 2;
		const char *nl = memchr(mid, '\n', (size_t)(hi - mid));
		const char *lim = nl && hi - (nl + 1) > PROBE_MAX ? nl + 1 + PROBE_MAX : hi;
		const char *v = nl ? next_vendor(nl + 1, lim, end) : NULL;
		if (!v) {
			trusted &= lim == hi;
			hi = mid + 1; /* no vendor line starts in (mid, lim) */
			continue;
		}
		int id = hex4(v);
		if (id == want)
			return v;
		if (id < want)
			lo = v;
		else
			hi = mid + 1;
	}
	*from = lo;
	for (const char *p = lo; (p = next_vendor(p, trusted ? hi : end, end));) {
		int id = hex4(p);
		if (id == want)
			return p;
		if (id > want)
			return NULL;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* The first vendor's line for want found by its text ("\n8086 ", the
 * database's lower-case hex) at or after p; NULL when none. */
static const char *search_vendor(const char *p, const char *end, int want)
{
	char pat[12];
	snprintf(pat, sizeof pat, "\n%04x", (unsigned)want & 0xffffu);
	while (p < end) {
		const char *m = memmem(p, (size_t)(end - p), pat, 5);
		if (!m)
			return NULL;
		if (vendor_line(m + 1, end))
			return m + 1;
		p = m + 1;
	}
	return NULL;
}

/* The vendor's line, found by bisection from start (a line's start: in a
 * database in order, every vendor sought later lies after where the one
 * before was read to) or else by its text, from where the bisection left
 * off, then from start and from begin, rather than line by line; NULL when
 * not there so (the caller then scans the database whole, as for another
 * spelling). */
static const char *find_vendor(const char *begin, const char *start, const char *end, int want)
{
	const char *from = start;
	const char *b = bisect_vendor(start, end, want, &from);
	if (!b && from > start)
		b = search_vendor(from - 1, end, want); /* from - 1: the newline before */
	if (!b && start > begin)
		b = search_vendor(start - 1, end, want);
	return b ? b : search_vendor(begin, end, want);
}

/* Names the devices of the vendor whose line starts at s from its section:
 * the lines up to the next that is no device's (a vendor's, or the class
 * list), in one pass that compares a device line only with the devices of
 * that vendor still unnamed (a line whose ID is none of theirs modulo 64 is
 * passed at once), and stops when none is left; returns the start of the
 * line it stopped at. */
static const char *scan_section(struct pci_list *l, const char *s, const char *end, int vendor)
{
	size_t *want = wd_xcalloc(l->n + 1, sizeof *want), nw = 0;
	uint64_t maybe = 0; /* bit d % 64 for each device d sought */
	for (size_t i = 0; i < l->n; i++)
		if (l->devs[i].vendor == vendor && !l->devs[i].name) {
			want[nw++] = i;
			maybe |= UINT64_C(1) << ((unsigned)l->devs[i].device & 63);
		}
	struct nl_iter it;
	nl_start(&it, s, end);
	const char *nl = nl_next(&it);
	size_t n = (size_t)((nl ? nl : end) - s);
	if (n && s[n - 1] == '\r')
		n--;
	struct wd_sv vname = wd_sv_trim(wd_sv_make(s + 4, n > 4 ? n - 4 : 0));
	const char *p = nl ? nl + 1 : end;
	for (; p < end && nw; p = nl ? nl + 1 : end) {
		if (p[0] != '\t' && p[0] != '#' && p[0] != '\n' && p[0] != '\r')
			break; /* the next vendor's line, or the class list */
		nl = nl_next(&it);
		if (p[0] != '\t' || end - p < 8 || p[1] == '\t')
			continue; /* a comment, a blank line, a subsystem or too short */
		int dev = hex4(p + 1);
		if (dev < 0 || !(maybe >> (dev & 63) & 1))
			continue;
		n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n <= 7)
			continue; /* too short to name a device */
		for (size_t k = 0; k < nw; k++) {
			struct pci_dev *d = &l->devs[want[k]];
			if (d->device != dev)
				continue;
			struct wd_sv dn = wd_sv_trim(wd_sv_make(p + 5, n - 5));
			d->name = wd_xasprintf("%.*s %.*s", (int)vname.n, vname.p, (int)dn.n, dn.p);
			want[k--] = want[--nw];
		}
	}
	free(want);
	return p;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Names the devices of each vendor present from that vendor's section
 * alone (found by find_vendor; the scan stops at the next vendor's line),
 * the vendors in the order of their IDs, each sought from where the one
 * before was read to (past Intel's 370 KB when VirtualBox's 80EE follows);
 * any vendor not found so sends the whole database to scan. */
static void scan_by_vendor(struct pci_list *l, const char *p, const char *end)
{
	int *vs = wd_xcalloc(l->n + 1, sizeof *vs);
	size_t nv = 0;
	for (size_t i = 0; i < l->n; i++) {
		int v = l->devs[i].vendor;
		bool seen = false;
		for (size_t k = 0; k < nv; k++)
			seen |= vs[k] == v;
		if (!seen && v >= 0 && !l->devs[i].name)
			vs[nv++] = v;
	}
	qsort(vs, nv, sizeof *vs, cmp_int);
	const char *start = p;
	bool whole = false;
	for (size_t i = 0; i < nv && !whole; i++) {
		const char *s = find_vendor(p, start, end, vs[i]);
		if (s)
			start = scan_section(l, s, end, vs[i]);
		else
			whole = true;
	}
	free(vs);
	if (whole)
		scan(l, p, end);
}

#define IDS_MAX (64u << 20)

/* Scans a plain file of the database in place (mapped: the 1.3 MB file is
 * not copied); false when it is not one, for wd_read_file to read or refuse
 * with its message. */
static bool scan_mapped(struct pci_list *l, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	void *m = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= IDS_MAX)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	scan_by_vendor(l, m, (const char *)m + st.st_size);
	munmap(m, (size_t)st.st_size);
	return true;
}

int pci_name_devices(struct pci_list *l, const char *ids_path, struct wd_err *err)
{
	static const char *places[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
				       "/usr/share/pci.ids", NULL};
	const char *path = ids_path;
	for (int i = 0; !path && places[i]; i++)
		if (wd_exists(places[i]))
			path = places[i];
	if (path && !scan_mapped(l, path)) {
		struct wd_buf b = {0};
		int r = wd_read_file(path, IDS_MAX, &b, err);
		if (r) {
			wd_buf_free(&b);
			return ids_path ? wd_err_prefix(err, "--pci-ids") : 0;
		}
		scan_by_vendor(l, b.p, b.p + b.len);
		wd_buf_free(&b);
	}
	for (size_t i = 0; i < l->n; i++)
		name_builtin(&l->devs[i]);
	return 0;
}
