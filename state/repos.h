/* The remote repositories of a volume (tables repository and
 * repository_mirror): a name, a URL, the mirrors tried after it in order,
 * and whether it is a subscription repository. catalog/repolist.h is the
 * API the commands use; these are its rows. */
#ifndef WD_REPOS_H
#define WD_REPOS_H

#include <stdbool.h>
#include <stddef.h>

#include "state/db.h"

struct repo_conf {
	char *name, *url;
	char **mirrors;
	size_t nmirrors;
	bool subscription;
};

struct repo_list {
	struct repo_conf *v;
	size_t n;
};

/* At most this many mirrors of one repository are read (what 'repo add'
 * accepts): a crafted database listing thousands cannot make a command try
 * each in turn. */
#define REPOS_MAX_MIRRORS 16

/* Every repository in the order added; a database that is not open has none. */
int repos_read(struct db *db, struct repo_list *l, struct wd_err *err);
/* Inside a transaction the caller began: adds one, added on day (YYYY-MM-DD). */
int repos_insert(struct db *db, const struct repo_conf *c, const char *day, struct wd_err *err);
/* Deletes one with its mirrors; *found false when there was none of that name. */
int repos_delete(struct db *db, const char *name, bool *found, struct wd_err *err);
void repos_free(struct repo_list *l);

#endif
