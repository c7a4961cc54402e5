/* The schema, one step per version: step N takes user_version N-1 to N.
 * Never edit a step that has shipped; add the next one. */
#include "state/schema.h"

#include <stddef.h>

const char *const db_schema_steps[] = {
	/* 1: single facts */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
	/* 2: subscription keys (license/activation.h). subscription_keys holds
	 * every key activated, as canonical text (the credential: never printed
	 * whole); the current one has ended NULL, at most one. revoked_keys
	 * holds the key ids the signed repository index revokes: the index
	 * update replaces the rows of its source. */
	"CREATE TABLE subscription_keys ("
	" seq INTEGER PRIMARY KEY,"
	" key_id TEXT NOT NULL,"
	" key_text TEXT NOT NULL,"
	" activated TEXT NOT NULL,"
	" ended TEXT,"
	" ended_why TEXT CHECK (ended_why IN ('replaced', 'deactivated')));"
	"CREATE UNIQUE INDEX subscription_keys_current ON subscription_keys ((ended IS NULL))"
	" WHERE ended IS NULL;"
	"CREATE TABLE revoked_keys ("
	" key_id TEXT PRIMARY KEY COLLATE NOCASE,"
	" source TEXT NOT NULL);",
	/* 3: installed packages and files, their history, the transaction intent
	 * (txn, txn_op: see txn/txn.h); revoked key ids live in step 2's
	 * revoked_keys */
	"CREATE TABLE package (name TEXT PRIMARY KEY, version TEXT NOT NULL,"
	" released TEXT NOT NULL, kind TEXT NOT NULL, entitlement TEXT,"
	" summary TEXT NOT NULL, manifest TEXT NOT NULL, installed TEXT NOT NULL);"
	"CREATE TABLE file (path TEXT PRIMARY KEY, package TEXT NOT NULL"
	" REFERENCES package (name) ON DELETE CASCADE, host TEXT NOT NULL,"
	" size INTEGER NOT NULL, sha256 TEXT NOT NULL, kept TEXT, kept_sha256 TEXT);"
	"CREATE INDEX file_package ON file (package);"
	"CREATE TABLE history (id INTEGER PRIMARY KEY, at TEXT NOT NULL,"
	" action TEXT NOT NULL, package TEXT NOT NULL, version TEXT NOT NULL);"
	"CREATE TABLE txn (id INTEGER PRIMARY KEY, action TEXT NOT NULL,"
	" package TEXT NOT NULL, started TEXT NOT NULL);"
	"CREATE TABLE txn_op (txn INTEGER NOT NULL REFERENCES txn (id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, kind TEXT NOT NULL, host TEXT NOT NULL, temp TEXT,"
	" kept TEXT, old_sha256 TEXT, new_sha256 TEXT, PRIMARY KEY (txn, seq));",
	/* 4: configuration generations (installer/generation.h): each applied
	 * change of CONFIG.SYS and PROTOCOL.INI, whose copies from before it are
	 * under var/lib/warpdrv/generations/N/ */
	"CREATE TABLE generation (n INTEGER PRIMARY KEY, at TEXT NOT NULL,"
	" command TEXT NOT NULL, summary TEXT NOT NULL);",
	/* 5: remote repositories (catalog/repolist.h): name, URL in the order
	 * added, whether it is a subscription repository (sent the activated
	 * key), and its mirrors in the order tried. The fetched catalog itself
	 * is a cache file (catalog/store.h); the serials seen stay in meta
	 * ("index-serial SIGNER URL") so that deleting the cache cannot open
	 * the door to an older index. */
	"CREATE TABLE repository (name TEXT PRIMARY KEY, url TEXT NOT NULL,"
	" subscription INTEGER NOT NULL DEFAULT 0 CHECK (subscription IN (0, 1)),"
	" added TEXT NOT NULL, seq INTEGER NOT NULL UNIQUE);"
	"CREATE TABLE repository_mirror (repository TEXT NOT NULL"
	" REFERENCES repository (name) ON DELETE CASCADE, seq INTEGER NOT NULL,"
	" url TEXT NOT NULL, PRIMARY KEY (repository, seq));",
	/* 6: what an install's commit records, kept with its intent
	 * (txn/txn.h), so that recovery can finish it as well as undo it */
	"ALTER TABLE txn ADD COLUMN done_sql TEXT;",
	/* 7: the commit made from recorded rows, never from SQL text kept in
	 * the database (state/txnlog.h): txn says how the history names the
	 * transaction and which generation it adds, txn_op which package owns
	 * each new file, txn_package the packages it installs. done_sql stays
	 * for the pending transactions of older builds, which are refused. */
	"ALTER TABLE txn ADD COLUMN rows_format INTEGER;"
	"ALTER TABLE txn ADD COLUMN version TEXT;"
	"ALTER TABLE txn ADD COLUMN gen_n INTEGER;"
	"ALTER TABLE txn ADD COLUMN gen_command TEXT;"
	"ALTER TABLE txn ADD COLUMN gen_summary TEXT;"
	"ALTER TABLE txn_op ADD COLUMN path TEXT;"
	"ALTER TABLE txn_op ADD COLUMN package TEXT;"
	"ALTER TABLE txn_op ADD COLUMN size INTEGER;"
	"ALTER TABLE txn_op ADD COLUMN config INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE txn_package (txn INTEGER NOT NULL REFERENCES txn (id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL,"
	" released TEXT NOT NULL, kind TEXT NOT NULL, entitlement TEXT,"
	" summary TEXT NOT NULL, manifest TEXT NOT NULL, PRIMARY KEY (txn, seq));",
	/* 8: held packages (state/holds.h): `upgrade` passes them by */
	"CREATE TABLE hold (name TEXT PRIMARY KEY, at TEXT NOT NULL);",
	/* 9: the installed packages an install takes the place of (`replaces`),
	 * removed by the same commit (state/txnlog.h) */
	"CREATE TABLE txn_remove (txn INTEGER NOT NULL REFERENCES txn (id) ON DELETE CASCADE,"
	" name TEXT NOT NULL, PRIMARY KEY (txn, name));",
	/* 10: the packages each generation's transaction installed
	 * (state/lifecycle.h), recorded by the commit that records the
	 * generation: `rollback --packages` removes them with the change */
	"CREATE TABLE generation_package (n INTEGER NOT NULL, name TEXT NOT NULL,"
	" version TEXT NOT NULL, action TEXT NOT NULL"
	" CHECK (action IN ('install', 'upgrade', 'reinstall')), PRIMARY KEY (n, name));",
	/* 11: what the history tells of a row beyond its package and version
	 * (state/history.h): the version an upgrade replaced, and for an undone
	 * or abandoned transaction the command that began it and the packages
	 * it held; NULL in the rows older warpdrv wrote */
	"ALTER TABLE history ADD COLUMN from_version TEXT;"
	"ALTER TABLE history ADD COLUMN command TEXT;"
	"ALTER TABLE history ADD COLUMN packages TEXT;",
	NULL,
};
