#include "catalog/fetch_stored.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"

static char *note_key(const char *name, const char *url)
{
	return wd_xasprintf("stored %s %s", name, url);
}

/* The stored catalog's identity, as text: "-" when it cannot be examined. */
static void identity(const struct fs_root *fs, const char *path, char *out, size_t n)
{
	struct stat st;
	if (fs_lstat(fs, path, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(out, n, "-");
		return;
	}
	snprintf(out, n, "%ju:%ju:%jd:%jd.%09ld:%jd.%09ld", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

void fetch_stored_remember(struct fetch_validators *vs, const struct fs_root *fs,
			   const char *store_path, const char *name, const char *url,
			   const struct repo_index *idx)
{
	char *key = note_key(name, url), id[200];
	identity(fs, store_path, id, sizeof id);
	if (!strcmp(id, "-")) {
		fetch_validators_set_note(vs, key, NULL);
		free(key);
		return;
	}
	char *text = wd_xasprintf("%s %" PRIu64 " %d %d %zu %zu %s", id, idx->serial,
				  idx->issued, idx->expires, idx->npkgs, idx->nrevoked,
				  idx->signer);
	fetch_validators_set_note(vs, key, text);
	free(text);
	free(key);
}

bool fetch_stored_light(const struct fs_root *fs, const char *store_path, const char *name,
			const char *url, const struct keyring *kr,
			const struct fetch_validators *vs, struct repo_index *idx)
{
	char *key = note_key(name, url);
	const char *note = fs && store_path ? fetch_validators_note(vs, key) : NULL;
	free(key);
	char was[200], now[200], signer[WD_FPR_HEX];
	uint64_t serial;
	int issued, expires, end = 0;
	size_t npkgs, nrevoked;
	if (!note ||
	    sscanf(note, "%199s %" SCNu64 " %d %d %zu %zu %64s%n", was, &serial, &issued,
		   &expires, &npkgs, &nrevoked, signer, &end) != 7 || note[end] ||
	    strlen(signer) != WD_FPR_HEX - 1 || npkgs > INDEX_MAX_BYTES ||
	    nrevoked > INDEX_MAX_BYTES || !keyring_find(kr, signer, KEY_ROLE_REPO))
		return false;
	identity(fs, store_path, now, sizeof now);
	if (!strcmp(now, "-") || strcmp(now, was))
		return false;
	memset(idx, 0, sizeof *idx);
	idx->serial = serial;
	idx->issued = issued;
	idx->expires = expires;
	memcpy(idx->signer, signer, WD_FPR_HEX);
	idx->npkgs = npkgs;
	idx->nrevoked = nrevoked;
	return true;
}

void fetch_stored_light_free(struct repo_index *idx)
{
	idx->npkgs = idx->nrevoked = 0; /* counted, not held */
	index_free(idx);
}
