#ifndef WD_SCHEMA_H
#define WD_SCHEMA_H

/* NULL-terminated; element i is the SQL of schema version i + 1. */
extern const char *const db_schema_steps[];

#endif
