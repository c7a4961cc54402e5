/* The remote repositories a volume uses (`warpdrv repo add/list/remove`),
 * kept in its state database: a name, a URL, the mirrors tried after it in
 * order, and whether it is a subscription repository. */
#ifndef WD_REPOLIST_H
#define WD_REPOLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "state/repos.h"

#define REPO_MAX_MIRRORS REPOS_MAX_MIRRORS


/* A repository name: 1..32 of [a-z0-9._-], starting with a letter or digit. */
bool repo_valid_name(const char *s);
/* Every configured repository in the order added; a database that is not
 * open (none on the volume) has none. */
int repolist_read(struct db *db, struct repo_list *l, struct wd_err *err);
/* Adds one (a name already used is a usage error), in one transaction. */
int repolist_add(struct db *db, const struct repo_conf *c, int today, struct wd_err *err);
/* Removes one; *found false when there was none of that name. */
int repolist_remove(struct db *db, const char *name, bool *found, struct wd_err *err);
const struct repo_conf *repolist_find(const struct repo_list *l, const char *name);
void repolist_free(struct repo_list *l);

#endif
