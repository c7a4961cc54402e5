#include "pci/pci.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "pci/parse.h"

#define MAX_SOURCE_BYTES (16u << 20)

/* Splits text into lines without copying; the line excludes CR LF or LF. */
struct lines {
	const char *p, *end;
	int no;
};

static bool next_line(struct lines *it, struct wd_sv *line)
{
	if (it->p >= it->end)
		return false;
	const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	const char *e = nl ? nl : it->end;
	line->p = it->p;
	line->n = (size_t)(e - it->p);
	if (line->n && line->p[line->n - 1] == '\r')
		line->n--;
	it->p = nl ? nl + 1 : it->end;
	it->no++;
	return true;
}

struct pci_dev *pci_add_dev(struct pci_list *l)
{
	l->devs = wd_xrealloc(l->devs, (l->n + 1) * sizeof *l->devs);
	struct pci_dev *d = &l->devs[l->n++];
	memset(d, 0, sizeof *d);
	d->vendor = d->device = d->subvendor = d->subdevice = PCI_NONE;
	d->revision = PCI_NONE;
	d->class_code = PCI_NONE;
	return d;
}

void pci_list_free(struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->devs[i].slot);
		free(l->devs[i].name);
		free(l->devs[i].attachment);
	}
	free(l->devs);
	free(l->source);
	memset(l, 0, sizeof *l);
}

bool pci_is_network(const struct pci_dev *d)
{
	return d->class_code != PCI_NONE && (d->class_code >> 16) == 0x02;
}

void pci_finish(struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pci_dev *d = &l->devs[i];
		if (d->vendor == 0x80ee && d->device == 0xcafe)
			l->virtualbox = true;
		if (!d->vbox_model) {
			const struct vbox_nic_model *m = vbox_model_of(d);
			d->vbox_model = m ? m->nictype : NULL;
		}
	}
}

/* Parses exactly n hex digits. */
static bool hexn(const char *p, size_t n, long *out)
{
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return false;
		v = v * 16 + (isdigit((unsigned char)p[i]) ? p[i] - '0' : (tolower((unsigned char)p[i]) - 'a' + 10));
	}
	*out = v;
	return true;
}

/* ---- sysfs ---- */

/* "0x8086\n" (blanks around it allowed) into *val. */
static bool sysfs_value(const char *p, size_t n, int digits, struct wd_sv *text, long *val)
{
	struct wd_sv v = wd_sv_trim(wd_sv_make(p, n));
	while (v.n && (v.p[v.n - 1] == '\n' || v.p[v.n - 1] == '\r'))
		v.n--;
	*text = v;
	return v.n >= 3 && v.p[0] == '0' && (v.p[1] == 'x' || v.p[1] == 'X') &&
	       v.n - 2 <= (size_t)digits && hexn(v.p + 2, v.n - 2, val);
}

/* The common case in five system calls (the checked path below takes ten,
 * and a device has six files): a plain file under 64 bytes holding an ID.
 * Anything else is left to the checked path and its messages. */
static bool sysfs_id_fast(const char *path, int digits, long *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	char b[64];
	size_t len = 0;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		while (len < sizeof b && (n = read(fd, b + len, sizeof b - len)) > 0)
			len += (size_t)n;
	close(fd);
	struct wd_sv text;
	return n == 0 && len < sizeof b && sysfs_value(b, len, digits, &text, out);
}

/* Reads "0x8086\n" from DIR/SLOT/NAME; a missing optional file leaves *out. */
static int sysfs_id(const char *devdir, const char *name, int digits, bool required, long *out,
		    struct wd_err *err)
{
	char *path = wd_path_join(devdir, name);
	struct wd_buf b = {0};
	int r = 0;
	if (sysfs_id_fast(path, digits, out))
		goto out;
	if (!wd_exists(path)) {
		if (required)
			r = wd_err_set(err, WD_EFAIL, "%s: missing; a PCI device folder has vendor and device files", path);
		goto out;
	}
	if ((r = wd_read_file(path, 4096, &b, err)))
		goto out;
	struct wd_sv v;
	long val;
	if (!sysfs_value(b.p, b.len, digits, &v, &val)) {
		r = wd_err_set(err, WD_EFAIL, "%s: malformed PCI ID '%.*s' (expected 0x and up to %d hex digits)",
			       path, (int)(v.n > 40 ? 40 : v.n), v.p, digits);
		goto out;
	}
	*out = val;
out:
	wd_buf_free(&b);
	free(path);
	return r;
}

