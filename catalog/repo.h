/* Repositories and the catalog they make: each repository is a URL (file://
 * here; http(s) through the same libcurl call) holding INDEX and the .wdp
 * files it names. The catalog is every repository's checked index, in the
 * order given; each index may list several versions of a name
 * (catalog/versions.h chooses among them). */
#ifndef WD_REPO_H
#define WD_REPO_H

#include <stdbool.h>

#include "state/db.h"
#include "catalog/fetch.h"
#include "catalog/index.h"
#include "catalog/package.h"
#include "trust/keys.h"

/* A URL for a repository argument: URLs stay as they are, a folder becomes
 * file:///absolute/path (percent-encoded). malloc'd. */
char *repo_url(const char *arg);

struct catalog;

struct repo {
	char *url;       /* where it is named from (the primary URL) */
	char *name;      /* a configured repository's name; NULL for --repo and bundled */
	char **mirrors;  /* tried after url, in order */
	size_t nmirrors;
	bool subscription;
	char *dir;       /* the bundled repository's folder: read in place, no transfer */
	const struct catalog *cat;
	struct repo_index idx;
};

struct catalog {
	struct repo *repos;
	size_t n;
	const struct fetch_net *net; /* NULL: the defaults */
	struct fetch_auth auth;      /* for subscription repositories (user NULL: none) */
	char *cache_dir;             /* remote packages are downloaded here; NULL: into memory */
	const struct fs_root *cache_fs; /* the volume cache_dir lies on (all access by its handle) */
	bool no_download;            /* --dry-run: the cache is read, nothing is downloaded */
};

/* An empty catalog that fetches through net (may be NULL). Not to be moved
 * once repositories are added (they point back to it). */
void catalog_init(struct catalog *c, const struct fetch_net *net);
/* Fetches and checks (signature, expiry) the index at url and adds it. */
int catalog_add_url(struct catalog *c, const char *url, const struct keyring *kr, int today,
		    struct wd_err *err);
/* The bundled repository, the folder beside the program: the program's own
 * data, read in place like its keys (no transfer, so no libcurl), its
 * signature checked but never its expiry (docs/repository.md, "The bundled
 * repository"). */
int catalog_add_bundled(struct catalog *c, const char *dir, const struct keyring *kr,
			struct wd_err *err);
/* Adds a repository whose index is already checked; takes idx over. */
struct repo *catalog_add_index(struct catalog *c, const char *name, const char *url,
			       char *const *mirrors, size_t nmirrors, bool subscription,
			       struct repo_index *idx);
/* The credentials sent to subscription repositories (copied). */
void catalog_set_auth(struct catalog *c, const char *user, const char *password);
void catalog_free(struct catalog *c);
/* The newest version named name in any repository (a version several
 * have: the first repository's); *from (if not NULL) is its repository. */
const struct index_entry *catalog_find(const struct catalog *c, const char *name,
				       const struct repo **from);
/* The entry named name at version (the same release by catalog/version.h's
 * order) in the first repository that has it; *from as catalog_find. */
const struct index_entry *catalog_find_version(const struct catalog *c, const char *name,
					       const char *version, const struct repo **from);
/* Fetches a package, checks its size and SHA-256 against the index, then
 * reads it (package_read). A remote package goes through the cache folder
 * when the catalog has one: a complete file there with the right hash is
 * used with no network, a partial one is resumed. Each failure (connection,
 * time-out, HTTP error, wrong hash, over-long body) moves on to the next
 * mirror; when all fail, the error lists each. */
int catalog_fetch(const struct repo *from, const struct index_entry *e, const struct keyring *kr,
		  struct package *p, struct wd_err *err);

/* The lock a partial download (FILE.part in the cache folder) is held by
 * while it is written and renamed: an open file description's write lock
 * (F_OFD_SETLK, which no other descriptor's close lets go), taken without
 * waiting. 0, or -1 with errno (EAGAIN, EACCES: another holds it). `clean`
 * takes it before removing a partial download. */
int catalog_part_lock(int fd);

/* Whether catalog_fetch would download e: a remote repository's package that
 * is not complete (right size and hash) in the cache folder. The bundled and
 * file:// repositories are read in place: false. */
bool catalog_would_download(const struct repo *from, const struct index_entry *e);
/* The scheme, host and port of a URL ("https://host:port"), lowercase, no
 * user part: where credentials would go. malloc'd; NULL for a URL without
 * "scheme://". */
char *repo_origin(const char *url);

/* A package known from e alone, when its index says what setup chooses by
 * (e->choice): name, version, kind, entitlement, release, pci lines and the
 * NIC fields, no files. false (p untouched) for an older index. */
bool catalog_stub(const struct repo *from, const struct index_entry *e, struct package *p);
/* Reads a stub's package (catalog_fetch) in its place; nothing for a
 * package that is not one. */
int catalog_unstub(const struct keyring *kr, struct package *p, struct wd_err *err);

/* Decides whether an index's serial may replace what is held: 0 or an error. */
typedef int (*repo_serial_check)(void *ud, const char *url, const struct repo_index *idx,
				 struct wd_err *err);
/* A conditional fetch of an index already held: the validators the last
 * download of each INDEX URL gave are sent back (fetch_mem_if) and updated
 * from the answer. */
struct repo_index_cond {
	struct fetch_validators *validators;
	bool ask;       /* send them (false: no index is held, or a stale one) */
	bool unchanged; /* out: urls[*used] answered 304; idx is left empty */
};

/* Fetches a repository's index from each of urls in turn until one verifies,
 * has not expired and passes check (may be NULL); *used is the index of the
 * URL that gave it. With cond (may be NULL), a URL that answers "not
 * modified" ends the search with nothing parsed. When all fail, the error
 * lists every failure, and its code is the gravest (subscription over trust
 * over the rest). */
int repo_fetch_index(const struct fetch_net *net, const struct fetch_auth *auth,
		     const char *const *urls, size_t n, const struct keyring *kr, int today,
		     repo_serial_check check, void *ud, struct repo_index_cond *cond,
		     struct repo_index *idx, size_t *used, struct wd_err *err);

/* What the volume remembers (needs a writable database):
 * refuses an index whose serial is lower than the last one seen from the same
 * repository and signer (a rollback attack), then records the serials and the
 * revoked key ids. */
int catalog_remember(struct db *db, const struct catalog *c, struct wd_err *err);
/* The one rollback guard: an index's serial may not be below the serial the
 * volume's database remembers for its signer and URL, nor below held's (the
 * index held already, if any, and of the same signer). 0 or -WD_ETRUST. */
int repo_serial_guard(struct db *db, const char *url, const struct repo_index *idx,
		      const struct repo_index *held, struct wd_err *err);
/* The last serial the volume saw from this signer at this URL (0: none). */
int catalog_seen_serial(struct db *db, const char *signer, const char *url, uint64_t *seen,
			struct wd_err *err);

#endif
