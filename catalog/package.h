/* A package file (.wdp): a gzip-compressed ustar archive whose first member
 * is MANIFEST, the signed manifest (catalog/manifest.h, catalog/signed.h),
 * followed by one member per file line, named by the line's SRC. The
 * signature covers the manifest; the manifest pins each file's size and
 * SHA-256, so the signature covers everything. */
#ifndef WD_PACKAGE_H
#define WD_PACKAGE_H

#include "catalog/manifest.h"
#include "common/buf.h"
#include "trust/keys.h"

#define PACKAGE_MANIFEST "MANIFEST"
#define PACKAGE_MAX_BYTES (64 * 1024 * 1024) /* compressed */
/* What a package's files may add up to unpacked: with the compressed bytes,
 * the ceiling on the memory a package costs (docs/formats.md). */
#define PACKAGE_MAX_UNPACKED (128 * 1024 * 1024)

struct index_entry;
struct repo;

struct package {
	struct pkg_manifest m;
	struct wd_buf manifest;   /* the signed text, signature line included */
	char signer[WD_FPR_HEX];
	struct wd_buf *data;      /* data[i] holds the bytes of m.files[i] */
	bool downgrade_ok;        /* named as PKG=VERSION: may replace a newer version */
	/* Known only from its index entry (catalog_stub in catalog/repo.h):
	 * what setup chooses by, no files; catalog_unstub reads it in place. */
	const struct index_entry *stub;
	const struct repo *stub_from;
};

/* Reads and checks a whole package in memory: signature by a trusted key,
 * every member a listed plain file with a safe name, once, with the size and
 * hash the manifest gives, nothing unlisted, nothing missing, no more data
 * than declared, no more than PACKAGE_MAX_UNPACKED bytes in all (refused from
 * the manifest, before a member is unpacked). Any failure is WD_ETRUST with a
 * message naming where (WD_EFAIL when memory runs out). */
int package_read(const void *wdp, size_t len, const struct keyring *kr, const char *where,
		 struct package *p, struct wd_err *err);
/* The same checks with the members streamed through their hashes and not
 * kept (p->data is NULL): for commands that show or verify a package
 * without installing it, in a few KiB whatever the package holds. */
int package_check(const void *wdp, size_t len, const struct keyring *kr, const char *where,
		  struct package *p, struct wd_err *err);
void package_free(struct package *p);

/* Packs the recipe folder (MANIFEST and the files it names) into out, signed
 * with key. A file found in vendor_dir (may be NULL) under the same name is
 * packed instead of the recipe's stand-in. m (may be NULL) receives the
 * packed manifest. */
int package_pack(const char *recipe_dir, const char *vendor_dir, const struct wd_key *key,
		 struct wd_buf *out, struct pkg_manifest *m, struct wd_err *err);

/* "mmlem-2.06.wdp" (malloc'd) */
char *package_file_name(const struct pkg_manifest *m);

/* The bytes of the member installed as NAME (its destination's last
 * component, compared without case: "MMLEM.NIF"), or NULL: none, or a
 * package read without its members. */
const struct wd_buf *package_member(const struct package *p, const char *name);

#endif