/* The device's configuration header (DIR/SLOT/config, the bytes the device
 * itself gives, which is what the OS/2 driver reads too): vendor, device,
 * revision and class, and for an ordinary device (header type 0) its
 * subsystem IDs, from one file instead of six. false (nothing set) when
 * there is no such file, it is shorter than the 48 bytes that hold them, or
 * it names no device (vendor 0xffff or 0): the six files are read then,
 * with their messages. Unprivileged readers get the first 64 bytes. */
static bool sysfs_config(int dfd, const char *slot, long *v, long *dv, long *sv, long *sd, long *cl, long *rev)
{
	char rel[300];
	if (snprintf(rel, sizeof rel, "%s/config", slot) >= (int)sizeof rel)
		return false;
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return false;
	}
	if (fd < 0)
		return false;
	unsigned char c[64];
	size_t len = 0;
	ssize_t n;
	while (len < sizeof c && (n = read(fd, c + len, sizeof c - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len < 48)
		return false;
	long vendor = c[0] | c[1] << 8;
	if (vendor == 0xffff || vendor == 0)
		return false;
	*v = vendor;
	*dv = c[2] | c[3] << 8;
	*rev = c[8];
	*cl = (long)c[9] | (long)c[10] << 8 | (long)c[11] << 16;
	if ((c[14] & 0x7f) == 0) {
		*sv = c[0x2c] | c[0x2d] << 8;
		*sd = c[0x2e] | c[0x2f] << 8;
	}
	return true;
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct pci_dev *)a)->slot, ((const struct pci_dev *)b)->slot);
}

int pci_read_sysfs(const char *dir, struct pci_list *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	out->source = wd_xasprintf("sysfs:%s", dir);
	DIR *d = opendir(dir);
	if (!d)
		return wd_err_set(err, WD_EFAIL, "%s: cannot read the PCI device folder: %s", dir,
				  strerror(errno));
	struct dirent *e;
	int r = 0;
	while (!r && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *devdir = wd_path_join(dir, e->d_name);
		struct pci_dev *dev = pci_add_dev(out);
		dev->slot = wd_xstrdup(e->d_name);
		long v = PCI_NONE, dv = PCI_NONE, sv = PCI_NONE, sd = PCI_NONE, cl = PCI_NONE,
		     rev = PCI_NONE;
		bool have = sysfs_config(dirfd(d), e->d_name, &v, &dv, &sv, &sd, &cl, &rev);
		/* a bridge's subsystem IDs are not in its header: from the files */
		if (have && sv == PCI_NONE &&
		    !(r = sysfs_id(devdir, "subsystem_vendor", 4, false, &sv, err)))
			r = sysfs_id(devdir, "subsystem_device", 4, false, &sd, err);
		if (!have && !(r = sysfs_id(devdir, "vendor", 4, true, &v, err)) &&
		    !(r = sysfs_id(devdir, "device", 4, true, &dv, err)) &&
		    !(r = sysfs_id(devdir, "subsystem_vendor", 4, false, &sv, err)) &&
		    !(r = sysfs_id(devdir, "subsystem_device", 4, false, &sd, err)) &&
		    !(r = sysfs_id(devdir, "class", 6, false, &cl, err)))
			r = sysfs_id(devdir, "revision", 2, false, &rev, err);
		dev->vendor = (int)v;
		dev->device = (int)dv;
		dev->subvendor = (int)sv;
		dev->subdevice = (int)sd;
		dev->class_code = cl;
		dev->revision = (int)rev;
		free(devdir);
	}
	closedir(d);
	if (r)
		return r;
	qsort(out->devs, out->n, sizeof *out->devs, cmp_dev);
	pci_finish(out);
	return 0;
}

/* ---- lspci -n / -nn ---- */

/* "00:03.0" or "0000:00:03.0" at the start of the line; returns its length. */
static size_t slot_len(struct wd_sv l)
{
	static const char *forms[] = {"hh:hh.h", "hhhh:hh:hh.h"};
	for (int f = 1; f >= 0; f--) {
		size_t n = strlen(forms[f]);
		if (l.n < n + 1 || l.p[n] != ' ')
			continue;
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++)
			ok = forms[f][i] == 'h' ? isxdigit((unsigned char)l.p[i]) != 0 : l.p[i] == forms[f][i];
		if (ok)
			return n;
	}
	return 0;
}

