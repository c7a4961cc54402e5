#include "catalog/repolist.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/date.h"
#include "license/activation.h"

bool repo_valid_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 32 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    !strchr("._-", s[i]))
			return false;
	return true;
}

int repolist_read(struct db *db, struct repo_list *l, struct wd_err *err)
{
	return repos_read(db, l, err);
}

int repolist_add(struct db *db, const struct repo_conf *c, int today, struct wd_err *err)
{
	struct repo_list l;
	int r = repolist_read(db, &l, err);
	if (r)
		return r;
	bool taken = repolist_find(&l, c->name) != NULL;
	repolist_free(&l);
	if (taken)
		return wd_err_set(err, WD_EUSAGE, "a repository named '%s' exists already "
				  "('warpdrv repo remove %s' first)", c->name, c->name);
	if ((r = db_begin(db, err)))
		return r;
	char day[WD_DATE_LEN];
	wd_date_format(today, day);
	if ((r = repos_insert(db, c, day, err)) || (r = activation_note_date(db, today, err)) ||
	    (r = db_commit(db, err)))
		db_rollback(db);
	return r;
}

int repolist_remove(struct db *db, const char *name, bool *found, struct wd_err *err)
{
	return repos_delete(db, name, found, err);
}

const struct repo_conf *repolist_find(const struct repo_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void repolist_free(struct repo_list *l)
{
	repos_free(l);
}
