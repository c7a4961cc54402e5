/* The subscription rows of the volume's database: subscription_keys (every
 * key activated, as its canonical text; the current one has no end) and
 * revoked_keys (key ids the signed repository indexes revoked). What a key
 * means is license/activation.h's business: it verifies the text again on
 * every load. A database that is not open holds none. */
#ifndef WD_SUBSCRIPTIONS_H
#define WD_SUBSCRIPTIONS_H

#include <stddef.h>

#include "state/db.h"

struct subscription_row {
	char *key_id, *activated, *ended, *ended_why; /* ended, ended_why NULL: current */
};

/* The current key's text and activation date, or NULLs. */
int subscriptions_current(struct db *db, char **text, char **activated, struct wd_err *err);
/* The current key's id, or NULL. */
int subscriptions_current_id(struct db *db, char **id, struct wd_err *err);
/* Ends the current key (if any) on day (YYYY-MM-DD) for why ("replaced",
 * "deactivated"). */
int subscriptions_end_current(struct db *db, const char *day, const char *why,
			      struct wd_err *err);
/* Adds a key as the current one (end the current one first). */
int subscriptions_add(struct db *db, const char *id, const char *text, const char *day,
		      struct wd_err *err);
/* Every key activated, oldest first. */
int subscriptions_all(struct db *db, struct subscription_row **out, size_t *n,
		      struct wd_err *err);
void subscriptions_all_free(struct subscription_row *r, size_t n);

/* The revoked key ids, sorted (malloc'd strings in a malloc'd array). */
int revoked_keys_list(struct db *db, char ***ids, size_t *n, struct wd_err *err);
/* Records a revoked key id from source (a repository URL); a revocation
 * already known stays as it was. */
int revoked_keys_add(struct db *db, const char *id, const char *source, struct wd_err *err);

#endif
