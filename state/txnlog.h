/* The transaction intent in the volume's database (tables txn, txn_op and
 * txn_package; txn/txn.h tells the order of the steps around them).
 *
 * The intent records what a transaction does as rows: each operation with its
 * paths and hashes, each package it installs, the generation it adds. What
 * the commit records (package, file, history and generation rows) is made
 * from those rows by fixed statements here, both when a transaction commits
 * and when recovery finishes one: no SQL text is ever read from the database.
 *
 * Everything read back is hostile data (a volume can come from anywhere):
 * txnlog_load refuses a row whose kind, path or hash is not one this build
 * writes, naming the database, the transaction and the row, before anything
 * acts on it. Paths must be volume-relative: no leading '/', no '..' or '.'
 * component, no empty component, no backslash, no NUL; an operation's target
 * may not lie in warpdrv's state folder (except the folders of a
 * generation), and a kept copy must lie in the kept or generations folder.
 *
 * Transactions recorded by a build before schema 7 kept their commit as SQL
 * text (txn.done_sql), which this build never runs. Such a pending
 * transaction can only be left by a crash of an older warpdrv followed by an
 * upgrade: the database is then refused before its schema is upgraded
 * (txnlog_before_upgrade), so that the older warpdrv, which finishes it,
 * can still open it. A done_sql in a database of schema 7 or later is
 * refused as a crafted row. */
#ifndef WD_TXNLOG_H
#define WD_TXNLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/hash.h"
#include "state/db.h"

/* In the order of txn/txn.h's enum txn_op_kind. */
enum txnlog_kind { TXNLOG_MKDIR, TXNLOG_PUT, TXNLOG_DELETE, TXNLOG_RESTORE, TXNLOG_REPLACE,
		   TXNLOG_RETIRE };

/* The rows format this build writes (txn.rows_format). */
#define TXNLOG_ROWS_FORMAT 1

struct txnlog_op {
	enum txnlog_kind kind;
	char *path;                  /* PUT, REPLACE, RETIRE of a package file: its OS/2 path */
	char *host;                  /* the target, relative to the volume's root */
	char *kept;                  /* the kept or generation copy, or NULL */
	char old_sha[WD_SHA256_HEX]; /* of the kept copy ("" without one) */
	char new_sha[WD_SHA256_HEX]; /* PUT: the new bytes; DELETE/RESTORE: the installed file */
	char *package;               /* PUT of a package file: the package that owns it */
	long long size;              /* PUT: the new file's size */
	bool config;                 /* PUT of CONFIG.SYS or PROTOCOL.INI */
};

struct txnlog_pkg {
	const char *name, *version, *kind, *entitlement, *summary;
	int released;                /* a day number */
	const char *manifest;        /* the manifest's text, as signed */
	size_t manifest_len;
};

struct txnlog_intent {
	bool install;                /* else remove */
	const char *name, *version;  /* what the history calls it */
	const struct txnlog_op *ops;
	size_t nops;
	const struct txnlog_pkg *pkgs;
	size_t npkgs;
	long gen_n;                  /* the generation the commit records; 0: none */
	const char *gen_command, *gen_summary;
	char *const *removes;        /* installed packages it replaces: removed by the commit */
	size_t nremoves;
};

/* Inside a transaction the caller began: records the intent; *id is its row. */
int txnlog_insert(struct db *db, const struct txnlog_intent *in, long long *id,
		  struct wd_err *err);
/* Inside a transaction the caller began: records intent id as done (the
 * package, file, history and generation rows made from its rows) and
 * forgets it. */
int txnlog_done(struct db *db, long long id, struct wd_err *err);
/* Inside a transaction the caller began: records the undoing of install id
 * in the history and forgets it. */
int txnlog_undone(struct db *db, long long id, const char *name, struct wd_err *err);
/* Inside a transaction the caller began: records in the history that
 * transaction id (an install or a removal of name) was abandoned, neither
 * finished nor undone, and forgets it. */
int txnlog_abandoned(struct db *db, long long id, bool install, const char *name,
		     struct wd_err *err);
/* Forgets intent id (its own statement). */
int txnlog_forget(struct db *db, long long id, struct wd_err *err);

struct txnlog_pending {
	long long id;
	bool install;
	char *name;
	struct txnlog_op *ops;
	size_t nops;
};

/* Is an interrupted transaction recorded? A database that is not open has none. */
int txnlog_any(struct db *db, bool *any, struct wd_err *err);
/* The oldest interrupted transaction, every row checked (see above);
 * *found false when there is none. */
int txnlog_load(struct db *db, struct txnlog_pending *p, bool *found, struct wd_err *err);
void txnlog_pending_free(struct txnlog_pending *p);
/* The names of the packages transaction id installs (txn_package, in order;
 * none for a removal): *names and each name malloc'd. */
int txnlog_packages(struct db *db, long long id, char ***names, size_t *n, struct wd_err *err);

/* Before the schema is upgraded from version (PRAGMA user_version): refuses
 * a database of schema 3 to 6 with a pending transaction, naming it and
 * saying to finish it with the warpdrv that began it. Writes nothing. */
int txnlog_before_upgrade(struct db *db, int version, struct wd_err *err);

/* Whether s (n bytes) is a volume-relative path as the rule above says;
 * *why tells what is wrong when it is not. */
bool txnlog_path_ok(const char *s, size_t n, const char **why);

#endif
