/* A power cut just after a commit, simulated: LD_PRELOAD this into a program
 * and every unlink of a "-journal" file whose folder is not flushed
 * afterwards (fsync or fdatasync of the folder, or syncfs of its file
 * system) before the program exits is lost: the journal is put back at exit,
 * as a file system may do after a crash when the removal of the name never
 * reached the disk. SQLite then finds a hot journal at the next open and
 * rolls the last transaction back. Built by the Makefile into build/. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LOST 16

struct lost {
	char path[PATH_MAX], saved[PATH_MAX + 16];
	dev_t dev;
	ino_t ino;
	int used;
};

static struct lost lost[MAX_LOST];

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static struct lost *slot(const char *path)
{
	for (int i = 0; i < MAX_LOST; i++)
		if (lost[i].used && !strcmp(lost[i].path, path))
			return &lost[i];
	for (int i = 0; i < MAX_LOST; i++)
		if (!lost[i].used)
			return &lost[i];
	return NULL;
}

/* Keeps the journal's data under another name before the name goes. */
static void remember(const char *path)
{
	struct lost *l = slot(path);
	char dir[PATH_MAX];
	struct stat st;
	if (!l || strlen(path) >= PATH_MAX)
		return;
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (stat(slash ? (dir[0] ? dir : "/") : ".", &st) < 0)
		return;
	if (l->used)
		unlink(l->saved);
	snprintf(l->path, sizeof l->path, "%s", path);
	snprintf(l->saved, sizeof l->saved, "%s.lost-unlink", path);
	unlink(l->saved);
	if (link(path, l->saved) < 0)
		return;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	l->used = 1;
}

int unlink(const char *path)
{
	static int (*real)(const char *);
	if (!real)
		real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
	if (ends_with(path, "-journal"))
		remember(path);
	return real(path);
}

/* The same by folder handle (warpdrv's SQLite layer deletes the journal
 * with unlinkat on the state folder's descriptor). */
int unlinkat(int dirfd, const char *name, int flags)
{
	static int (*real)(int, const char *, int);
	if (!real)
		real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
	if (!flags && ends_with(name, "-journal")) {
		char path[PATH_MAX], link[64];
		if (name[0] == '/' || dirfd == AT_FDCWD) {
			snprintf(path, sizeof path, "%s", name);
			remember(path);
		} else {
			snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
			ssize_t n = readlink(link, path, sizeof path - 1);
			if (n > 0 && (size_t)n + strlen(name) + 2 < sizeof path) {
				path[n] = '\0';
				strcat(path, "/");
				strcat(path, name);
				remember(path);
			}
		}
	}
	return real(dirfd, name, flags);
}

/* A flush of fd makes the lost unlinks of its folder (or, whole, of its file
 * system) durable. */
static void flushed(int fd, int whole_fs)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return;
	for (int i = 0; i < MAX_LOST; i++) {
		struct lost *l = &lost[i];
		if (!l->used || l->dev != st.st_dev)
			continue;
		if (whole_fs || (S_ISDIR(st.st_mode) && l->ino == st.st_ino)) {
			unlink(l->saved);
			l->used = 0;
		}
	}
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	int r = real(fd);
	if (r == 0)
		flushed(fd, 0);
	return r;
}

int fdatasync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	int r = real(fd);
	if (r == 0)
		flushed(fd, 0);
	return r;
}

int syncfs(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "syncfs");
	int r = real(fd);
	if (r == 0)
		flushed(fd, 1);
	return r;
}

/* The power goes: every unlink not made durable is undone. */
__attribute__((destructor)) static void power_cut(void)
{
	for (int i = 0; i < MAX_LOST; i++)
		if (lost[i].used && rename(lost[i].saved, lost[i].path) == 0 && getenv("LOST_UNLINK_SAY"))
			fprintf(stderr, "lost_unlink: %s put back\n", lost[i].path);
}
