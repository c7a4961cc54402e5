/* The subscription activated on a volume, kept in its state database:
 * table subscription_keys (every key ever activated; the current one has no
 * end date), table revoked_keys (key ids the signed repository index
 * revokes; the index update fills it) and meta "last_seen" (the latest date
 * warpdrv has seen on the volume, against a clock set back).
 *
 * The stored key is its canonical text, checked again against the trusted
 * licence keys on every load: the database is not trusted to say what a key
 * entitles. */
#ifndef WD_ACTIVATION_H
#define WD_ACTIVATION_H

#include <stdbool.h>
#include <stddef.h>

#include "state/db.h"
#include "common/err.h"
#include "license/entitlement.h"
#include "trust/keys.h"
#include "license/subscription.h"

#define ACTIVATION_LAST_SEEN "last_seen"

struct sub_ids {
	char **ids;
	size_t n;
};
void sub_ids_add(struct sub_ids *l, const char *id);
void sub_ids_free(struct sub_ids *l);

/* What an entitlement decision needs from the volume. */
struct activation {
	bool have;               /* a key is activated */
	struct subscription sub; /* it, verified */
	char *text;              /* its text: the credential, never to be printed whole */
	char *activated;         /* YYYY-MM-DD */
	struct sub_ids revoked;  /* from revoked_keys, plus any added */
	struct entitlement_ctx ctx;
};

/* Loads the current key (verified against kr's licence keys), the revoked ids,
 * the last date seen and today. A database that is not open (none on the
 * volume) means no key. A stored key that no longer verifies is an error. */
int activation_load(struct db *db, const struct keyring *kr, struct activation *a,
		    struct wd_err *err);
/* Revoked ids from elsewhere (a repository index read this run). */
void activation_add_revoked(struct activation *a, const char *const *ids, size_t n);
/* A date seen elsewhere (the newest repository index): the clock must not be
 * behind it either. */
void activation_saw_date(struct activation *a, int day);
void activation_free(struct activation *a);

/* Makes s the current key (the previous one ends as "replaced" and stays in
 * the history), in one transaction; the database file becomes readable by
 * its owner only where the file system allows. */
int activation_store(struct db *db, const struct subscription *s, int today,
		     struct wd_err *err);
/* Ends the current key as "deactivated" (it stays in the history); id gets
 * its key id, or "" when none was activated. */
int activation_end(struct db *db, int today, char id[SUB_ID_HEX], struct wd_err *err);
/* The current key's id, or "" when none (no need for the key to verify). */
int activation_current_id(struct db *db, char id[SUB_ID_HEX], struct wd_err *err);
int activation_revoked_ids(struct db *db, struct sub_ids *out, struct wd_err *err);
/* The latest date seen on the volume (-1: none). */
int activation_last_seen(struct db *db, int *day, struct wd_err *err);
/* Raises the latest date seen to day (never lowers it). For every command
 * that writes to the volume, and for the date of a newer repository index. */
int activation_note_date(struct db *db, int day, struct wd_err *err);
/* activation_note_date with today (WARPDRV_NOW where the test hooks are
 * built in): inside the transaction of every command that writes to the
 * volume, so that a clock set back afterwards is caught. */
int activation_note_today(struct db *db, struct wd_err *err);

/* The gate for install and setup: may a package that needs `entitlement`,
 * released on `released`, install on this volume today? Loads the activation
 * from db, adds the revoked ids and the index date given (NULL/0 and -1 when
 * none), and decides with entitlement_check. 0 or -WD_ELICENSE (exit 4). */
int subscription_gate(struct db *db, const struct keyring *kr, const char *const *revoked,
		      size_t nrevoked, int index_date, const char *entitlement, int released,
		      struct wd_err *err);

#endif
