/* An OS/2 boot volume seen from the host: a folder with CONFIG.SYS at its top.
 * OS/2 file systems ignore case, so every path inside the volume is resolved
 * component by component against what is on disk, whatever its spelling. */
#ifndef WD_VOLUME_H
#define WD_VOLUME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"
#include "fs/fs.h"

struct volume_cache; /* os2/volume.c: the folder listings and planned paths */

struct volume {
	struct fs_root fs; /* the top folder's handle: every file operation on the
			    * volume goes through it (fs/fs.h) */
	char *root;       /* host path of the volume's top folder */
	char *config_sys; /* host path of CONFIG.SYS as spelled on disk */
	char boot_drive;  /* 'C'..'Z', or 0 while unknown */
	/* what resolving paths keeps (volume_find_entry, volume_resolve): made
	 * by volume_open, freed by volume_close; a volume without one reads
	 * each folder afresh */
	struct volume_cache *cache;
	/* Seconds a command waits for the volume's lock held by another
	 * process (txn/txn_lock.c), 0 not at all; negative (volume_open's):
	 * TXN_LOCK_WAIT_DEFAULT. */
	int lock_wait;
};

/* Opens the volume at root; refuses a folder without CONFIG.SYS at its top. */
int volume_open(struct volume *v, const char *root, struct wd_err *err);
void volume_close(struct volume *v);

/* Maps an OS/2 path ("C:\IBMCOM\MACS\E1000.OS2", "\ibmcom\protocol.ini",
 * "ibmcom/macs") to a host path below the root. Existing components keep the
 * spelling found on disk; the rest keep the spelling given, or the spelling a
 * path equal without case was given first through this handle (so \NEWDIR\X
 * and \newdir\Y name one new folder). *found tells whether the whole path
 * exists. A ".." component or an empty path is refused (WD_ETRUST, WD_EFAIL);
 * so is (WD_EFAIL, naming it) a component that exists as a symbolic link, or
 * as a FIFO, device or socket, or as a file where a folder must be. */
int volume_resolve(const struct volume *v, const char *os2path, char **out, bool *found,
		   struct wd_err *err);

/* Whether the OS/2 path names something on the volume (a path that cannot
 * be resolved, a link on the way, counts as not there). */
bool volume_has(const struct volume *v, const char *os2path);

/* Reads a file or makes folders at a host path below the root (one
 * volume_resolve gave), through the root's handle (fs_read, fs_mkdirs), so
 * that a link put on the volume between the resolve and the use is refused
 * rather than followed. */
int volume_read_file(const struct volume *v, const char *host, size_t max, struct wd_buf *out,
		     struct wd_err *err);
int volume_mkdirs(const struct volume *v, const char *host, struct wd_err *err);

/* Finds one name in a host folder without regard to case; exact spelling
 * wins, else the first match in byte order. Returns a malloc'd name or NULL.
 * The folder's listing is read once and kept while the folder is unchanged. */
char *volume_find_entry(const struct volume *v, const char *dir, const char *name);

/* Drops the folder listings v keeps. Whoever changes a folder on the volume
 * calls it before the change (the transaction does, at each step), so that
 * nothing is resolved against a listing older than the change. */
void volume_forget_folders(const struct volume *v);

#endif
