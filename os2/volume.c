#include "os2/volume.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/file.h"
#include "fs/fs.h"
#include "os2/nameidx.h"

/* ---- folder listings, read once per volume handle ----
 *
 * Resolving the 500 files of a package that go into one new folder used to
 * read the folder above it once per file (the name is not there exactly, so
 * every entry is compared without case): quadratic in the number of files.
 * A folder's listing is now kept, sorted without regard to case, and used
 * again while the folder's identity, modification time and link count are
 * unchanged. The transaction drops every listing before each change it makes
 * (volume_forget_folders), so what it resolves after a change is read afresh;
 * the times catch changes made by anyone else. */

struct listing {
	char *dir;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	struct timespec mtime, ctime;
	char **names; /* by strcasecmp, then by byte order */
	size_t n;
};

/* What a volume handle keeps (struct volume's cache): the folder listings
 * and the folders planned but not yet made (below). */
struct volume_cache {
	struct listing *listings;
	size_t nlistings;
	char **planned;
	size_t nplanned;
	struct nameidx planned_ix; /* each planned path, by its spelling without case */
};

static void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->dir);
}

void volume_forget_folders(const struct volume *v)
{
	struct volume_cache *c = v->cache;
	if (!c)
		return;
	for (size_t i = 0; i < c->nlistings; i++)
		listing_free(&c->listings[i]);
	free(c->listings);
	c->listings = NULL;
	c->nlistings = 0;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool listing_current(const struct listing *l, const struct stat *st)
{
	return l->dev == st->st_dev && l->ino == st->st_ino && l->nlink == st->st_nlink &&
	       same_time(l->mtime, st->st_mtim) && same_time(l->ctime, st->st_ctim);
}

static int name_order(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int c = strcasecmp(x, y);
	return c ? c : strcmp(x, y);
}

/* Reads dir into l; false if it cannot be read (then l is untouched). */
static bool listing_read(const struct fs_root *fs, const char *dir, const struct stat *st,
			 struct listing *l)
{
	DIR *d = fs_opendir(fs, dir);
	if (!d)
		return false;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = wd_xrealloc(names, cap * sizeof *names);
		}
		names[n++] = wd_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, name_order);
	*l = (struct listing){.dir = wd_xstrdup(dir), .dev = st->st_dev, .ino = st->st_ino,
			      .nlink = st->st_nlink, .mtime = st->st_mtim, .ctime = st->st_ctim,
			      .names = names, .n = n};
	return true;
}

/* The listing of dir as it is now, or NULL if dir is no readable folder.
 * known: dir's lstat taken just before by the caller, or NULL. A volume
 * without a cache (one volume_open did not make) gets it read into
 * *scratch, which the caller frees. */
static const struct listing *listing_of(const struct volume *v, const char *dir,
					const struct stat *known, struct listing *scratch)
{
	struct stat st;
	if (known)
		st = *known;
	else if (fs_lstat(&v->fs, dir, &st) < 0)
		return NULL;
	if (!S_ISDIR(st.st_mode))
		return NULL;
	struct volume_cache *c = v->cache;
	if (!c)
		return listing_read(&v->fs, dir, &st, scratch) ? scratch : NULL;
	struct listing *l = NULL;
	for (size_t i = 0; i < c->nlistings && !l; i++)
		if (!strcmp(c->listings[i].dir, dir))
			l = &c->listings[i];
	if (l && listing_current(l, &st))
		return l;
	struct listing fresh;
	if (!listing_read(&v->fs, dir, &st, &fresh))
		return NULL;
	if (!l) {
		c->listings = wd_xrealloc(c->listings, (c->nlistings + 1) * sizeof *c->listings);
		l = &c->listings[c->nlistings++];
	} else {
		listing_free(l);
	}
	*l = fresh;
	return l;
}

/* The entry of l equal to name without case: the exact spelling, else the
 * least in byte order; NULL for none. */