/* The last "[hhhh:hhhh]" in the text, as -nn prints IDs. */
static bool last_bracket_ids(struct wd_sv t, long *a, long *b)
{
	for (size_t i = t.n; i >= 11; i--) {
		const char *s = t.p + i - 11;
		if (s[0] == '[' && s[5] == ':' && s[10] == ']' && hexn(s + 1, 4, a) && hexn(s + 6, 4, b))
			return true;
	}
	return false;
}

/* The class: "0200: " first (-n), or the first "[0200]: " (-nn). Sets *after
 * to the text that follows. */
static bool lspci_class(struct wd_sv rest, long *cls, struct wd_sv *after)
{
	if (rest.n >= 6 && rest.p[4] == ':' && rest.p[5] == ' ' && hexn(rest.p, 4, cls)) {
		*after = wd_sv_make(rest.p + 6, rest.n - 6);
		return true;
	}
	for (size_t i = 0; i + 8 <= rest.n; i++) {
		const char *s = rest.p + i;
		if (s[0] == '[' && s[5] == ']' && s[6] == ':' && s[7] == ' ' && hexn(s + 1, 4, cls)) {
			*after = wd_sv_make(s + 8, rest.n - i - 8);
			return true;
		}
	}
	return false;
}

/* A "(rev 02)" or "(prog-if 8a ...)" note after the IDs. */
static long lspci_note(struct wd_sv t, const char *tag, long dflt)
{
	size_t n = strlen(tag);
	long v;
	for (size_t i = 0; i + n + 2 <= t.n; i++)
		if (!memcmp(t.p + i, tag, n) && hexn(t.p + i + n, 2, &v) &&
		    (i + n + 2 == t.n || t.p[i + n + 2] == ')' || t.p[i + n + 2] == ' '))
			return v;
	return dflt;
}

