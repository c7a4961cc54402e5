/* The schema, one step per version: step N takes user_version N-1 to N.
 * Never edit a step that has shipped; add the next one. */
#include "catalog/schema.h"

#include <stddef.h>

const char *const db_schema_steps[] = {
	/* 1: single facts */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
	/* 2: installed packages and files, their history, the transaction intent
	 * (txn, txn_op: see installer/txn.h), revoked subscription key ids */
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
	" kept TEXT, old_sha256 TEXT, new_sha256 TEXT, PRIMARY KEY (txn, seq));"
	"CREATE TABLE revoked_key (keyid TEXT PRIMARY KEY);",
	NULL,
};
