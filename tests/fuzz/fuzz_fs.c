/* The confined layer's path handling (fs/fs.c): whatever path string a
 * volume or a crafted row hands it, nothing outside the root is opened,
 * created, renamed or deleted. The scratch folder holds the root ("root",
 * with a folder, a file and links out of it: to the parent, to "/", to the
 * outside file) and beside it "out" with one file whose bytes and links must
 * never change. Each input is split at its first NUL into two paths (the
 * second is a rename target). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs.h"

static char base[64], rootp[96], outf[96];
static struct fs_root root;
static struct stat out_st;

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st, (void)f;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

static void cleanup(void)
{
	fs_root_close(&root);
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	snprintf(base, sizeof base, "/tmp/wd-fuzz-fs-XXXXXX");
	if (!mkdtemp(base))
		abort();
	snprintf(rootp, sizeof rootp, "%s/root", base);
	snprintf(outf, sizeof outf, "%s/out/secret", base);
	char p[160];
	snprintf(p, sizeof p, "%s/out", base);
	if (mkdir(p, 0755) || mkdir(rootp, 0755))
		abort();
	int fd = open(outf, O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || write(fd, "secret", 6) != 6)
		abort();
	close(fd);
	snprintf(p, sizeof p, "%s/dir", rootp);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/dir/file", rootp);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof p, "%s/up", rootp);
	if (symlink("..", p))
		abort();
	snprintf(p, sizeof p, "%s/slash", rootp);
	if (symlink("/", p))
		abort();
	snprintf(p, sizeof p, "%s/dir/secret", rootp);
	if (symlink(outf, p))
		abort();
	struct wd_err e;
	if (fs_root_open(&root, rootp, &e) || stat(outf, &out_st))
		abort();
	atexit(cleanup);
}

/* The outside file: same inode, bytes, one link, same times. */
static void outside_unchanged(void)
{
	struct stat st;
	char b[16] = {0};
	int fd = open(outf, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || read(fd, b, sizeof b) != 6 || memcmp(b, "secret", 6) ||
	    st.st_ino != out_st.st_ino || st.st_nlink != 1 ||
	    st.st_mtim.tv_nsec != out_st.st_mtim.tv_nsec || st.st_mtim.tv_sec != out_st.st_mtim.tv_sec)
		abort();
	close(fd);
	char p[160];
	snprintf(p, sizeof p, "%s/out", base);
	struct stat d;
	if (stat(p, &d) || d.st_nlink != 2)
		abort();
}

/* An open descriptor must be below the root: never the outside file. */
static void inside(int fd)
{
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_ino == out_st.st_ino || st.st_dev != root.dev)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root.path)
		setup();
	if (size > 600)
		return 0;
	char *a = malloc(size + 2);
	memcpy(a, data, size);
	a[size] = a[size + 1] = '\0';
	const char *b = a + strlen(a) + 1;
	if (b > a + size)
		b = "dir/new";
	struct wd_err e;
	const char *rel = fs_rel(&root, a, &e);
	if (rel) {
		if (rel[0] == '/')
			abort();
		for (const char *s = rel; *s;) { /* no ".." component passes */
			size_t n = strcspn(s, "/");
			if (n == 2 && s[0] == '.' && s[1] == '.')
				abort();
			s += n + (s[n] == '/');
		}
	}
	struct stat st;
	fs_lstat(&root, a, &st);
	inside(fs_open(&root, a, O_RDONLY, &e));
	inside(fs_open(&root, a, O_RDONLY | O_DIRECTORY, &e));
	int fd = fs_create(&root, a, 0644, false, &e);
	bool made = fd >= 0;
	inside(fd);
	inside(fs_open_inplace(&root, "dir/file", 0644, NULL, &e));
	if (made && fs_rename(&root, a, b, &e) == 0)
		fs_unlink(&root, b, &e);
	else if (made)
		fs_unlink(&root, a, &e);
	fs_mkdirs(&root, a, &e);
	fs_rmdir(&root, a);
	outside_unchanged();
	free(a);
	return 0;
}
