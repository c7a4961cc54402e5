/* The schema, one step per version: step N takes user_version N-1 to N.
 * Never edit a step that has shipped; add the next one. */
#include "catalog/schema.h"

#include <stddef.h>

const char *const db_schema_steps[] = {
	/* 1: single facts */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
	NULL,
};
