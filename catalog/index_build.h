/* Building a repository's index (warpdrv-admin index): an entry for every
 * package in the folder, each read and checked as an installer would. */
#ifndef WD_INDEX_BUILD_H
#define WD_INDEX_BUILD_H

#include <stdint.h>

#include "catalog/index.h"
#include "common/err.h"
#include "trust/keys.h"

/* Adds an index entry for each .wdp in dir, each checked against kr, in
 * index_order: by name, each name's versions newest first (the newest on
 * the package line, the others on older lines). Two packages of one name
 * and version are refused, naming both files. */
int index_build(const char *dir, const struct keyring *kr, struct repo_index *idx,
		struct wd_err *err);
/* One more than the serial of the index at path, or 1 when there is none
 * that reads. */
uint64_t index_next_serial(const char *path);

#endif
