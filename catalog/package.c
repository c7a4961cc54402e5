#include "catalog/package.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/gz.h"
#include "trust/signed.h"
#include "catalog/tar.h"
#include "common/file.h"
#include "common/hash.h"

static int gz_source(void *src, void *buf, size_t n, struct wd_err *err)
{
	return gz_read(src, buf, n, err);
}

static uint64_t padded(uint64_t n)
{
	return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static int read_manifest(struct tar_reader *tr, const struct keyring *kr, const char *where,
			 struct package *p, struct wd_err *err)
{
	struct tar_entry e;
	int r = tar_next(tr, &e, err);
	if (r < 0)
		return r;
	if (r == 0 || strcmp(e.name, PACKAGE_MANIFEST))
		return wd_err_set(err, WD_ETRUST, "%s: the first member must be %s", where,
				  PACKAGE_MANIFEST);
	if (e.size > MANIFEST_MAX_BYTES)
		return wd_err_set(err, WD_ETRUST, "%s: %s is larger than %d bytes", where,
				  PACKAGE_MANIFEST, MANIFEST_MAX_BYTES);
	if ((r = tar_data(tr, &e, &p->manifest, err)))
		return r;
	char what[300];
	snprintf(what, sizeof what, "%s: %s", where, PACKAGE_MANIFEST);
	size_t body;
	if ((r = signed_verify(p->manifest.p, p->manifest.len, kr, what, &body, p->signer, err)))
		return r;
	return manifest_parse(p->manifest.p, body, false, what, &p->m, err);
}

static int hash_sink(void *ctx, const void *p, size_t n, struct wd_err *err)
{
	(void)err;
	wd_sha256_update(ctx, p, n);
	return 0;
}

/* The member's SHA-256 (hex), its bytes kept in keep (may be NULL: then
 * streamed through the hash only). */
static int member_hash(struct tar_reader *tr, const struct tar_entry *e, struct wd_buf *keep,
		       char hex[WD_SHA256_HEX], struct wd_err *err)
{
	if (keep) {
		int r = tar_data(tr, e, keep, err);
		if (!r)
			wd_sha256_hex(keep->p, keep->len, hex);
		return r;
	}
	struct wd_sha256 *h = wd_sha256_new();
	int r = tar_data_chunks(tr, e, hash_sink, h, err);
	unsigned char sum[WD_SHA256_LEN];
	wd_sha256_final(h, sum);
	wd_sha256_free(h);
	wd_hex(sum, sizeof sum, hex);
	return r;
}

static int read_member(struct tar_reader *tr, const struct tar_entry *e, const char *where,
		       struct package *p, bool *seen, size_t *hint, struct wd_err *err)
{
	/* from the entry after the last one found, round to it: members packed
	 * in the manifest's order (warpdrv-admin pack's) are found at once */
	size_t n = p->m.nfiles, i = n, k;
	for (k = 0; k < n && i == n; k++)
		if (!strcmp(p->m.files[(*hint + k) % n].src, e->name))
			i = (*hint + k) % n;
	if (i == n)
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' is not listed in the manifest",
				  where, e->name);
	if (seen[i])
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' appears twice", where, e->name);
	seen[i] = true;
	*hint = i + 1;
	const struct pkg_file *f = &p->m.files[i];
	if (e->size != f->size)
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' is %llu bytes; the manifest "
				  "says %llu", where, e->name, (unsigned long long)e->size,
				  (unsigned long long)f->size);
	char hex[WD_SHA256_HEX];
	int r = member_hash(tr, e, p->data ? &p->data[i] : NULL, hex, err);
	if (r)
		return r;
	if (strcmp(hex, f->sha256))
		return wd_err_set(err, WD_ETRUST, "%s: member '%s' does not match the SHA-256 in "
				  "the manifest (damaged or altered)", where, e->name);
	return 0;
}

/* The ceiling on what one package unpacks to (docs/formats.md), checked from
 * the signed manifest before a member is read. */
static int check_unpacked(const struct package *p, const char *where, uint64_t *total,
			  struct wd_err *err)
{
	*total = 0;
	for (size_t i = 0; i < p->m.nfiles; i++)
		*total += p->m.files[i].size;
	if (*total > PACKAGE_MAX_UNPACKED)
		return wd_err_set(err, WD_ETRUST, "%s: its files add up to %llu bytes, more than "
				  "the %d MiB a package may unpack to", where,
				  (unsigned long long)*total, PACKAGE_MAX_UNPACKED >> 20);
	return 0;
}

static int read_members(struct tar_reader *tr, const char *where, struct package *p,
			bool *seen, struct wd_err *err)
{
	struct tar_entry e;
	int r;
	size_t hint = 0;
	while ((r = tar_next(tr, &e, err)) == 1)
		if ((r = read_member(tr, &e, where, p, seen, &hint, err)))
			return r;
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->m.nfiles; i++)
		if (!seen[i])
			return wd_err_set(err, WD_ETRUST, "%s: the manifest lists '%s' but the "
					  "package lacks it", where, p->m.files[i].src);
	return 0;
}

