/* The schema, one step per version: step N takes user_version N-1 to N.
 * Never edit a step that has shipped; add the next one. */
#include "catalog/schema.h"

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
	NULL,
};
