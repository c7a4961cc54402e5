/* The stored catalog: var/cache/warpdrv/catalog.db, a SQLite file holding
 * the checked index of every remote repository as rows. It can always be
 * rebuilt (`warpdrv update`), so it is written as FreeBSD pkg does: a new
 * file beside the old one, filled in one transaction, flushed, then renamed
 * over it; a reader sees the old catalog or the new, never a mix, and a
 * failed update leaves the old one in use. */
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
	const struct repo_index *idx;
};

/* Opens the stored catalog read-only; *h NULL when there is none (or it is
 * of another version: it is only a cache). */
/* path is a host path below fs's root (the volume's cache): opened by
 * handle (db_open_at), its schema checked before any query. */
int store_open(const struct fs_root *fs, const char *path, sqlite3 **h, struct wd_err *err);
/* The index stored for a repository, if any with this name and URL. */
int store_get(sqlite3 *h, const char *name, const char *url, struct repo_index *idx,
	      bool *found, struct wd_err *err);
/* Writes path anew with exactly these entries. */
int store_write(const struct fs_root *fs, const char *path, const struct store_entry *e, size_t n,
		struct wd_err *err);

#endif