static int lspci_device(struct wd_sv l, size_t sl, const char *name, int lineno,
			struct pci_list *out, struct wd_err *err)
{
	struct wd_sv rest = wd_sv_make(l.p + sl + 1, l.n - sl - 1), after;
	long cls, ven, dev;
	bool ok = lspci_class(rest, &cls, &after);
	if (ok) {
		/* -n: "8086:100e (rev 02)"; -nn: "... [8086:100e] (rev 02)" */
		if (after.n >= 9 && after.p[4] == ':' && (after.n == 9 || after.p[9] == ' ') &&
		    hexn(after.p, 4, &ven) && hexn(after.p + 5, 4, &dev))
			ok = true;
		else
			ok = last_bracket_ids(after, &ven, &dev);
	}
	if (!ok)
		return wd_err_set(err, WD_EFAIL,
				  "%s line %d: not a device line of `lspci -n` or `lspci -nn` output: %.*s",
				  name, lineno, (int)(l.n > 80 ? 80 : l.n), l.p);
	struct pci_dev *d = pci_add_dev(out);
	d->slot = sl == 7 ? wd_xasprintf("0000:%.*s", (int)sl, l.p) : wd_xstrndup(l.p, sl);
	for (char *s = d->slot; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	d->vendor = (int)ven;
	d->device = (int)dev;
	d->class_code = (cls << 8) | lspci_note(after, "(prog-if ", 0);
	d->revision = (int)lspci_note(after, "(rev ", PCI_NONE);
	return 0;
}

int pci_parse_lspci(const char *text, size_t len, const char *name, struct pci_list *out,
		    struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	out->source = wd_xasprintf("lspci:%s", name);
	struct lines it = {text, text + len, 0};
	struct wd_sv l;
	while (next_line(&it, &l)) {
		if (!wd_sv_trim(l).n)
			continue;
		if (l.p[0] == ' ' || l.p[0] == '\t') {
			/* `lspci -nn -v` detail lines: only the subsystem IDs matter. */
			struct wd_sv t = wd_sv_trim(l);
			long sv, sd;
			if (out->n && wd_sv_istarts(t, "Subsystem:") && last_bracket_ids(t, &sv, &sd)) {
				out->devs[out->n - 1].subvendor = (int)sv;
				out->devs[out->n - 1].subdevice = (int)sd;
			}
			continue;
		}
		size_t sl = slot_len(l);
		if (!sl)
			return wd_err_set(err, WD_EFAIL,
					  "%s line %d: not a line of `lspci -n` or `lspci -nn` output "
					  "(expected a slot such as 00:03.0): %.*s",
					  name, it.no, (int)(l.n > 80 ? 80 : l.n), l.p);
		int r = lspci_device(l, sl, name, it.no, out, err);
		if (r)
			return r;
	}
	pci_finish(out);
	return 0;
}

/* ---- VBoxManage showvminfo --machinereadable ---- */

struct vbox_nic {
	int n;
	char *attach, *type;
	int attach_line, type_line;
};

/* key="value" with an unquoted key; other shapes are not ours to read. */
static bool kv(struct wd_sv l, struct wd_sv *k, struct wd_sv *v, bool *quoted_ok)
{
	const char *eq = memchr(l.p, '=', l.n);
	if (!eq)
		return false;
	*k = wd_sv_make(l.p, (size_t)(eq - l.p));
	struct wd_sv rest = wd_sv_make(eq + 1, l.n - k->n - 1);
	*quoted_ok = rest.n >= 2 && rest.p[0] == '"' && rest.p[rest.n - 1] == '"';
	*v = *quoted_ok ? wd_sv_make(rest.p + 1, rest.n - 2) : rest;
	return true;
}

/* "nic3" -> 3 with prefix "nic"; 0 when the key is not prefix+number. */
static int keyed_index(struct wd_sv k, const char *prefix)
{
	size_t n = strlen(prefix);
	if (k.n <= n || k.n > n + 3 || memcmp(k.p, prefix, n))
		return 0;
	int v = 0;
	for (size_t i = n; i < k.n; i++) {
		if (!isdigit((unsigned char)k.p[i]))
			return 0;
		v = v * 10 + (k.p[i] - '0');
	}
	return v;
}

static struct vbox_nic *nic_slot(struct vbox_nic **nics, size_t *n, int idx)
{
	for (size_t i = 0; i < *n; i++)
		if ((*nics)[i].n == idx)
			return &(*nics)[i];
	*nics = wd_xrealloc(*nics, (*n + 1) * sizeof **nics);
	struct vbox_nic *s = &(*nics)[(*n)++];
	memset(s, 0, sizeof *s);
	s->n = idx;
	return s;
}

static int cmp_nic(const void *a, const void *b)
{
	return ((const struct vbox_nic *)a)->n - ((const struct vbox_nic *)b)->n;
}

static void free_nics(struct vbox_nic *nics, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(nics[i].attach);
		free(nics[i].type);
	}
	free(nics);
}

static int parse_machinereadable(const char *text, size_t len, const char *name,
				 struct pci_list *out, struct wd_err *err);

void vbox_add_adapter(struct pci_list *l, int n, const char *attach, const char *type)
{
	const struct vbox_nic_model *m = vbox_model_by_nictype(type);
	struct pci_dev *d = pci_add_dev(l);
	d->slot = wd_xasprintf("nic%d", n);
	d->adapter = n;
	d->attachment = wd_xstrdup(attach);
	d->class_code = 0x020000;
	if (m) {
		d->vendor = m->vendor;
		d->device = m->device;
		d->subvendor = m->subvendor;
		d->subdevice = m->subdevice;
		d->revision = m->revision;
		d->vbox_model = m->nictype;
		d->name = wd_xstrdup(m->title);
	} else {
		/* A type newer than this table: listed, driven by nothing. */
		d->name = wd_xasprintf("VirtualBox adapter type %s", type);
	}
}

/* Does the text hold one KEY="VALUE" line, as every showvminfo
 * --machinereadable output does (name="...", to begin with)? */
static bool looks_machinereadable(const char *text, size_t len)
{
	struct lines it = {text, text + len, 0};
	struct wd_sv l, k, v;
	while (next_line(&it, &l)) {
		bool quoted;
		if (kv(l, &k, &v, &quoted) && quoted && k.n && !memchr(k.p, ' ', k.n) &&
		    !memchr(k.p, '<', k.n))
			return true;
	}
	return false;
}

