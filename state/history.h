/* The history rows of the volume's database (table history): each install,
 * upgrade, removal, and undone or abandoned transaction, in order. */
#ifndef WD_HISTORY_H
#define WD_HISTORY_H

#include <stddef.h>

#include "state/db.h"

/* at: UTC as SQLite's datetime() writes it ("2026-12-01 18:00:48").
 * action: install, upgrade, remove, undo, abandon (rows of older builds:
 * "undo install", "abandon install", "abandon remove"). version: "-" when
 * the row has none. from_version: the version an upgrade replaced; command
 * and packages ("mmlem, acpi-psd"): what an undone or abandoned transaction
 * was. Each NULL when the row does not have it (rows older warpdrv wrote). */
struct history_row {
	long long id;
	char *at, *action, *package, *version;
	char *from_version, *command, *packages;
};

/* Every row, oldest first; a database that is not open has none. */
int history_list(struct db *db, struct history_row **out, size_t *n, struct wd_err *err);
void history_list_free(struct history_row *h, size_t n);

#endif
