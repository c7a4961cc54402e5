#include "catalog/tar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/manifest.h"

/* ustar header offsets */
enum { NAME = 0, MODE = 100, UID = 108, GID = 116, SIZE = 124, MTIME = 136, CHKSUM = 148,
       TYPE = 156, LINK = 157, MAGIC = 257, VERSION = 263, UNAME = 265, GNAME = 297,
       PREFIX = 345 };

static unsigned checksum(const unsigned char *h)
{
	unsigned sum = 0;
	for (int i = 0; i < TAR_BLOCK; i++)
		sum += (i >= CHKSUM && i < CHKSUM + 8) ? ' ' : h[i];
	return sum;
}

void tar_add(struct wd_buf *out, const char *name, const void *data, size_t len)
{
	unsigned char h[TAR_BLOCK] = {0};
	snprintf((char *)h + NAME, 100, "%s", name);
	memcpy(h + MODE, "0000644", 8);
	memcpy(h + UID, "0000000", 8);
	memcpy(h + GID, "0000000", 8);
	snprintf((char *)h + SIZE, 12, "%011llo", (unsigned long long)len);
	memcpy(h + MTIME, "00000000000", 12);
	h[TYPE] = '0';
	memcpy(h + MAGIC, "ustar", 6);
	memcpy(h + VERSION, "00", 2);
	memcpy(h + UNAME, "root", 5);
	memcpy(h + GNAME, "root", 5);
	snprintf((char *)h + CHKSUM, 8, "%06o", checksum(h));
	h[CHKSUM + 7] = ' ';
	wd_buf_add(out, h, sizeof h);
	wd_buf_add(out, data, len);
	static const char zero[TAR_BLOCK];
	if (len % TAR_BLOCK)
		wd_buf_add(out, zero, TAR_BLOCK - len % TAR_BLOCK);
}

void tar_end(struct wd_buf *out)
{
	static const char zero[2 * TAR_BLOCK];
	wd_buf_add(out, zero, sizeof zero);
}

/* An octal field: digits, then spaces or NULs to the end. */
static int octal(const unsigned char *p, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	size_t i = 0;
	while (i < n && p[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
		if (x >> 60)
			return -1;
		x = x * 8 + (uint64_t)(p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	if (!digits)
		return -1;
	*out = x;
	return 0;
}

static int field_str(const unsigned char *p, size_t n, char *out, size_t cap)
{
	size_t len = strnlen((const char *)p, n);
	if (len >= cap)
		return -1;
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static const char *type_name(unsigned char t)
{
	switch (t) {
	case '1': return "a hard link";
	case '2': return "a symbolic link";
	case '3': case '4': return "a device";
	case '5': return "a folder";
	case '6': return "a FIFO";
	case 'x': case 'g': return "a pax header";
	case 'L': case 'K': return "a GNU long-name header";
	default: return "not a plain file";
	}
}

int tar_mem_read(void *src, void *buf, size_t n, struct wd_err *err)
{
	struct wd_sv *v = src;
	if (n > v->n)
		return wd_err_set(err, WD_ETRUST, "truncated");
	memcpy(buf, v->p, n);
	v->p += n;
	v->n -= n;
	return 0;
}

int tar_next(struct tar_reader *r, struct tar_entry *e, struct wd_err *err)
{
	unsigned char h[TAR_BLOCK];
	int rc = r->read(r->src, h, sizeof h, err);
	if (rc)
		return rc;
	if (all_zero(h, sizeof h))
		return 0;
	uint64_t sum;
	if (octal(h + CHKSUM, 8, &sum) || sum != checksum(h))
		return wd_err_set(err, WD_ETRUST, "%s: corrupt tar header (bad checksum)", r->where);
	if (memcmp(h + MAGIC, "ustar", 5))
		return wd_err_set(err, WD_ETRUST, "%s: not a ustar archive", r->where);
	char name[101], prefix[156];
	if (field_str(h + NAME, 100, name, sizeof name) ||
	    field_str(h + PREFIX, 155, prefix, sizeof prefix))
		return wd_err_set(err, WD_ETRUST, "%s: corrupt tar header", r->where);
	/* 155 + 1 + 100 characters fit in 256 with the NUL */
	size_t pl = strlen(prefix);
	memcpy(e->name, prefix, pl);
	if (pl)
		e->name[pl++] = '/';
	memcpy(e->name + pl, name, strlen(name) + 1);
	for (char *c = e->name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?'; /* keep the message printable; the name is refused below */
	if (h[TYPE] != '0' && h[TYPE] != '\0')
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' is %s; packages hold plain "
				  "files only", r->where, e->name, type_name(h[TYPE]));
	if (!pkg_safe_member(e->name))
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' has an unsafe name (absolute, "
				  "'..', a drive letter or a backslash)", r->where, e->name);
	if (octal(h + SIZE, 12, &e->size))
		return wd_err_set(err, WD_ETRUST, "%s: member '%s': corrupt size field", r->where,
				  e->name);
	return 1;
}

/* Room for n bytes and a NUL in out; out of memory is a message, not an abort. */
static int reserve(struct tar_reader *r, const struct tar_entry *e, struct wd_buf *out,
		   size_t n, struct wd_err *err)
{
	if (out->cap >= n + 1)
		return 0;
	char *p = realloc(out->p, n + 1);
	if (!p)
		return wd_err_set(err, WD_EFAIL, "%s: member '%s': out of memory for %zu bytes",
				  r->where, e->name, n);
	out->p = p;
	out->cap = n + 1;
	return 0;
}

int tar_data(struct tar_reader *r, const struct tar_entry *e, struct wd_buf *out,
	     struct wd_err *err)
{
	wd_buf_reset(out);
	uint64_t padded = (e->size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	/* callers bound e->size by the manifest first; this is the backstop */
	if (e->size > TAR_MAX_MEMBER)
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' is larger than %d bytes",
				  r->where, e->name, TAR_MAX_MEMBER);
	int rc = reserve(r, e, out, (size_t)padded, err);
	if (rc)
		return rc;
	rc = r->read(r->src, out->p, (size_t)padded, err);
	if (rc)
		return rc;
	out->len = (size_t)e->size;
	out->p[out->len] = '\0';
	return 0;
}

int tar_data_chunks(struct tar_reader *r, const struct tar_entry *e,
		    int (*sink)(void *ctx, const void *p, size_t n, struct wd_err *err), void *ctx,
		    struct wd_err *err)
{
	if (e->size > TAR_MAX_MEMBER)
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' is larger than %d bytes",
				  r->where, e->name, TAR_MAX_MEMBER);
	unsigned char chunk[16 * TAR_BLOCK];
	uint64_t left = (e->size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK, data = e->size;
	while (left) {
		size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
		int rc = r->read(r->src, chunk, n, err);
		if (rc)
			return rc;
		size_t use = data < n ? (size_t)data : n;
		if (use && (rc = sink(ctx, chunk, use, err)))
			return rc;
		data -= use;
		left -= n;
	}
	return 0;
}
