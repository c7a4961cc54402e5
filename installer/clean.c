#define _GNU_SOURCE /* F_OFD_GETLK */
#include "installer/clean.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/repo.h"
#include "catalog/store.h"
#include "common/buf.h"
#include "common/file.h"
#include "fs/fs.h"
#include "txn/txn.h"

#define CACHE_DIR STORE_DIR "/packages"

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO"
	     : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a plain file";
}

static bool is_part(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".part");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct clean_file *)a)->name, ((const struct clean_file *)b)->name);
}

/* A partial download opened and locked as its downloader locks it: -1 when
 * another holds it (being written now), else the descriptor holding it.
 * With probe (a dry run, a survey) it is only asked about (F_OFD_GETLK),
 * never taken, so that a download starting then is not refused. */
static int lock_part(const struct fs_root *fs, const char *path, bool probe)
{
	struct wd_err ignore;
	int fd = fs_open(fs, path, probe ? O_RDONLY : O_RDWR, &ignore);
	if (fd < 0)
		return -1;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (probe ? fcntl(fd, F_OFD_GETLK, &fl) || fl.l_type != F_UNLCK : catalog_part_lock(fd) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Lists the cache folder: each entry by lstat beneath the root. */
static int survey(const struct volume *v, struct clean_report *rep, struct wd_err *err)
{
	memset(rep, 0, sizeof *rep);
	bool found;
	int r = volume_resolve(v, CACHE_DIR, &rep->dir, &found, err);
	if (r)
		return r;
	struct stat st;
	if (fs_lstat(&v->fs, rep->dir, &st)) {
		if (errno == ENOENT)
			return 0;
		return wd_err_set(err, WD_EFAIL, "%s: the path goes through a symbolic link or leaves "
				  "the volume; warpdrv does not follow it: remove it by hand",
				  rep->dir);
	}
	if (!S_ISDIR(st.st_mode))
		return wd_err_set(err, WD_EFAIL, "%s: is %s, not the cache folder; warpdrv does not "
				  "follow it: remove it by hand", rep->dir, kind_of(st.st_mode));
	DIR *d = fs_opendir(&v->fs, rep->dir);
	if (!d)
		return wd_err_set(err, WD_EFAIL, "%s: cannot read the cache folder: %s", rep->dir,
				  strerror(errno));
	rep->exists = true;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *path = wd_path_join(rep->dir, de->d_name);
		struct clean_file f = {.name = wd_xstrdup(de->d_name)};
		if (fs_lstat(&v->fs, path, &st) == 0 && S_ISREG(st.st_mode)) {
			f.what = is_part(f.name) ? CLEAN_PARTIAL : CLEAN_PACKAGE;
			f.size = st.st_nlink == 1 ? (uint64_t)st.st_size : 0;
		} else {
			f.what = CLEAN_OTHER;
			f.kind = kind_of(st.st_mode);
		}
		free(path);
		rep->files = wd_xrealloc(rep->files, (rep->n + 1) * sizeof *rep->files);
		rep->files[rep->n++] = f;
	}
	closedir(d);
	if (rep->n > 1)
		qsort(rep->files, rep->n, sizeof *rep->files, by_name);
	return 0;
}

/* Removes (or, dry_run, weighs) each entry. */
static int sweep(const struct volume *v, bool dry_run, struct clean_report *rep,
		 struct wd_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < rep->n; i++) {
		struct clean_file *f = &rep->files[i];
		if (f->what == CLEAN_OTHER) {
			rep->left++;
			continue;
		}
		char *path = wd_path_join(rep->dir, f->name);
		int fd = -1;
		if (f->what == CLEAN_PARTIAL && (fd = lock_part(&v->fs, path, dry_run)) < 0) {
			f->what = CLEAN_BUSY;
			f->size = 0;
			rep->left++;
			free(path);
			continue;
		}
		if (!dry_run)
			r = fs_unlink(&v->fs, path, err); /* by the folder's handle: a name, never followed */
		if (fd >= 0)
			close(fd);
		if (!r) {
			rep->removed++;
			rep->bytes += f->size;
		}
		free(path);
	}
	if (!r && !dry_run && rep->removed)
		r = fs_fsync_dir(&v->fs, rep->dir, err);
	return r;
}

int cache_survey(const struct volume *v, struct clean_report *rep, struct wd_err *err)
{
	int r = survey(v, rep, err);
	if (!r)
		r = sweep(v, true, rep, err);
	return r;
}

int cache_clean(const struct volume *v, bool dry_run, struct clean_report *rep,
		struct wd_err *err)
{
	memset(rep, 0, sizeof *rep);
	int lock = -1;
	int r = dry_run ? 0 : txn_write_lock(v, "clean", &lock, err);
	if (!r)
		r = survey(v, rep, err);
	if (!r)
		r = sweep(v, dry_run, rep, err);
	txn_read_unlock(lock);
	return r;
}

void clean_report_free(struct clean_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free(rep->files[i].name);
	free(rep->files);
	free(rep->dir);
	memset(rep, 0, sizeof *rep);
}
