/* The floor of a durable install and removal of one package's files, the
 * work itself and nothing more: each file of SRC written into DEST under a
 * temporary name, one syncfs(2) of DEST's file system, each renamed into
 * place, DEST flushed; then each unlinked and DEST flushed. Run by
 * bench/install.sh beside warpdrv and dpkg on the same payload.
 *   install_floor [-j N] SRC DEST NAME...   (DEST is made; the names are files of SRC)
 * Where there is no syncfs, each file is flushed with fdatasync instead.
 * With -j N the unlinks are issued from N threads at once: where freeing a
 * file's blocks waits for the device (a discard), their waits overlap, and
 * that is the cheaper way to do the same work. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* The unlinks of -j N: each thread takes the next name. */
static int del_dir;
static char **del_names;
static int del_count;
static atomic_int del_next;

static void *unlink_worker(void *arg)
{
	(void)arg;
	for (int i; (i = atomic_fetch_add(&del_next, 1)) < del_count;)
		if (unlinkat(del_dir, del_names[i], 0) < 0)
			die("unlink", del_names[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 1;
	if (argc > 2 && !strcmp(argv[1], "-j")) {
		threads = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 4 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: install_floor [-j N] SRC DEST NAME...\n");
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
	del_dir = dst;
	del_names = argv + 3;
	del_count = argc - 3;
	pthread_t th[64];
	for (int i = 1; i < threads; i++)
		if (pthread_create(&th[i], NULL, unlink_worker, NULL) != 0)
			die("pthread_create", NULL);
	unlink_worker(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(th[i], NULL);
	if (fsync(dst) < 0)
		die("fsync", argv[2]);
	close(dst);
	close(src);
	return 0;
}
