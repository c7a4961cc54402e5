/* warpdrv clean: the download cache of the volume
 * (var/cache/warpdrv/packages, catalog/repo.h) emptied of the packages
 * downloaded there, every file by the root's handle (fs/), no link followed:
 * a link, folder or other thing planted in the cache folder is left as it is
 * and named, and the cache folder itself must be a folder, not a link. The
 * volume's lock is held while it removes (a transaction under way ends
 * first), and a partial download another warpdrv is writing (its lock,
 * catalog_part_lock) is left. Nothing here prints. */
#ifndef WD_CLEAN_H
#define WD_CLEAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "os2/volume.h"

enum clean_what {
	CLEAN_PACKAGE, /* a downloaded package (or another plain file): removed */
	CLEAN_PARTIAL, /* a partial download (NAME.part): removed */
	CLEAN_BUSY,    /* a partial download being written now: left */
	CLEAN_OTHER,   /* not a plain file (a link, a folder...): left, never followed */
};

struct clean_file {
	char *name;      /* its name in the cache folder */
	uint64_t size;   /* the bytes removing it frees (0 for a file with another link) */
	enum clean_what what;
	const char *kind; /* CLEAN_OTHER: "a symbolic link", "a folder", ... */
};

struct clean_report {
	char *dir;                /* the cache folder's host path */
	bool exists;              /* false: no cache folder (nothing cached) */
	struct clean_file *files; /* in name order */
	size_t n;
	uint64_t bytes;           /* freed (with dry_run: would be) */
	size_t removed;           /* files removed (would be) */
	size_t left;              /* entries left: busy partial downloads, links, folders */
};

/* What the cache holds, writing nothing: the report as a dry run of
 * cache_clean gives it (busy partial downloads told apart). */
int cache_survey(const struct volume *v, struct clean_report *rep, struct wd_err *err);
/* Removes the cache's plain files (dry_run: only says which), under the
 * volume's lock; rep says what was freed and what was left. */
int cache_clean(const struct volume *v, bool dry_run, struct clean_report *rep,
		struct wd_err *err);
void clean_report_free(struct clean_report *rep);

#endif
