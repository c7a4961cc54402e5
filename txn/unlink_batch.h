/* Deleting the many files of one transaction together.
 *
 * On some storage each delete waits for the device (freeing the file's
 * blocks issues a discard, say), so 500 deletes one after the other cost 500
 * round trips. The deletes of a batch have no order among them (the flush
 * after the batch makes them durable together), so they are queued, then
 * issued from a few threads at once when the batch is run, in a batch of
 * the root's folder handles (fs_batch_begin), which they share. */
#ifndef WD_UNLINK_BATCH_H
#define WD_UNLINK_BATCH_H

#include <stdbool.h>

#include "common/err.h"
#include "fs/fs.h"

/* Queues a host path below root (copied) for deletion; it is deleted by the
 * handle of its folder (fs_unlink_errno). One root per batch. */
void unlink_batch_add(const struct fs_root *root, const char *path);
bool unlink_batch_pending(void);
/* Deletes every queued path (one already gone is no error) and empties the
 * queue. Returns 0 or -WD_EFAIL naming a path that could not be deleted; once
 * a delete has failed, every later run of the process fails the same way, so
 * that the transaction it belonged to is never committed. */
int unlink_batch_run(struct wd_err *err);
/* Deletes every queued path as unlink_batch_run does, for files nothing
 * refers to any more (what a committed removal moved aside): a path that
 * cannot be deleted is left for the next sweep of the folder, and fails
 * nothing later. The queue must hold only such paths. */
void unlink_batch_sweep(void);

#endif
