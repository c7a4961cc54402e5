/* A disk image as the session's volume (source_disk.h). */
#include "session/source_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/signals.h"
#include "session/guestfs_lib.h"

#define G(d) ((guestfs_h *)(d)->g)

/* ------------------------------------------------------------ the header */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* VDI header (VirtualBox's VDICore.h): the signature at 0x40, the image type
 * at 0x4c (1 dynamic, 2 fixed, 3 undo, 4 differencing). */
#define VDI_SIG 0xbeda107fu
#define VDI_DIFF 4u

int disk_probe_format(const char *image, const char **format, struct wd_err *err)
{
	int fd = open(image, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* host: the image named on the command line */
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: %s", image, strerror(errno));
	struct stat st;
	unsigned char h[512], jfs[4], tail[8];
	int r = 0;
	if (fstat(fd, &st)) {
		r = wd_err_set(err, WD_EFAIL, "%s: %s", image, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		r = wd_err_set(err, WD_EFAIL, "%s: not a disk image (not a plain file)", image);
		goto out;
	}
	memset(h, 0, sizeof h);
	memset(jfs, 0, sizeof jfs);
	memset(tail, 0, sizeof tail);
	ssize_t n = pread(fd, h, sizeof h, 0);
	if (pread(fd, jfs, sizeof jfs, 32768) < 0 ||
	    (st.st_size >= 512 && pread(fd, tail, sizeof tail, st.st_size - 512) < 0) || n < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: %s", image, strerror(errno));
		goto out;
	}
	if (n >= 0x50 && le32(h + 0x40) == VDI_SIG) {
		if (le32(h + 0x4c) == VDI_DIFF) {
			r = wd_err_set(err, WD_EFAIL, "%s: a differencing VDI (a snapshot's changes "
				       "on top of its parent), which cannot be opened alone; make a "
				       "whole copy with VBoxManage clonemedium %s COPY.vdi and name "
				       "that", image, image);
			goto out;
		}
		*format = "vdi";
	} else if (n >= 4 && !memcmp(h, "KDMV", 4)) {
		*format = "vmdk";
	} else if (n >= 21 && !memcmp(h, "# Disk DescriptorFile", 21)) {
		*format = "vmdk";
	} else if (n >= 4 && !memcmp(h, "QFI\xfb", 4)) {
		*format = "qcow2";
	} else if (n >= 8 && !memcmp(h, "vhdxfile", 8)) {
		*format = "vhdx";
	} else if ((n >= 8 && !memcmp(h, "conectix", 8)) || !memcmp(tail, "conectix", 8)) {
		*format = "vpc";
	} else if ((n == 512 && h[510] == 0x55 && h[511] == 0xaa) || !memcmp(jfs, "JFS1", 4)) {
		*format = "raw"; /* a partition table, or a FAT, HPFS or JFS volume alone */
	} else {
		r = wd_err_set(err, WD_EFAIL, "%s: not a disk image (neither a VDI, VMDK, VHD, "
			       "VHDX or qcow2 header, nor a partition table or a volume's boot "
			       "sector)", image);
	}
out:
	close(fd);
	return r;
}

/* ------------------------------------------------------------ finding the volume */

static int gerr(struct disk_source *d, struct wd_err *err, const char *what)
{
	const char *m = wd_guestfs.p_last_error(G(d));
	return wd_err_set(err, WD_EFAIL, "%s: %s: %s", d->image, what, m ? m : "failed");
}

/* The partition number of an appliance's device (/dev/sda2: 2), or 0 for a
 * whole disk (/dev/sda). */
static int partnum(const char *dev)
{
	size_t n = strlen(dev), k = n;
	while (k > 0 && dev[k - 1] >= '0' && dev[k - 1] <= '9')
		k--;
	return k < n && k > 5 ? atoi(dev + k) : 0;
}

static void where_of(const char *dev, char *out, size_t cap)
{
	int k = partnum(dev);
	if (k > 0)
		snprintf(out, cap, "partition %d", k);
	else
		snprintf(out, cap, "the whole disk");
}

static void free_list(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

/* The partitions, then each disk that has none (a volume with no partition
 * table), with each one's file system type ("" where none is known): pairs,
 * as guestfs_list_filesystems gives, for much less (it also scans for LVM,
 * RAID and Windows' dynamic disks, seconds without KVM). */
static char **file_systems(struct disk_source *d)
{
	char **parts = wd_guestfs.p_list_partitions(G(d));
	char **devs = parts ? wd_guestfs.p_list_devices(G(d)) : NULL;
	if (!devs) {
		free_list(parts);
		return NULL;
	}
	size_t np = 0, nd = 0, n = 0;
	while (parts[np])
		np++;
	while (devs[nd])
		nd++;
	char **out = wd_xcalloc(2 * (np + nd) + 1, sizeof *out);
	for (size_t i = 0; i < np; i++)
		out[n++] = wd_xstrdup(parts[i]);
	for (size_t i = 0; i < nd; i++) {
		bool has = false;
		for (size_t k = 0; k < np && !has; k++)
			has = !strncmp(parts[k], devs[i], strlen(devs[i]));
		if (!has)
			out[n++] = wd_xstrdup(devs[i]);
	}
	size_t ndev = n;
	char **pairs = wd_xcalloc(2 * ndev + 1, sizeof *pairs);
	for (size_t i = 0; i < ndev; i++) {
		char *t = wd_guestfs.p_vfs_type(G(d), out[i]);
		pairs[2 * i] = out[i];
		pairs[2 * i + 1] = t ? t : wd_xstrdup("");
	}
	free(out);
	free_list(parts);
	free_list(devs);
	return pairs;
}

static bool os2_type(const char *t)
{
	return !strcmp(t, "jfs") || !strcmp(t, "hpfs") || !strcmp(t, "vfat") || !strcmp(t, "msdos");
}

/* Whether the file system on dev has CONFIG.SYS at its top (any case). */
static bool has_config_sys(struct disk_source *d, const char *dev, bool *mountable)
{
	*mountable = wd_guestfs.p_mount_ro(G(d), dev, "/") == 0;
	if (!*mountable)
		return false;
	bool yes = false;
	char *p = wd_guestfs.p_case_sensitive_path(G(d), "/config.sys");
	if (p)
		yes = wd_guestfs.p_is_file(G(d), p) == 1;
	free(p);
	wd_guestfs.p_umount_all(G(d));
	return yes;
}

/* The device of the OS/2 boot volume: --partition N's, or the one file
 * system whose top holds CONFIG.SYS. */
static int find_volume(struct disk_source *d, int want, char **dev, struct wd_err *err)
{
	char **fs = file_systems(d);
	if (!fs)
		return gerr(d, err, "cannot list its file systems");
	struct wd_buf seen = {0}, hits = {0};
	int nhit = 0, r = 0;
	char *hit = NULL;
	for (size_t i = 0; fs[i] && fs[i + 1]; i += 2) {
		const char *dv = fs[i], *type = fs[i + 1];
		char where[64];
		where_of(dv, where, sizeof where);
		if (want && partnum(dv) != want)
			continue;
		bool mountable = false;
		bool yes = os2_type(type) && has_config_sys(d, dv, &mountable);
		wd_buf_addf(&seen, "%s%s %s%s", seen.len ? ", " : "", where, *type ? type : "(no file system)",
			    os2_type(type) && !mountable ? " (cannot be mounted)" :
			    os2_type(type) && !yes ? " (no CONFIG.SYS)" : "");
		if (!yes)
			continue;
		wd_buf_addf(&hits, "%s%s (%s)", nhit ? " and " : "", where, type);
		if (!nhit++)
			hit = wd_xstrdup(dv);
	}
	if (want && !seen.len)
		r = wd_err_set(err, WD_EUSAGE, "%s: --partition %d: the disk has no file system "
			       "on partition %d", d->image, want, want);
	else if (!nhit)
		r = wd_err_set(err, WD_EFAIL, "%s: no OS/2 boot volume (a JFS, HPFS or FAT file "
			       "system with CONFIG.SYS at its top) found; the disk holds: %s",
			       d->image, seen.len ? wd_buf_cstr(&seen) : "no file system the appliance knows");
	else if (nhit > 1)
		r = wd_err_set(err, WD_EUSAGE, "%s holds %d OS/2 boot volumes: %s; name one with "
			       "--partition N", d->image, nhit, wd_buf_cstr(&hits));
	free_list(fs);
	wd_buf_free(&seen);
	wd_buf_free(&hits);
	if (r) {
		free(hit);
		return r;
	}
	*dev = hit;
	return 0;
}

/* ------------------------------------------------------------ serving it */

static void *serve(void *arg)
{
	struct disk_source *d = arg;
	/* the handler is the thread's: the FUSE loop's misses (a file that
	 * is not there yet) are answers to the kernel, not messages */
	wd_guestfs.p_set_error_handler(G(d), NULL, NULL);
	d->run_rc = wd_guestfs.p_mount_local_run(G(d));
	return NULL;
}

static int make_mountpoint(struct disk_source *d, struct wd_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char *t = wd_xasprintf("%s/warpdrv-disk.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t)) { /* host: a private folder of the host (0700) for the mount */
		int e = errno;
		free(t);
		return wd_err_set(err, WD_EFAIL, "cannot make a folder to mount %s in: %s",
				  d->image, strerror(e));
	}
	d->mnt = t;
	return 0;
}

int disk_open(struct disk_source *d, const struct disk_opts *o, struct wd_err *err)
{
	memset(d, 0, sizeof *d);
	const char *format = o->format;
	int r;
	if (!format && (r = disk_probe_format(o->image, &format, err)))
		return r;
	if (wd_guestfs_load())
		return wd_err_set(err, WD_EFAIL, "--disk %s: %s", o->image, wd_guestfs_why());
	guestfs_h *g = wd_guestfs.p_create();
	if (!g)
		return wd_err_set(err, WD_EFAIL, "%s: cannot make a libguestfs handle", o->image);
	d->image = wd_xstrdup(o->image);
	d->readonly = o->readonly;
	d->g = g;
	/* its errors come back on the handle, into our messages, not on stderr */
	wd_guestfs.p_set_error_handler(g, NULL, NULL);
	struct guestfs_add_drive_opts_argv ao = {
		.bitmask = GUESTFS_ADD_DRIVE_OPTS_READONLY_BITMASK | GUESTFS_ADD_DRIVE_OPTS_FORMAT_BITMASK,
		.readonly = o->readonly,
		.format = format,
	};
	char *dev = NULL;
	if (wd_guestfs.p_add_drive_opts_argv(g, o->image, &ao)) {
		r = gerr(d, err, "cannot add it as a drive");
		goto fail;
	}
	if (wd_guestfs.p_launch(g)) {
		r = gerr(d, err, "the libguestfs appliance did not start (its lock held by a "
			 "running machine?)");
		goto fail;
	}
	if ((r = find_volume(d, o->partition, &dev, err)))
		goto fail;
	if ((o->readonly ? wd_guestfs.p_mount_ro(g, dev, "/") : wd_guestfs.p_mount(g, dev, "/"))) {
		r = gerr(d, err, "cannot mount its OS/2 volume");
		goto fail;
	}
	if ((r = make_mountpoint(d, err)))
		goto fail;
	struct guestfs_mount_local_argv ml = {
		.bitmask = GUESTFS_MOUNT_LOCAL_READONLY_BITMASK,
		.readonly = o->readonly,
	};
	if (wd_guestfs.p_mount_local_argv(g, d->mnt, &ml)) {
		r = gerr(d, err, "cannot serve its OS/2 volume on the host (FUSE: /dev/fuse)");
		goto fail;
	}
	if (pthread_create(&d->th, NULL, serve, d)) {
		r = wd_err_set(err, WD_EFAIL, "%s: cannot start a thread to serve it", o->image);
		umount2(d->mnt, MNT_DETACH); /* host: the private mount made above */
		goto fail;
	}
	d->served = true;
	wd_signal_mount(d->mnt); /* a signal that ends the run detaches it */
	free(dev);
	return 0;
fail:
	free(dev);
	struct wd_err ignore;
	disk_close(d, &ignore);
	return r;
}

/* Ends the FUSE loop: the kernel's unmount makes mount_local_run return.
 * The handle itself is busy in that loop, so the unmount is the host's. */
static void unserve(struct disk_source *d)
{
	for (int i = 0; i < 50; i++) {
		if (!umount2(d->mnt, 0) || errno != EBUSY) /* host: the private mount */
			break;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	pthread_join(d->th, NULL);
	d->served = false;
}

int disk_close(struct disk_source *d, struct wd_err *err)
{
	int r = 0;
	wd_signal_mount(NULL);
	if (d->served)
		unserve(d);
	if (d->mnt) {
		rmdir(d->mnt); /* host: the private folder the volume was served at */
		free(d->mnt);
		d->mnt = NULL;
	}
	if (d->g) {
		guestfs_h *g = G(d);
		if (!d->readonly && (wd_guestfs.p_umount_all(g) || wd_guestfs.p_sync(g)))
			r = gerr(d, err, "the final sync failed; the change may be missing from "
				 "the image");
		if (wd_guestfs.p_shutdown(g) && !r && !d->readonly)
			r = gerr(d, err, "the appliance did not shut down cleanly; the change may be "
				 "missing from the image");
		wd_guestfs.p_close(g);
		d->g = NULL;
	}
	free(d->image);
	d->image = NULL;
	return r;
}
