#include "os2/nameidx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os2/textlines.h"

static uint64_t seed(void)
{
	static uint64_t k;
	if (!k) {
		uint64_t r = 0;
		if (getentropy(&r, sizeof r)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid();
		}
		k = r | 1;
	}
	return k;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Upper-cases ASCII so that names equal without case hash alike. */
static unsigned long long hash(struct wd_sv key)
{
	uint64_t h = seed() ^ (key.n * 0x9e3779b97f4a7c15ull);
	for (size_t i = 0; i < key.n; i++) {
		unsigned char c = (unsigned char)key.p[i];
		if (c >= 'a' && c <= 'z')
			c -= 32;
		h = (h ^ c) * 0x100000001b3ull;
		if ((i & 7) == 7)
			h = mix(h);
	}
	h = mix(h);
	return h ? h : 1; /* 0 marks a free slot */
}

static size_t find(const struct nameidx *ix, struct wd_sv key, unsigned long long h)
{
	size_t mask = ix->cap - 1, i = (size_t)h & mask;
	while (ix->v[i].hash &&
	       (ix->v[i].hash != h || !tl_sv_ieq(wd_sv_make(ix->v[i].p, ix->v[i].len), key)))
		i = (i + 1) & mask;
	return i;
}

static void resize(struct nameidx *ix, size_t cap)
{
	struct nameidx big = {wd_xcalloc(cap, sizeof *big.v), cap, ix->n};
	for (size_t i = 0; i < ix->cap; i++) {
		if (!ix->v[i].hash)
			continue;
		size_t mask = big.cap - 1, j = (size_t)ix->v[i].hash & mask;
		while (big.v[j].hash)
			j = (j + 1) & mask;
		big.v[j] = ix->v[i];
	}
	free(ix->v);
	*ix = big;
}

static void grow(struct nameidx *ix)
{
	resize(ix, ix->cap ? ix->cap * 2 : 16);
}

void ni_reserve(struct nameidx *ix, size_t n)
{
	size_t cap = ix->cap ? ix->cap : 16;
	while (cap < 2 * (n + 1))
		cap *= 2;
	if (cap > ix->cap)
		resize(ix, cap);
}

size_t *ni_put(struct nameidx *ix, struct wd_sv key, size_t val, bool *added)
{
	if ((ix->n + 1) * 2 > ix->cap)
		grow(ix);
	unsigned long long h = hash(key);
	size_t i = find(ix, key, h);
	bool add = !ix->v[i].hash;
	if (add) {
		ix->v[i] = (struct ni_slot){key.p, key.n, val, h};
		ix->n++;
	}
	if (added)
		*added = add;
	return &ix->v[i].val;
}

const size_t *ni_get(const struct nameidx *ix, struct wd_sv key)
{
	if (!ix->cap)
		return NULL;
	size_t i = find(ix, key, hash(key));
	return ix->v[i].hash ? &ix->v[i].val : NULL;
}

void ni_free(struct nameidx *ix)
{
	free(ix->v);
	memset(ix, 0, sizeof *ix);
}
