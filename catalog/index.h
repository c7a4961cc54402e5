/* The repository index: a signed text (catalog/signed.h) naming every
 * package of a repository with its size and SHA-256, a serial that only
 * grows, the issue and expiry dates, and the revoked subscription key ids.
 * Format in docs/formats.md, "Repository index". */
#ifndef WD_INDEX_H
#define WD_INDEX_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "catalog/manifest.h"
#include "common/buf.h"
#include "trust/keys.h"

#define INDEX_NAME "INDEX"
#define INDEX_MAX_BYTES (4 * 1024 * 1024)

struct index_entry {
	char *name, *version;
	int released;
	enum pkg_kind kind;
	char *entitlement; /* NULL: free */
	char *file;        /* "mmlem-2.06.wdp", relative to the repository */
	uint64_t size;
	char sha256[WD_SHA256_HEX];
	char *summary;
	/* What setup needs to choose the package without reading it (the
	 * "choose" and "nic" lines, docs/formats.md); choice false: an older
	 * index that does not say, and the package itself must be read. */
	bool choice;
	struct pkg_pci *pci;
	size_t npci;
	char *driver, *nif, *driver_name, *instance_drivername, *instance_switch;
	/* An older version of its name: an "older" line (its choose and nic
	 * lines "older-choose" and "older-nic"), which builds before it pass
	 * over, so that they see only the newest version, on the name's one
	 * "package" line (docs/formats.md, "Older versions"). */
	bool older;
};

/* How long a repository index lasts by default (warpdrv-admin index). */
#define INDEX_EXPIRES_DAYS 7

struct repo_index {
	uint64_t serial;
	int issued, expires; /* days since 1970-01-01 */
	struct index_entry *pkgs;
	size_t npkgs;
	char **revoked;      /* subscription key ids */
	size_t nrevoked;
	/* The repository's own mirrors ("mirror URL" lines): the only places
	 * besides its own host that a subscription repository's credentials
	 * go (docs/repository.md). The stored catalog does not keep them: a
	 * non-empty list is from an index whose signature was checked in this run. */
	char **mirrors;
	size_t nmirrors;
	char signer[WD_FPR_HEX];
	/* The signed text it was read from, signature line included, when it
	 * came from a repository (repo_fetch_index) or the stored catalog: what
	 * the stored catalog keeps and verifies again on every load. */
	struct wd_buf text;
};

/* Parses the signed part of an index (no signature check: index_read does it). */
int index_parse(const char *text, size_t len, const char *where, struct repo_index *idx,
		struct wd_err *err);
/* today for an index that does not expire: the bundled repository's, whose
 * trust is the program's own (it came with it), so that a guest that never
 * goes online keeps installing from it years after the build. */
#define INDEX_NO_EXPIRY INT_MIN

/* Checks the signature, parses, and refuses an index that expired before
 * today (never with today INDEX_NO_EXPIRY). */
int index_read(const char *text, size_t len, const struct keyring *kr, int today,
	       const char *where, struct repo_index *idx, struct wd_err *err);
void index_write(const struct repo_index *idx, struct wd_buf *out); /* unsigned */
/* The "choose" and "nic" lines of one entry (nothing for an entry without
 * them), and their reading back onto the last package of idx: how the
 * stored catalog keeps them. */
void index_choice_write(const struct index_entry *e, struct wd_buf *out);
int index_choice_read(struct repo_index *idx, const char *text, size_t len, const char *where,
		      struct wd_err *err);
void index_free(struct repo_index *idx);
/* The newest version named name (the entry of its "package" line). */
const struct index_entry *index_find(const struct repo_index *idx, const char *name);
/* Orders the entries of an index to write (warpdrv-admin index): by name,
 * each name's versions newest first, every one but the newest marked older.
 * Two entries of one name and version (the same release by
 * catalog/version.h's order) are refused naming both files. */
int index_order(struct repo_index *idx, const char *dir, struct wd_err *err);
bool index_is_revoked(const struct repo_index *idx, const char *keyid);
#define INDEX_MAX_MIRRORS 16
/* A mirror's URL: http:// or https:// (any case), a host, no user part, at
 * most 1024 printable ASCII characters. */
bool index_valid_mirror(const char *s, size_t n);
/* A revoked key id: 1..128 of [A-Za-z0-9._:-]. */
bool index_valid_keyid(const char *s, size_t n);

#endif
