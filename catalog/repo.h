/* Repositories and the catalog they make: each repository is a URL (file://
 * here; http(s) through the same libcurl call) holding INDEX and the .wdp
 * files it names. The catalog is every repository's checked index, in the
 * order given: the first repository that has a package wins. */
#ifndef WD_REPO_H
#define WD_REPO_H

#include <stdbool.h>

#include "catalog/db.h"
#include "catalog/index.h"
#include "catalog/package.h"
#include "license/keys.h"

/* Fetches a URL into out, refusing more than max bytes. */
int repo_fetch(const char *url, size_t max, struct wd_buf *out, struct wd_err *err);
/* A URL for a repository argument: URLs stay as they are, a folder becomes
 * file:///absolute/path (percent-encoded). malloc'd. */
char *repo_url(const char *arg);

struct repo {
	char *url;
	struct repo_index idx;
};

struct catalog {
	struct repo *repos;
	size_t n;
};

/* Fetches and checks each repository's index (signature, expiry). */
int catalog_load(struct catalog *c, const char *const *urls, size_t n, const struct keyring *kr,
		 int today, struct wd_err *err);
void catalog_free(struct catalog *c);
/* The first entry named name; *from (if not NULL) is its repository. */
const struct index_entry *catalog_find(const struct catalog *c, const char *name,
				       const struct repo **from);
/* Fetches a package, checks its size and SHA-256 against the index, then
 * reads it (package_read). */
int catalog_fetch(const struct repo *from, const struct index_entry *e, const struct keyring *kr,
		  struct package *p, struct wd_err *err);
/* Is this subscription key id revoked by any loaded index? */
bool catalog_key_revoked(const struct catalog *c, const char *keyid);

/* What the volume remembers (needs a writable database):
 * refuses an index whose serial is lower than the last one seen from the same
 * repository and signer (a rollback attack), then records the serials and the
 * revoked key ids. */
int catalog_remember(struct db *db, const struct catalog *c, struct wd_err *err);
/* Was this subscription key id revoked by an index the volume has seen? */
int catalog_db_key_revoked(struct db *db, const char *keyid, bool *revoked, struct wd_err *err);

#endif
