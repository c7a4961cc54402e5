/* The stored catalog: var/cache/warpdrv/catalog.db, a SQLite file holding
 * the signed index of every remote repository exactly as it was fetched,
 * signature line included (as apt keeps its InRelease files). It lies on the
 * volume, which is never trusted, so every load verifies each index again
 * with the trusted keys and parses it like a fetched one: every entry used
 * comes from an index those keys signed, its file name checked by the one
 * rule of catalog/names.h. It can always be rebuilt (`warpdrv update`), so it
 * is written as FreeBSD pkg does: a new file beside the old one, filled in
 * one transaction, flushed, then renamed over it; a reader sees the old
 * catalog or the new, never a mix, and a failed update leaves the old one in
 * use. Format in docs/formats.md, "State on the volume". */
#ifndef WD_STORE_H
#define WD_STORE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "catalog/index.h"
#include "fs/fs.h"
#include "common/err.h"

#define STORE_DIR "var/cache/warpdrv"
#define STORE_NAME "catalog.db"

struct store_entry {
	const char *name; /* the repository's name */
	const char *url;  /* its URL (a re-added name with another URL starts afresh) */
	const char *from; /* the URL the index came from (a mirror, perhaps) */
	const struct repo_index *idx; /* with its signed text (idx->text) */
};

/* Opens the stored catalog read-only; *h NULL when there is none, or when it
 * is of another version (it is only a cache): then *other (may be NULL) is
 * true, for a note saying to run `warpdrv update`. path is a host path below
 * fs's root (the volume's cache): opened by handle (db_open_at), its schema
 * checked before any query. */
int store_open(const struct fs_root *fs, const char *path, sqlite3 **h, bool *other,
	       struct wd_err *err);
/* The index stored for a repository with this name and URL, verified with
 * kr (signature, every field; not its expiry, the caller's to judge) and with
 * its signed text in idx->text. *found false: none stored. -WD_ETRUST: one is
 * stored but is not an index kr's keys signed (altered, or signed by a key
 * not trusted in this run); the message names the file and the repository
 * and says to run 'warpdrv update'. */
int store_get(sqlite3 *h, const char *name, const char *url, const struct keyring *kr,
	      struct repo_index *idx, bool *found, struct wd_err *err);
/* Writes path anew with exactly these entries. */
int store_write(const struct fs_root *fs, const char *path, const struct store_entry *e, size_t n,
		struct wd_err *err);

#endif
