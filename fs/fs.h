/* The confined file layer: every operation on an OS/2 volume goes through here.
 *
 * The volume is hostile data. Its top folder is opened once (fs_root_open)
 * and kept as a handle; every later operation resolves its path beneath that
 * handle, by the kernel, without following any symbolic link and without
 * leaving the root's file system: openat2(2) with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV where the
 * kernel has it, else a walk of O_NOFOLLOW | O_DIRECTORY opens from the root
 * handle, each checked to lie on the root's device. What acts on a name
 * (rename, unlink, mkdir, stat) opens the name's folder that way and then
 * calls the *at(2) function on that folder's handle with the last component
 * alone: no volume path string is ever resolved by the kernel from "/", so a
 * folder swapped for a link between two operations is refused, never
 * followed.
 *
 * Paths are the host paths the volume's resolver hands out (the root's path,
 * '/', then the part below it) or paths relative to the root; ".." and an
 * absolute path elsewhere are refused before the kernel sees them.
 *
 * Writing: a new file is made with O_CREAT | O_EXCL | O_NOFOLLOW (a stale
 * temporary of the same name is unlinked by handle first), so nothing is
 * ever written through a name that already existed, which might be a hard
 * link to a host file. The few files written in place (the lock, the
 * databases and their journals, a partial download) are opened with
 * fs_open_inplace, which refuses anything but a plain file with one link.
 *
 * This layer and common/file.c (host files: the program's own data, files
 * named on the command line) are the only places that call open, rename,
 * unlink, chmod, mkdir, stat or fopen; scripts/confine.sh checks it. */
#ifndef WD_FS_H
#define WD_FS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/hash.h"

struct fs_batch;

struct fs_root {
	int fd;       /* the top folder, opened once */
	char *path;   /* its host path: messages, and the prefix of host paths */
	size_t len;
	dev_t dev;    /* the root's file system: nothing beneath may leave it */
	struct fs_batch *batch; /* the folder handles of a batch (fs_batch_begin) */
};

/* Opens the folder at path as a root (the path is the user's: a link there is
 * followed; below it, none is). */
int fs_root_open(struct fs_root *r, const char *path, struct wd_err *err);
void fs_root_close(struct fs_root *r);

/* The part of p below the root (p itself when relative), or NULL with a
 * message when p lies elsewhere or uses "..". */
const char *fs_rel(const struct fs_root *r, const char *p, struct wd_err *err);

/* Opens an existing file (or, with O_DIRECTORY, folder) beneath the root.
 * flags are O_RDONLY, O_WRONLY or O_RDWR (no O_CREAT, O_TRUNC, O_APPEND);
 * anything but a plain file (a link, FIFO, device, socket) is refused with
 * its path and what it is. Returns the descriptor or -code. */
int fs_open(const struct fs_root *r, const char *p, int flags, struct wd_err *err);

/* Creates p afresh for writing (O_CREAT | O_EXCL | O_NOFOLLOW, mode): with
 * stale true, a file already there is unlinked by handle first (a temporary
 * an interrupted run left); else an existing name is an error. */
int fs_create(const struct fs_root *r, const char *p, mode_t mode, bool stale,
	      struct wd_err *err);

/* Opens p read-write, creating it when missing, for a file written in
 * place: refused (exit 1, naming the path) unless it is a plain file with
 * exactly one link. *created (may be NULL) tells whether it was made now. */
int fs_open_inplace(const struct fs_root *r, const char *p, mode_t mode, bool *created,
		    struct wd_err *err);

/* fstatat of p beneath the root, never following a link: 0, or -1 with
 * errno (ENOENT also when a folder on the way is missing; ELOOP when one is
 * a link; EXDEV when it leaves the root's file system). */
int fs_lstat(const struct fs_root *r, const char *p, struct stat *st);
bool fs_exists(const struct fs_root *r, const char *p);
bool fs_is_dir(const struct fs_root *r, const char *p);
bool fs_is_file(const struct fs_root *r, const char *p);

/* A folder beneath the root opened for reading its entries (closedir ends
 * it), or NULL with errno. */
DIR *fs_opendir(const struct fs_root *r, const char *p);
/* The folder p opened beneath the root (O_DIRECTORY), or -code. */
int fs_open_dir(const struct fs_root *r, const char *p, struct wd_err *err);

/* renameat of two names beneath the root, each by its folder's handle. */
int fs_rename(const struct fs_root *r, const char *from, const char *to, struct wd_err *err);
/* unlinkat of a file (never a folder); a name already gone is no error. */
int fs_unlink(const struct fs_root *r, const char *p, struct wd_err *err);
/* The same, for a thread of a batch: 0 or an errno value, no message. */
int fs_unlink_errno(const struct fs_root *r, const char *p);
/* Removes an empty folder: 0, or -1 with errno. */
int fs_rmdir(const struct fs_root *r, const char *p);
/* mkdir -p beneath the root (folders 0755); an existing component must be a
 * folder, not a link. */
int fs_mkdirs(const struct fs_root *r, const char *p, struct wd_err *err);
/* mkdirat of one folder whose parent exists: 0, or -1 with errno (EEXIST
 * when something is there already). */
int fs_mkdir(const struct fs_root *r, const char *p, mode_t mode);
/* The same with a message: 0 when the folder is there afterwards (made now or
 * before), else -code naming what is in the way (a link, a file). */
int fs_mkdir_err(const struct fs_root *r, const char *p, mode_t mode, struct wd_err *err);

/* Flushes the folder p. */
int fs_fsync_dir(const struct fs_root *r, const char *p, struct wd_err *err);
/* Flushes the parent folder of p. */
int fs_fsync_parent(const struct fs_root *r, const char *p, struct wd_err *err);
/* Flushes a plain file. */
int fs_fsync_file(const struct fs_root *r, const char *p, struct wd_err *err);
/* syncfs(2) on the root's file system, where there is one (common/file.h,
 * WD_HAVE_SYNC_FS). */
