/* For bench/install.sh only, never for a real volume: LD_PRELOAD this into
 * warpdrv and every flush it asks for (fsync, fdatasync, syncfs,
 * sync_file_range, sync) returns at once without reaching the disk. The
 * benchmark times warpdrv so beside its normal run, which splits its time
 * into what the flushes cost and the rest of its own work; a run under it
 * is not durable. Built by `make benches` into build/bench/no_flush.so. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

int fsync(int fd)
{
	(void)fd;
	return 0;
}

int fdatasync(int fd)
{
	(void)fd;
	return 0;
}

int syncfs(int fd)
{
	(void)fd;
	return 0;
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)
{
	(void)fd;
	(void)offset;
	(void)nbytes;
	(void)flags;
	return 0;
}

void sync(void)
{
}
