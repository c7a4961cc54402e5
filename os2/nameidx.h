/* A hash index of names that compare without ASCII case (section names,
 * DriverNames, file names), each mapped to a number: the first one added
 * stays. Keys are borrowed views: they must outlive the index. A hostile
 * volume cannot aim its names at one bucket: the hash is keyed by a
 * random number drawn once per process. */
#ifndef WD_NAMEIDX_H
#define WD_NAMEIDX_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

struct ni_slot {
	const char *p;
	size_t len;
	size_t val;
	unsigned long long hash; /* of the key; 0: the slot is free */
};

struct nameidx {
	struct ni_slot *v;
	size_t cap, n; /* cap: a power of two, or 0 */
};

/* Adds key with val unless it is there; returns the value slot of key and
 * whether it was added. */
size_t *ni_put(struct nameidx *ix, struct wd_sv key, size_t val, bool *added);
/* The value of key, or NULL. */
const size_t *ni_get(const struct nameidx *ix, struct wd_sv key);
/* Room for n keys without growing (a hint: the index grows anyway). */
void ni_reserve(struct nameidx *ix, size_t n);
void ni_free(struct nameidx *ix);

#endif
