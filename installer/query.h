/* What the commands that only read show, read through the session: the
 * owner of a file, the history and generations, the installed packages and
 * whether each is held, a package for info, the subscription's state. The
 * front end renders what these give; the state database stays below it. */
#ifndef WD_QUERY_H
#define WD_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/package.h"
#include "license/activation.h"
#include "session/session.h"
#include "state/generations.h"
#include "state/history.h"
#include "state/installed.h"

/* owns FILE: FILE an OS/2 path (with or without a drive) or a host path
 * below the volume's root. */
struct pkg_owner {
	char *path;    /* the OS/2 path the file rows hold ("\IBMCOM\MACS\X.OS2") */
	char *package; /* the installed package that put it there */
	char *version; /* its installed version */
};
int query_owner(struct session *s, const char *file, struct pkg_owner *o, struct wd_err *err);
void pkg_owner_free(struct pkg_owner *o);

/* The volume's history rows, oldest first (read only). opened: the
 * database was read (false: the volume or the database failed to open,
 * and nothing was read); have: the volume has a database. */
struct history_view {
	bool opened, have;
	struct history_row *rows;
	size_t n;
};
int query_history(struct session *s, struct history_view *hv, struct wd_err *err);
void history_view_free(struct history_view *hv);
/* The configuration generations of the database query_history read. */
int query_generations(struct session *s, struct generation **g, size_t *n, struct wd_err *err);

/* The installed packages (read only, the boot drive resolved), each with
 * whether it is held; opened as in struct history_view. */
struct installed_view {
	bool opened;
	const char *root; /* the volume's (the session's) */
	struct installed_pkg *p;
	bool *held;
	size_t n;
};
int query_installed(struct session *s, struct installed_view *iv, struct wd_err *err);
void installed_view_free(struct installed_view *iv);
/* The installed version of name in the database the session has open
 * (malloc'd), with whether it is held; NULL when it is not installed or no
 * database is open. Opens nothing. */
char *query_installed_version(struct session *s, const char *name, bool *held);

/* info's package: a .wdp file or path, NAME=VERSION from the repositories,
 * or a name at the version install would take under ec (NULL: no
 * subscription); the session's keys and catalog must be open. */
int query_info_package(struct session *s, const char *arg, const struct entitlement_ctx *ec,
		       struct package *p, struct wd_err *err);

/* license: the activated key (read only), its state, and why it is not
 * usable (why.msg empty when it is). */
struct license_status {
	const struct activation *a;
	enum sub_state st;
	struct wd_err why;
};
int query_license(struct session *s, struct license_status *ls, struct wd_err *err);

#endif