static char *listing_find(const struct listing *l, const char *name)
{
	/* the first name equal without case is the least in byte order */
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcasecmp(l->names[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == l->n || strcasecmp(l->names[lo], name) != 0)
		return NULL;
	for (size_t i = lo; i < l->n && !strcasecmp(l->names[i], name); i++)
		if (!strcmp(l->names[i], name))
			return wd_xstrdup(name);
	return wd_xstrdup(l->names[lo]);
}

static char *find_entry(const struct volume *v, const char *dir, const struct stat *known,
			const char *name)
{
	struct listing scratch = {0};
	const struct listing *l = listing_of(v, dir, known, &scratch);
	char *found = l ? listing_find(l, name) : NULL;
	listing_free(&scratch);
	return found;
}

char *volume_find_entry(const struct volume *v, const char *dir, const char *name)
{
	return find_entry(v, dir, NULL, name);
}

/* ---- folders planned but not yet made ----
 *
 * A path whose folders do not exist yet keeps the spelling given. Two files
 * of one package in \NEWDIR\X and \newdir\Y must still land in one folder
 * (OS/2 sees one), so the first spelling resolved for a missing host path is
 * remembered and used again for any spelling equal without case. */

static void forget_planned(struct volume_cache *c)
{
	for (size_t i = 0; i < c->nplanned; i++)
		free(c->planned[i]);
	free(c->planned);
	ni_free(&c->planned_ix);
	c->planned = NULL;
	c->nplanned = 0;
}

/* The host path for a component not on disk: the spelling planned first
 * (looked up in a hash index: a CONFIG.SYS naming many missing folders
 * costs time in proportion to them, not to their square). */
static char *planned_path(const struct volume *v, const char *path, const char *comp)
{
	char *want = wd_path_join(path, comp);
	struct volume_cache *c = v->cache;
	if (!c)
		return want;
	const size_t *at = ni_get(&c->planned_ix, wd_sv_make(want, strlen(want)));
	if (at) {
		free(want);
		return wd_xstrdup(c->planned[*at]);
	}
	c->planned = wd_xrealloc(c->planned, (c->nplanned + 1) * sizeof *c->planned);
	c->planned[c->nplanned] = wd_xstrdup(want);
	bool added;
	ni_put(&c->planned_ix, wd_sv_make(c->planned[c->nplanned], strlen(want)), c->nplanned,
	       &added);
	c->nplanned++;
	return want;
}

/* An existing component: a folder (when more follows) or a plain file or
 * folder (the last), never a link, FIFO, device or socket. */
static int check_component(const struct volume *v, const char *os2path, const char *host,
			      bool last, struct stat *stp, struct wd_err *err)
{
	struct stat st;
	if (!stp)
		stp = &st;
	if (fs_lstat(&v->fs, host, stp) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot examine %s: %s", os2path, host,
				  strerror(errno));
	if (S_ISDIR(stp->st_mode) || (last && S_ISREG(stp->st_mode)))
		return 0;
	if (S_ISLNK(stp->st_mode))
		return wd_err_set(err, WD_EFAIL, "%s: %s is a symbolic link; warpdrv does not "
				  "follow links on a volume (replace it with the folder or file "
				  "itself)", os2path, host);
	return wd_err_set(err, WD_EFAIL, "%s: %s is %s where a %s is expected; warpdrv "
			  "reads and writes plain files and folders only", os2path, host,
			  wd_file_kind(stp->st_mode), last ? "file or folder" : "folder");
}

int volume_open(struct volume *v, const char *root, struct wd_err *err)
{
	memset(v, 0, sizeof *v);
	v->fs.fd = -1;
	if (!root || !*root)
		return wd_err_set(err, WD_EUSAGE,
				  "no OS/2 volume given: use --root DIR or set WARPDRV_ROOT");
	struct wd_err e;
	if (fs_root_open(&v->fs, root, &e))
		return wd_err_set(err, WD_EFAIL, "%s: no such folder (--root names the OS/2 boot "
				  "volume): %s", root, e.msg);
	v->cache = wd_xcalloc(1, sizeof *v->cache);
	v->lock_wait = -1;
	v->root = wd_xstrdup(v->fs.path);
	char *name = volume_find_entry(v, v->root, "CONFIG.SYS");
	if (!name) {
		volume_close(v);
		return wd_err_set(err, WD_EFAIL,
				  "%s: not an OS/2 boot volume (no CONFIG.SYS at its top); "
				  "--root must name the volume's top folder", root);
	}
	v->config_sys = wd_path_join(v->root, name);
	free(name);
	int r = check_component(v, "CONFIG.SYS", v->config_sys, true, NULL, err);
	if (!r && fs_is_dir(&v->fs, v->config_sys))
		r = wd_err_set(err, WD_EFAIL, "%s: is a folder; CONFIG.SYS must be a file",
			       v->config_sys);
	if (r)
		volume_close(v);
	return r;
}

void volume_close(struct volume *v)
{
	if (v->cache) {
		volume_forget_folders(v);
		forget_planned(v->cache);
		free(v->cache);
	}
	fs_root_close(&v->fs);
	free(v->root);
	free(v->config_sys);
	memset(v, 0, sizeof *v);
	v->fs.fd = -1;
}

/* The next component of an OS/2 path at *s (advanced past it): malloc'd, or
 * NULL at the end. */
static char *next_component(const char **s)
{
	while (**s == '\\' || **s == '/')
		(*s)++;
	size_t n = strcspn(*s, "\\/");
	if (!n)
		return NULL;
	char *comp = wd_xstrndup(*s, n);
	*s += n;
	return comp;
}

int volume_resolve(const struct volume *v, const char *os2path, char **out, bool *found,
		   struct wd_err *err)
{
	const char *s = os2path;
	if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':')
		s += 2;
	char *path = wd_xstrdup(v->root), *comp;
	bool all = true, known = false;
	struct stat st; /* path's, from check_component_st, while known */
	int parts = 0, r = 0;
	while (!r && (comp = next_component(&s))) {
		if (!strcmp(comp, ".")) {
			free(comp);
			continue;
		}
		if (!strcmp(comp, "..")) {
			r = wd_err_set(err, WD_ETRUST, "%s: a path inside the volume may not use '..'",
				       os2path);
			free(comp);
			break;
		}
		/* the folder's listing checked against its lstat just taken */
		char *name = all ? find_entry(v, path, known ? &st : NULL, comp) : NULL;
		char *next = name ? wd_path_join(path, name) : planned_path(v, path, comp);
		all = all && name;
		free(name);
		free(comp);
		free(path);
		path = next;
		parts++;
		const char *rest = s + strspn(s, "\\/");
		known = false;
		if (all)
			known = !(r = check_component(v, os2path, path, !*rest, &st, err));
	}
	if (!r && !parts)
		r = wd_err_set(err, WD_EFAIL, "'%s': empty path inside the volume", os2path);
	if (r) {
		free(path);
		return r;
	}
	*out = path;
	if (found)
		*found = all;
	return 0;
}

bool volume_has(const struct volume *v, const char *os2path)
{
	char *host = NULL;
	bool found = false;
	struct wd_err e;
	if (volume_resolve(v, os2path, &host, &found, &e) < 0)
		return false;
	free(host);
	return found;
}

int volume_read_file(const struct volume *v, const char *host, size_t max, struct wd_buf *out,
		     struct wd_err *err)
{
	return fs_read(&v->fs, host, max, out, err);
}

int volume_mkdirs(const struct volume *v, const char *host, struct wd_err *err)
{
	return fs_mkdirs(&v->fs, host, err);
}
