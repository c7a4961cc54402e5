/* The floor of a durable install and removal of one package's files, the
 * work itself and nothing more: each file of SRC written into DEST under a
 * temporary name, one syncfs(2) of DEST's file system, each renamed into
 * place, DEST flushed; then each unlinked and DEST flushed. Run by
 * bench/install.sh beside warpdrv and dpkg on the same payload.
 *   install_floor SRC DEST NAME...   (DEST is made; the names are files of SRC)
 * Where there is no syncfs, each file is flushed with fdatasync instead. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what, const char *name)
{
	perror(name ? name : what);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: install_floor SRC DEST NAME...\n");
		return 2;
	}
	static char buf[1 << 16];
	int src = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (src < 0)
		die("open", argv[1]);
	if (mkdir(argv[2], 0755) < 0)
		die("mkdir", argv[2]);
	int dst = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (dst < 0)
		die("open", argv[2]);
	char tmp[4096];
	for (int i = 3; i < argc; i++) {
		int in = openat(src, argv[i], O_RDONLY);
		if (in < 0)
			die("open", argv[i]);
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0)
			die("read", argv[i]);
		close(in);
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[i]);
		int out = openat(dst, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (out < 0 || write(out, buf, (size_t)n) != n)
			die("write", tmp);
#ifndef __linux__
		if (fdatasync(out) < 0)
			die("fdatasync", tmp);
#endif
		close(out);
	}
#ifdef __linux__
	if (syncfs(dst) < 0)
		die("syncfs", argv[2]);
#endif
	for (int i = 3; i < argc; i++) {
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[i]);
		if (renameat(dst, tmp, dst, argv[i]) < 0)
			die("rename", tmp);
	}
	if (fsync(dst) < 0)
		die("fsync", argv[2]);
	for (int i = 3; i < argc; i++)
		if (unlinkat(dst, argv[i], 0) < 0)
			die("unlink", argv[i]);
	if (fsync(dst) < 0)
		die("fsync", argv[2]);
	close(dst);
	close(src);
	return 0;
}
