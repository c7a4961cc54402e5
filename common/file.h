/* Host files: whole-file reads and crash-safe writes of files that are not on
 * an OS/2 volume (the program's own data, files named on the command line, a
 * repository the vendor's tool writes). Everything on a volume goes through
 * the confined layer, fs/fs.h. Messages name the path. */
#ifndef WD_FILE_H
#define WD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"

/* Reads the whole file into out (replacing its contents). Refuses files over
 * max bytes (0: no limit) so that a hostile input cannot exhaust memory, and
 * anything but a plain file (a FIFO, a device, a socket, a folder): the file
 * is opened non-blocking and checked with fstat before a byte is read, so a
 * FIFO never hangs the reader. */
int wd_read_file(const char *path, size_t max, struct wd_buf *out, struct wd_err *err);

/* What the file at st is, in words: "a symbolic link", "a FIFO", "a device",
 * "a socket", "a folder", "a file". */
const char *wd_file_kind(mode_t mode);

/* open(2) for a plain file on a volume: never follows a symbolic link in the
 * last component, never blocks on a FIFO, and refuses (with the path and what
 * is there) anything but a plain file. flags are open's (O_RDONLY, O_RDWR,
 * O_WRONLY | O_CREAT | O_TRUNC...). Returns the descriptor or -code. */
int wd_open_plain(const char *path, int flags, mode_t mode, struct wd_err *err);

/* The pieces the confined layer (fs/) shares with the host-file functions:
 * the message for something that is not a plain file; an open descriptor
 * checked to be a plain file (or a folder), made blocking again (closed and
 * -code if not); a whole read of an open descriptor (closing it); a write of
 * every byte; a copy in fixed-size chunks. */
int wd_not_plain(struct wd_err *err, const char *path, mode_t mode);
int wd_plain_fd(int fd, const char *path, bool want_dir, struct wd_err *err);
int wd_read_fd(int fd, const char *path, size_t max, struct wd_buf *out, struct wd_err *err);
int wd_write_all(int fd, const void *data, size_t n);
int wd_copy_fds(int in, int out, const char *from, const char *to, struct wd_err *err);

/* Refuses path if it is a symbolic link or a special file; a plain file, a
 * folder or nothing at all passes (*exists, may be NULL, tells which). */
int wd_check_plain(const char *path, bool *exists, struct wd_err *err);

/* Copies the plain file from to to in fixed-size chunks (memory stays small
 * whatever the size): to is created (O_NOFOLLOW, truncated) with from's mode,
 * and from's owner where the process may give it. Neither end may be a link
 * or a special file. to is not flushed: the caller batches the flushes. */
int wd_copy_file(const char *from, const char *to, struct wd_err *err);

/* Gives the new file (a temporary about to be renamed over old) the mode and
 * owner of old, so a rewrite keeps a 0600 CONFIG.SYS 0600 and its owner. Does
 * nothing when old does not exist or is a symbolic link (never followed). An owner the process may not give (not
 * root) is left as it is; the mode is always copied. */
int wd_copy_mode_owner(const char *old, const char *new_path, struct wd_err *err);

/* Writes data beside path under a temporary name, flushes it, renames it over
 * path and flushes the folder: readers see the old bytes or the new, never a mix.
 * An existing path keeps its mode and owner (mode is for a new file). */
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
/* The folder of the running program (/proc/self/exe's), malloc'd; NULL
 * when the system does not say. The program's own files are found from it:
 * its data (ui/out.c: ui_data_dir), its transfer helper
 * (catalog/fetch_helper.c). */
char *wd_exe_dir(void);

#endif
