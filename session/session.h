/* A session: what one run of a command works with, as libalpm's handle is.
 * The front end fills it once from its options and the environment; the
 * session then gives the commands the trusted keys, the catalog of every
 * repository, a package by name or file, and the volume's state read without
 * writing (an interrupted transaction finished first). It never prints: what
 * the user should hear goes through the callbacks. */
#ifndef WD_SESSION_H
#define WD_SESSION_H

#include <stdbool.h>

#include "catalog/fetch.h"
#include "catalog/repo.h"
#include "os2/volume.h"
#include "state/db.h"
#include "trust/keys.h"

struct session_cb {
	/* A note the user should see (a stale catalog, say); msg has no newline. */
	void (*warn)(void *ud, const char *msg);
	void *ud;
};

struct session {
	const char *root;               /* the volume (--root); NULL: none */
	char boot_drive;                /* 0: from CONFIG.SYS */
	const char *keys_dir;           /* --keys DIR, or NULL */
	const char *bundled_keys;       /* the program's own key folder, or NULL */
	const char *bundled_repo;       /* the program's own repository, or NULL */
	const char *const *repos;       /* --repo URLs, fetched now */
	int nrepos;
	const struct fetch_net *net;    /* NULL: catalog/fetch.h's defaults */
	bool dry_run;                   /* write nothing, not even recovery */
	struct session_cb cb;
};

/* The bundled keys and --keys DIR. Keys on the volume (var/lib/warpdrv/keys;
 * v may be NULL) are never trusted: a warning names them. */
int session_keyring(const struct session *s, const struct volume *v, struct keyring *kr,
		    struct wd_err *err);
/* --repo URLs first (fetched now), then the volume's remote repositories
 * from the catalog `warpdrv update` stored (no network), then the bundled
 * repository. */
int session_catalog(const struct session *s, const struct keyring *kr, struct catalog *cat,
		    struct wd_err *err);
/* For a command that installs: remote packages are downloaded into the
 * volume's var/cache/warpdrv/packages (under --dry-run only read: nothing
 * downloads). */
int session_use_cache(const struct session *s, const struct volume *v, struct catalog *cat,
		      struct wd_err *err);
/* A package by name (from the catalog) or a .wdp file on disk. */
int session_load(const struct keyring *kr, const struct catalog *cat, const char *arg,
		 struct package *p, struct wd_err *err);
/* Opens the volume (the boot drive from CONFIG.SYS or s->boot_drive) and,
 * if it has one, its database without writing; an interrupted transaction is
 * finished first (unless dry_run). *have is false when the volume has no
 * database yet. */
int session_state_read(const struct session *s, struct volume *v, struct db *db, bool *have,
		       struct wd_err *err);

#endif
