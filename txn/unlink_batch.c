#include "txn/unlink_batch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "fs/fs.h"

/* Threads for a batch: enough to keep a device's queue busy; a small batch
 * is deleted by the caller alone. */
#define UNLINK_THREADS 8
#define UNLINK_MIN_PER_THREAD 8

static char **queue;
static const struct fs_root *queue_root;
static size_t nqueue, capqueue;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t next;              /* the next queued path to delete */
static int failed_errno;         /* the first failure, kept for the process */
static char *failed_path;
static bool sweeping;            /* a sweep: failures are not recorded */

void unlink_batch_add(const struct fs_root *root, const char *path)
{
	queue_root = root;
	if (nqueue == capqueue) {
		capqueue = capqueue ? 2 * capqueue : 64;
		queue = wd_xrealloc(queue, capqueue * sizeof *queue);
	}
	queue[nqueue++] = wd_xstrdup(path);
}

bool unlink_batch_pending(void)
{
	return nqueue > 0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		size_t i = next++;
		pthread_mutex_unlock(&lock);
		if (i >= nqueue)
			return NULL;
		int e = fs_unlink_errno(queue_root, queue[i]);
		if (!e || sweeping)
			continue;
		pthread_mutex_lock(&lock);
		if (!failed_path) {
			failed_errno = e;
			failed_path = wd_xstrdup(queue[i]);
		}
		pthread_mutex_unlock(&lock);
	}
}

/* Deletes the queue from a few threads and empties it, in a batch of the
 * root's folder handles (fs/fs.h): the threads share each folder's. */
static void run_queue(void)
{
	const struct fs_root *root = nqueue ? queue_root : NULL;
	if (root)
		fs_batch_begin(root);
	next = 0;
	size_t want = nqueue / UNLINK_MIN_PER_THREAD;
	pthread_t th[UNLINK_THREADS];
	size_t started = 0;
	while (started < want && started < UNLINK_THREADS &&
	       pthread_create(&th[started], NULL, worker, NULL) == 0)
		started++;
	worker(NULL); /* the caller too, and alone if no thread could start */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < nqueue; i++)
		free(queue[i]);
	nqueue = 0;
	if (root)
		fs_batch_end(root);
}

int unlink_batch_run(struct wd_err *err)
{
	run_queue();
	if (failed_path)
		return wd_err_set(err, WD_EFAIL, "%s: cannot delete: %s", failed_path,
				  strerror(failed_errno));
	return 0;
}

void unlink_batch_sweep(void)
{
	sweeping = true;
	run_queue();
	sweeping = false;
}
