#include "state/holds.h"

int hold_get(struct db *db, const char *name, bool *held, struct wd_err *err)
{
	*held = false;
	if (!db || !db->h)
		return 0;
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT 1 FROM hold WHERE name = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*held = s == SQLITE_ROW;
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read the held packages");
	sqlite3_finalize(st);
	return r;
}

int hold_set(struct db *db, const char *name, bool held, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, held ? "INSERT OR IGNORE INTO hold (name, at) VALUES (?, "
				      "datetime('now'))"
				    : "DELETE FROM hold WHERE name = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, err, "cannot record the hold");
	sqlite3_finalize(st);
	return r;
}