static int read_package(const void *wdp, size_t len, const struct keyring *kr,
			const char *where, bool keep, struct package *p, struct wd_err *err)
{
	memset(p, 0, sizeof *p);
	if (len > PACKAGE_MAX_BYTES)
		return wd_err_set(err, WD_ETRUST, "%s: larger than %d bytes", where, PACKAGE_MAX_BYTES);
	struct gz_reader g;
	int r = gz_reader_init(&g, wdp, len, 2 * TAR_BLOCK + MANIFEST_MAX_BYTES, where, err);
	if (r)
		return r;
	struct tar_reader tr = {gz_source, &g, where};
	bool *seen = NULL;
	uint64_t total;
	if ((r = read_manifest(&tr, kr, where, p, err)) ||
	    (r = check_unpacked(p, where, &total, err)))
		goto out;
	/* From here on the manifest says how much data there may be: the
	 * members, their headers, and the end blocks padded to tar's 10 KiB record. */
	uint64_t limit = g.total + 10240 + 2 * TAR_BLOCK;
	for (size_t i = 0; i < p->m.nfiles; i++)
		limit += TAR_BLOCK + padded(p->m.files[i].size);
	g.limit = limit;
	if (keep)
		p->data = wd_xcalloc(p->m.nfiles, sizeof *p->data);
	seen = wd_xcalloc(p->m.nfiles, sizeof *seen);
	if (!(r = read_members(&tr, where, p, seen, err)))
		r = gz_finish(&g, err);
out:
	free(seen);
	gz_reader_free(&g);
	if (r)
		package_free(p);
	return r;
}

int package_read(const void *wdp, size_t len, const struct keyring *kr, const char *where,
		 struct package *p, struct wd_err *err)
{
	return read_package(wdp, len, kr, where, true, p, err);
}

int package_check(const void *wdp, size_t len, const struct keyring *kr, const char *where,
		  struct package *p, struct wd_err *err)
{
	return read_package(wdp, len, kr, where, false, p, err);
}

void package_free(struct package *p)
{
	if (p->data)
		for (size_t i = 0; i < p->m.nfiles; i++)
			wd_buf_free(&p->data[i]);
	free(p->data);
	manifest_free(&p->m);
	wd_buf_free(&p->manifest);
	memset(p, 0, sizeof *p);
}

const struct wd_buf *package_member(const struct package *p, const char *name)
{
	for (size_t i = 0; p->data && i < p->m.nfiles; i++) {
		const char *d = p->m.files[i].dest, *base = strrchr(d, '\\');
		if (!strcasecmp(base ? base + 1 : d, name))
			return &p->data[i];
	}
	return NULL;
}

char *package_file_name(const struct pkg_manifest *m)
{
	return wd_xasprintf("%s-%s.wdp", m->name, m->version);
}

static int load_payload(const char *recipe_dir, const char *vendor_dir, struct pkg_file *f,
			struct wd_buf *data, struct wd_err *err)
{
	char *path = vendor_dir ? wd_path_join(vendor_dir, f->src) : NULL;
	if (!path || !wd_exists(path)) { /* host: the vendor's files */
		free(path);
		path = wd_path_join(recipe_dir, f->src);
	}
	int r = wd_read_file(path, TAR_MAX_MEMBER, data, err); /* host: a recipe's payload */
	free(path);
	if (r)
		return r;
	f->size = data->len;
	wd_sha256_hex(data->p, data->len, f->sha256);
	f->has_hash = true;
	return 0;
}

int package_pack(const char *recipe_dir, const char *vendor_dir, const struct wd_key *key,
		 struct wd_buf *out, struct pkg_manifest *m_out, struct wd_err *err)
{
	char *mpath = wd_path_join(recipe_dir, PACKAGE_MANIFEST);
	struct wd_buf text = {0}, tar = {0}, signed_text = {0};
	struct wd_buf *data = NULL;
	struct pkg_manifest m = {0};
	int r = wd_read_file(mpath, MANIFEST_MAX_BYTES, &text, err); /* host: a recipe's MANIFEST */
	if (!r)
		r = manifest_parse(text.p, text.len, true, mpath, &m, err);
	if (r)
		goto out;
	data = wd_xcalloc(m.nfiles, sizeof *data);
	for (size_t i = 0; !r && i < m.nfiles; i++)
		r = load_payload(recipe_dir, vendor_dir, &m.files[i], &data[i], err);
	if (r)
		goto out;
	manifest_write(&m, &signed_text);
	if ((r = signed_append(&signed_text, key, err)))
		goto out;
	tar_add(&tar, PACKAGE_MANIFEST, signed_text.p, signed_text.len);
	for (size_t i = 0; i < m.nfiles; i++)
		tar_add(&tar, m.files[i].src, data[i].p, data[i].len);
	tar_end(&tar);
	r = gz_compress(tar.p, tar.len, out, err);
out:
	if (data)
		for (size_t i = 0; i < m.nfiles; i++)
			wd_buf_free(&data[i]);
	free(data);
	if (!r && m_out)
		*m_out = m;
	else
		manifest_free(&m);
	wd_buf_free(&text);
	wd_buf_free(&tar);
	wd_buf_free(&signed_text);
	free(mpath);
	return r;
}
