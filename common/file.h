/* Whole-file reads and crash-safe writes. Messages name the path. */
#ifndef WD_FILE_H
#define WD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"

/* Reads the whole file into out (replacing its contents). Refuses files over
 * max bytes (0: no limit) so that a hostile input cannot exhaust memory. */
int wd_read_file(const char *path, size_t max, struct wd_buf *out, struct wd_err *err);

/* Writes data beside path under a temporary name, flushes it, renames it over
 * path and flushes the folder: readers see the old bytes or the new, never a mix. */
int wd_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		    struct wd_err *err);

int wd_fsync_dir(const char *dir, struct wd_err *err);

/* Flushes every change on the file system that holds path (a file or folder)
 * in one wait, where the system can: Linux has syncfs(2). A batch of N new
 * files then costs one flush rather than N. Where WD_HAVE_SYNC_FS is 0 (a
 * native OS/2 build, say) it fails, and callers flush file by file. */
#ifdef __linux__
#define WD_HAVE_SYNC_FS 1
#else
#define WD_HAVE_SYNC_FS 0
#endif
int wd_sync_fs(const char *path, struct wd_err *err);
int wd_fsync_parent(const char *path, struct wd_err *err);
/* mkdir -p; created folders get mode 0755. */
int wd_mkdirs(const char *path, struct wd_err *err);
bool wd_exists(const char *path);
bool wd_is_dir(const char *path);
/* "a/b" + "c" -> "a/b/c" (malloc'd). */
char *wd_path_join(const char *a, const char *b);
/* The folder part of a path (malloc'd; "." when there is none). */
char *wd_dirname(const char *path);

#endif
