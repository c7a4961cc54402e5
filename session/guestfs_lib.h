/* libguestfs, loaded when --disk or --vm first needs it.
 *
 * libguestfs0 pulls in qemu, supermin and a kernel: hundreds of megabytes a
 * user who services a folder (--root) never needs. So it is not linked: the
 * functions warpdrv calls go through one table, filled by dlopen the first
 * time a disk image is opened (session/source_disk.c), and a machine without
 * the library is told what to install. The header still comes from
 * libguestfs-dev at build time. */
#ifndef WD_GUESTFS_LIB_H
#define WD_GUESTFS_LIB_H

#include <guestfs.h>

#define WD_GUESTFS_FNS(X)                                                                         \
	X(create) X(close) X(set_error_handler) X(last_error) X(add_drive_opts_argv) X(launch)    \
	X(list_devices) X(list_partitions) X(vfs_type) X(mount) X(mount_ro) X(umount_all)                 \
	X(case_sensitive_path) X(is_file) X(mount_local_argv) X(mount_local_run) X(sync)          \
	X(shutdown)

struct wd_guestfs_fns {
#define WD_GUESTFS_FIELD(n) __typeof__(&guestfs_##n) p_##n;
	WD_GUESTFS_FNS(WD_GUESTFS_FIELD)
#undef WD_GUESTFS_FIELD
};

/* Filled once the library is loaded; all NULL before. */
extern struct wd_guestfs_fns wd_guestfs;

#define WD_LIBGUESTFS "libguestfs.so.0"
#define WD_LIBGUESTFS_PACKAGE "libguestfs0"

/* Loads the library, once per process: 0, or -1 with wd_guestfs_why()
 * saying why and what to install. The programs built for the tests load the
 * file WARPDRV_LIBGUESTFS names instead, where it is set. */
int wd_guestfs_load(void);
const char *wd_guestfs_why(void);

#endif
