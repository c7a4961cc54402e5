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
#include "license/subscription.h"
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
	/* Why no install may be chosen from this repository's stored catalog
	 * (older than this host has seen, or expired), or NULL. */
	char *stale;
};

struct catalog {
	struct repo *repos;
	size_t n;
	const struct fetch_net *net; /* NULL: the defaults */
	struct fetch_auth auth;      /* for subscription repositories (user NULL: none) */
	struct subscription key;     /* the key auth is: the repositories it names */
	char *cache_dir;             /* remote packages are downloaded here; NULL: into memory */
	const struct fs_root *cache_fs; /* the volume cache_dir lies on (all access by its handle) */
	bool no_download;            /* --dry-run: the cache is read, nothing is downloaded */
};

/* An empty catalog that fetches through net (may be NULL). Not to be moved
 * once repositories are added (they point back to it). */
void catalog_init(struct catalog *c, const struct fetch_net *net);
/* Fetches and checks (signature, expiry, and a serial no lower than the
 * host remembers: host, may be NULL) the index at url and adds it; with
 * remember, the host's memory is raised to it. */
int catalog_add_url(struct catalog *c, const char *url, const struct keyring *kr, int today,
		    const char *host, bool remember, struct wd_err *err);
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
/* The credentials sent to subscription repositories: the activated key
 * (its id and text, copied; sub's repositories are where it may go). */
void catalog_set_auth(struct catalog *c, const struct subscription *sub, const char *text);
/* Whether a subscription key may be sent to url: signed data names the
 * place (scheme, host and port) - the key itself (sub), or the mirror list
 * of an index a trusted key signed (held, may be NULL). A repository row
 * only the volume names is no such place (docs/repository.md). */
bool repo_key_may_go(const struct subscription *sub, const struct repo_index *held,
		     const char *url);
/* The refusal when it may not: -WD_ETRUST naming url (and the repository's
 * name, where not NULL). */
int repo_key_refused(const char *name, const char *url, struct wd_err *err);
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

/* What the volume remembers (needs a writable database): the newest issue
 * date (the clock guard) and the revoked key ids. */
int catalog_remember(struct db *db, const struct catalog *c, struct wd_err *err);
/* The one rollback guard: an index's serial may not be below the serial the
 * host remembers for its signer and URL, nor below held's (the index held
 * already, signed as well, if any, and of the same signer). 0 or
 * -WD_ETRUST. What the volume's database says is not asked: it is anyone's. */
int repo_serial_guard(const char *host, const char *url, const struct repo_index *idx,
		      const struct repo_index *held, struct wd_err *err);

#endif