int pci_parse_vbox(const char *text, size_t len, const char *name, struct pci_list *out,
		   struct wd_err *err)
{
	size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && text[i] == '<')
		return pci_parse_vbox_xml(text, len, name, out, err);
	memset(out, 0, sizeof *out);
	if (!looks_machinereadable(text, len))
		return wd_err_set(err, WD_EFAIL, "%s: neither a VirtualBox machine file (.vbox, "
				  "XML) nor the output of `VBoxManage showvminfo VM "
				  "--machinereadable`: give --pci vbox: one of the two", name);
	return parse_machinereadable(text, len, name, out, err);
}

static int parse_machinereadable(const char *text, size_t len, const char *name,
				 struct pci_list *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	out->source = wd_xasprintf("vbox:%s", name);
	out->virtualbox = true;
	struct vbox_nic *nics = NULL;
	size_t nn = 0;
	struct lines it = {text, text + len, 0};
	struct wd_sv l, k, v;
	int r = 0;
	while (!r && next_line(&it, &l)) {
		bool quoted;
		if (!kv(l, &k, &v, &quoted))
			continue; /* "Encryption:     disabled" and the like */
		int ai = keyed_index(k, "nic"), ti = keyed_index(k, "nictype");
		if (!ai && !ti)
			continue;
		if (!quoted || memchr(v.p, '"', v.n) || !v.n) {
			r = wd_err_set(err, WD_EFAIL,
				       "%s line %d: cannot read '%.*s': expected %.*s=\"VALUE\" as "
				       "`VBoxManage showvminfo --machinereadable` prints it",
				       name, it.no, (int)(l.n > 80 ? 80 : l.n), l.p, (int)k.n, k.p);
			break;
		}
		struct vbox_nic *s = nic_slot(&nics, &nn, ai ? ai : ti);
		char **field = ai ? &s->attach : &s->type;
		free(*field);
		*field = wd_sv_dup(v);
		*(ai ? &s->attach_line : &s->type_line) = it.no;
	}
	if (!r && nn) { /* no adapter lines: nics is NULL, which qsort may not be given */
		qsort(nics, nn, sizeof *nics, cmp_nic);
		for (size_t i = 0; i < nn && !r; i++) {
			struct vbox_nic *s = &nics[i];
			if (!s->attach || !strcasecmp(s->attach, "none"))
				continue; /* disabled adapter */
			if (!s->type) {
				r = wd_err_set(err, WD_EFAIL,
					       "%s line %d: adapter %d is enabled (nic%d=\"%s\") but the file "
					       "has no nictype%d line", name, s->attach_line, s->n, s->n,
					       s->attach, s->n);
				break;
			}
			vbox_add_adapter(out, s->n, s->attach, s->type);
		}
	}
	free_nics(nics, nn);
	if (r)
		return r;
	pci_finish(out);
	return 0;
}

/* ---- the source option ---- */

static int read_source_file(const char *path, struct wd_buf *b, struct wd_err *err)
{
	if (strcmp(path, "-"))
		return wd_read_file(path, MAX_SOURCE_BYTES, b, err);
	wd_buf_reset(b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
		wd_buf_add(b, chunk, n);
		if (b->len > MAX_SOURCE_BYTES)
			return wd_err_set(err, WD_EFAIL, "standard input: larger than %u bytes", MAX_SOURCE_BYTES);
	}
	if (ferror(stdin))
		return wd_err_set(err, WD_EFAIL, "standard input: cannot read: %s", strerror(errno));
	wd_buf_cstr(b);
	return 0;
}

int pci_read(const char *source, struct pci_list *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	if (!source || !strcmp(source, "sysfs"))
		return pci_read_sysfs("/sys/bus/pci/devices", out, err);
	if (!strncmp(source, "sysfs:", 6) && source[6])
		return pci_read_sysfs(source + 6, out, err);
	bool lspci = !strncmp(source, "lspci:", 6), vbox = !strncmp(source, "vbox:", 5);
	const char *path = lspci ? source + 6 : vbox ? source + 5 : NULL;
	if (!path || !*path)
		return wd_err_set(err, WD_EUSAGE,
				  "--pci %s: expected sysfs, sysfs:DIR, lspci:FILE (- for stdin) or vbox:FILE",
				  source);
	struct wd_buf b = {0};
	int r = read_source_file(path, &b, err);
	const char *name = strcmp(path, "-") ? path : "standard input";
	if (!r)
		r = lspci ? pci_parse_lspci(b.p, b.len, name, out, err)
			  : pci_parse_vbox(b.p, b.len, name, out, err);
	wd_buf_free(&b);
	return r;
}
