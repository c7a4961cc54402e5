/* A disk image as the session's volume (--disk IMAGE, and the boot disk of
 * --vm MACHINE): libguestfs's appliance started once, the OS/2 boot volume
 * found (the file system whose top holds CONFIG.SYS), mounted in the
 * appliance and served at a private folder of the host by FUSE
 * (guestfs_mount_local on a thread of its own). Every command then works on
 * that folder through the confined layer, as on --root; disk_close unmounts,
 * syncs and shuts the appliance down, and a failed sync is a failed command.
 * A read-only run adds the drive read-only and mounts it so: the image's
 * bytes never change. */
#ifndef WD_SOURCE_DISK_H
#define WD_SOURCE_DISK_H

#include <pthread.h>
#include <stdbool.h>

#include "common/err.h"

struct disk_opts {
	const char *image;      /* the image file */
	const char *format;     /* --disk-format, or NULL: told by its header */
	int partition;          /* --partition N, or 0: the one with CONFIG.SYS */
	bool readonly;          /* the command writes nothing (or --dry-run) */
};

struct disk_source {
	void *g;                /* guestfs_h * */
	char *mnt;              /* the private folder the volume is served at */
	char *image;
	pthread_t th;
	bool served;            /* the FUSE loop runs on th */
	bool readonly;
	int run_rc;             /* what the FUSE loop returned */
};

/* What format the image's first bytes (and, for a fixed VHD, last) say it
 * is: "vdi", "vmdk", "vpc", "vhdx", "qcow2" or "raw" (a partition table or a
 * volume's boot sector); a VDI that is a differencing image, or a file that
 * is none of these, is refused here, before any appliance starts. */
int disk_probe_format(const char *image, const char **format, struct wd_err *err);

/* Starts the appliance, finds and mounts the OS/2 volume, serves it at
 * d->mnt. On failure everything it started is stopped again. */
int disk_open(struct disk_source *d, const struct disk_opts *o, struct wd_err *err);
/* Unmounts the folder, syncs, shuts the appliance down and frees d: 0, or
 * the error of the final sync or shutdown (the image may lack the change).
 * d may be closed twice. */
int disk_close(struct disk_source *d, struct wd_err *err);

#endif
