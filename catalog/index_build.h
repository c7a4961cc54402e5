/* Building a repository's index (warpdrv-admin index): an entry for every
 * package in the folder, each read and checked as an installer would. */
#ifndef WD_INDEX_BUILD_H
#define WD_INDEX_BUILD_H

#include <stdint.h>

#include "catalog/index.h"
#include "common/err.h"
#include "trust/keys.h"

/* Adds an index entry for each .wdp in dir, in name order, each checked
 * against kr; two packages of one name are refused. */
int index_build(const char *dir, const struct keyring *kr, struct repo_index *idx,
		struct wd_err *err);
/* One more than the serial of the index at path, or 1 when there is none
 * that reads. */
uint64_t index_next_serial(const char *path);

#endif