int fs_sync_all(const struct fs_root *r, struct wd_err *err);

/* Reads the whole plain file p (at most max bytes, 0: no limit). */
int fs_read(const struct fs_root *r, const char *p, size_t max, struct wd_buf *out,
	    struct wd_err *err);
/* Reads the last max bytes (all of a shorter file) of p, which must be a
 * plain file with exactly one link (fs_check_single): a file linked from
 * elsewhere is never read. *whole tells whether the file was read whole. */
int fs_read_tail(const struct fs_root *r, const char *p, size_t max, struct wd_buf *out,
		 bool *whole, struct wd_err *err);
/* SHA-256 of the plain file p, streamed. */
int fs_sha256(const struct fs_root *r, const char *p, char out[WD_SHA256_HEX],
	      struct wd_err *err);
/* Whether p is a plain file whose SHA-256 is sha (hex). */
bool fs_has_sha256(const struct fs_root *r, const char *p, const char *sha);
/* Writes data to a new file at p (fs_create with stale true, then flushed
 * unless nosync). */
int fs_write_new(const struct fs_root *r, const char *p, const void *data, size_t len,
		 mode_t mode, bool nosync, struct wd_err *err);
/* Writes data beside p (p.wd-new, made afresh), gives it p's mode and owner,
 * flushes it, renames it over p and flushes the folder. */
int fs_write_atomic(const struct fs_root *r, const char *p, const void *data, size_t len,
		    mode_t mode, struct wd_err *err);
/* Copies the plain file from to a new file to (made afresh, a stale one
 * unlinked), in fixed-size chunks, with from's mode and (where the process
 * may give it) owner; not flushed. */
int fs_copy(const struct fs_root *r, const char *from, const char *to, struct wd_err *err);
/* Gives the open file fd the mode and owner of the plain file old (nothing
 * when old does not exist). */
int fs_copy_mode_owner(const struct fs_root *r, const char *old, int fd, const char *fd_path,
		       struct wd_err *err);
/* chmod of a plain file beneath the root (opened, never followed). */
int fs_chmod(const struct fs_root *r, const char *p, mode_t mode, struct wd_err *err);
/* statvfs of the root's file system: free bytes for an unprivileged writer. */
int fs_free_bytes(const struct fs_root *r, unsigned long long *free_bytes, struct wd_err *err);

/* A batch: the folder handles kept from fs_batch_begin to fs_batch_end.
 *
 * Outside a batch, every operation on a name opens the name's folder beneath
 * the root afresh and closes it after the one *at(2) call. Inside one, the
 * first operation in a folder opens it the same way (beneath the root, no
 * link, no other file system), and the later ones in that folder use that
 * handle: 500 files of one folder cost one resolution instead of 500. At
 * most FS_BATCH_DIRS folders are kept (a file's folder and the kept folder
 * of a removal, say); a further folder is opened per operation as outside.
 *
 * Why this is safe on a hostile volume: a handle names the folder (the
 * inode) that was resolved beneath the root, not its path. If the path is
 * swapped for a link, or another folder is moved into its place, during the
 * batch, the operations still act in the folder that was checked, never
 * through the link and never in a folder that was not resolved beneath the
 * root. The one thing a handle allows that a fresh resolution would refuse
 * is acting in the checked folder after it was itself moved somewhere else
 * on the same file system; but the same move made just after the batch (or
 * between a fresh resolution and its *at call, a window every operation
 * has) has the same effect, so nothing is reachable that was not before:
 * new files are still created O_EXCL | O_NOFOLLOW, never through an
 * existing name, and no name is followed. A handle is kept only for one
 * batch of one transaction phase, within which warpdrv itself neither moves
 * nor removes any folder; fs_batch_end closes them all. A batch is one
 * thread's. */
#define FS_BATCH_DIRS 8
void fs_batch_begin(const struct fs_root *r);
void fs_batch_end(const struct fs_root *r);
/* Whether a batch is open (its begins not all ended): never, between two
 * transactions' phases (txn/txn_lock.c checks it at each
 * transaction's end in the programs built for the tests). */
bool fs_batch_open(const struct fs_root *r);
/* Whether p (a file beneath the root) lies in a folder on the root's own
 * file system, answered from a batch's folder handle where there is one
 * (else -1 with errno, as fs_lstat): 1 yes, 0 no (a mount inside). */
int fs_on_root_dev(const struct fs_root *r, const char *p);

/* Files a library keeps beside one of ours (SQLite's journal beside a
 * database: state/db_vfs.c), named by leaf (one component: no '/', not "."
 * or "..") in a folder opened beneath the root (dirfd, from fs_open_dir).
 * Never followed, never made through a name that exists.
 *
 * fs_leaf_open: with create, a new file (O_EXCL, mode); else the one there,
 * for reading or, with write, reading and writing. The descriptor is checked
 * to be a plain file with one link; -1 with errno otherwise (EMLINK: more
 * links; EINVAL: not a plain file; ELOOP: a link), *st then describing what
 * is there where something is. */
int fs_leaf_open(int dirfd, const char *leaf, bool write, bool create, mode_t mode,
		 struct stat *st);
/* lstat of leaf in dirfd: 0, or -1 with errno. */
int fs_leaf_lstat(int dirfd, const char *leaf, struct stat *st);
/* unlink of leaf in dirfd (removes a link, never what it points at). */
int fs_leaf_unlink(int dirfd, const char *leaf);

/* Checks an open descriptor: a plain file with one link, or an error naming
 * path. */
int fs_check_single(int fd, const char *path, struct wd_err *err);

#endif
