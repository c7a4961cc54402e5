/* The plain-text log on the volume (txn/textlog.h). */
#include "txn/textlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog/version.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/hooks.h"
#include "fs/fs.h"
#include "state/txnlog.h"

/* A stored line or field from the database is hostile data: at most this
 * long, and escaped like any other. */
#define FIELD_MAX 1024

/* Appends s to b as printable ASCII: any other byte (a control, CR, LF, a
 * byte of a multibyte character) as \xNN. Text that is printable ASCII
 * already (a line stored before) comes out the same. */
static void add_ascii(struct wd_buf *b, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			wd_buf_addc(b, (char)c);
		else
			wd_buf_addf(b, "\\x%02X", c);
	}
}

static void add_pkg(struct wd_buf *b, struct db *db, const char *name, const char *version)
{
	char *old = NULL;
	struct wd_err e;
	if (db && txn_installed_version(db, name, &old, &e))
		old = NULL;
	wd_buf_addf(b, "%s%s ", b->len ? ", " : "", name);
	if (old && strcmp(old, version))
		wd_buf_addf(b, "%s -> %s%s", old, version,
			    version_is_downgrade(old, version) ? " (downgrade)" : "");
	else
		wd_buf_adds(b, version);
	free(old);
}

char *textlog_describe(struct db *db, const struct txn_plan *plan, const char *what)
{
	struct wd_buf pk = {0}, out = {0};
	const struct package *one = plan->pkg;
	const struct package *const *pkgs = plan->npkgs ? plan->pkgs : &one;
	size_t n = !plan->install ? 0 : plan->npkgs ? plan->npkgs : plan->pkg ? 1 : 0;
	for (size_t i = 0; i < n; i++)
		add_pkg(&pk, db, pkgs[i]->m.name, pkgs[i]->m.version);
	if (!plan->install)
		wd_buf_addf(&pk, "%s %s", plan->name, plan->version);
	for (size_t i = 0; i < plan->nremoves; i++) {
		bool upgraded = false;
		for (size_t k = 0; k < n; k++)
			upgraded |= !strcmp(pkgs[k]->m.name, plan->removes[i]);
		if (!upgraded)
			wd_buf_addf(&pk, "%s%s %s removed", pk.len ? ", " : "", plan->removes[i],
				    plan->removes_version[i]);
	}
	/* the command: the generation's ("setup", "rollback 1", "configure
	 * nic"), else the verb the run was begun with ("install a b": install) */
	const char *cmd = plan->gen_command;
	size_t cmdlen = cmd ? strlen(cmd) : 0;
	if (!cmd) {
		cmd = what && *what ? what : plan->install ? "install" : "remove";
		cmdlen = strcspn(cmd, " ");
	}
	wd_buf_add(&out, cmd, cmdlen);
	wd_buf_addf(&out, " | %s | ", pk.len ? wd_buf_cstr(&pk) : "-");
	if (plan->gen_n)
		wd_buf_addf(&out, "generation %ld", plan->gen_n);
	else
		wd_buf_adds(&out, "-");
	wd_buf_free(&pk);
	wd_buf_cstr(&out);
	return out.p;
}

char *textlog_line(const char *what, const char *outcome)
{
	time_t now = time(NULL);
	struct tm tm;
	char at[32] = "0000-00-00T00:00:00Z";
	if (gmtime_r(&now, &tm))
		strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
	struct wd_buf b = {0};
	wd_buf_addf(&b, "%s ", at);
	add_ascii(&b, what && *what ? what : "-", FIELD_MAX);
	wd_buf_adds(&b, " | ");
	add_ascii(&b, outcome, FIELD_MAX);
	wd_buf_cstr(&b);
	return b.p;
}

/* The log's host path (its folder made when missing), as spelled on disk. */
static int log_path(const struct volume *v, char **out, struct wd_err *err)
{
	char *dir = NULL;
	bool found;
	int r = volume_resolve(v, "var\\log", &dir, &found, err);
	if (!r && !found)
		r = volume_mkdirs(v, dir, err);
	if (!r) {
		char *name = volume_find_entry(v, dir, "warpdrv.log");
		*out = wd_path_join(dir, name ? name : "warpdrv.log");
		free(name);
	}
	free(dir);
	return r;
}

/* Does text end with line and CR LF? */
static bool ends_with_line(const struct wd_buf *text, const char *line)
{
	size_t n = strlen(line);
	if (text->len < n + 2 || memcmp(text->p + text->len - 2, "\r\n", 2))
		return false;
	const char *at = text->p + text->len - 2 - n;
	return !memcmp(at, line, n) && (at == text->p || at[-1] == '\n');
}

int textlog_append(const struct volume *v, const char *line, struct wd_err *err)
{
	char *path = NULL;
	int r = log_path(v, &path, err);
	if (r)
		return r;
	struct wd_buf old = {0}, out = {0};
	bool whole = true;
	struct wd_err e2;
	struct stat st;
	if (fs_read_tail(&v->fs, path, TEXTLOG_MAX, &old, &whole, &e2)) {
		/* Missing, or not a plain file with one link (a link planted to
		 * a file elsewhere): never read, never written through. Its name
		 * is removed by the folder's handle (the link, not what it
		 * points at) and the log starts afresh. A log of its own that
		 * cannot be read is left as it is. */
		wd_buf_reset(&old);
		whole = true;
		if (fs_lstat(&v->fs, path, &st) < 0)
			r = 0; /* no log yet */
		else if (S_ISDIR(st.st_mode))
			r = wd_err_set(err, WD_EFAIL, "%s: is a folder, not the text log", path);
		else if (S_ISREG(st.st_mode) && st.st_nlink == 1)
			r = wd_err_set(err, WD_EFAIL, "%s", e2.msg);
		else
			r = fs_unlink(&v->fs, path, err);
	}
	if (!r && ends_with_line(&old, line))
		goto out;
	/* keep whole lines of the old log, the oldest dropped, so that the
	 * new one stays within TEXTLOG_MAX */
	size_t need = strlen(line) + 2, from = 0;
	if (!whole) { /* read from the middle of a line: start at the next one */
		const char *nl = memchr(old.p, '\n', old.len);
		from = nl ? (size_t)(nl - old.p) + 1 : old.len;
	}
	while (old.len - from + need > TEXTLOG_MAX && from < old.len) {
		const char *nl = memchr(old.p + from, '\n', old.len - from);
		from = nl ? (size_t)(nl - old.p) + 1 : old.len;
	}
	wd_buf_add(&out, old.p + from, old.len - from);
	if (out.len && out.p[out.len - 1] != '\n') /* a last line cut short */
		wd_buf_adds(&out, "\r\n");
	wd_buf_adds(&out, line);
	wd_buf_adds(&out, "\r\n");
	if (!r)
		r = fs_write_atomic(&v->fs, path, out.p, out.len, 0644, err);
out:
	wd_buf_free(&old);
	wd_buf_free(&out);
	free(path);
	return r;
}

/* The line the database stored last, escaped (it is read back as hostile
 * data), or NULL. */
static char *stored_line(struct db *db)
{
	char *line = NULL;
	struct wd_err e;
	if (db_meta_get(db, TEXTLOG_META_LAST, &line, &e) || !line)
		return NULL;
	struct wd_buf b = {0};
	add_ascii(&b, line, 4 * FIELD_MAX);
	free(line);
	if (!b.len) {
		wd_buf_free(&b);
		return NULL;
	}
	wd_buf_cstr(&b);
	return b.p;
}

void textlog_catch_up(struct txn *t)
{
	char *line = stored_line(&t->db);
	struct wd_err e;
	if (line)
		textlog_append(t->v, line, &e);
	free(line);
}

bool textlog_behind(const struct volume *v, struct db *db)
{
	char *line = stored_line(db), *path = NULL, *dir = NULL;
	bool found = false, whole, behind = line != NULL;
	struct wd_err e;
	if (line && !volume_resolve(v, "var\\log", &dir, &found, &e) && found) {
		char *name = volume_find_entry(v, dir, "warpdrv.log");
		path = wd_path_join(dir, name ? name : "warpdrv.log");
		free(name);
		struct wd_buf old = {0};
		if (!fs_read_tail(&v->fs, path, strlen(line) + 4, &old, &whole, &e))
			behind = !ends_with_line(&old, line);
		wd_buf_free(&old);
	}
	free(dir);
	free(path);
	free(line);
	return behind;
}

void textlog_forget(struct txn *t)
{
	free(t->log_desc);
	free(t->log_line);
	t->log_desc = t->log_line = NULL;
}

void textlog_begin(struct txn *t, const struct txn_plan *plan)
{
	textlog_forget(t);
	t->log_desc = textlog_describe(&t->db, plan, t->what);
	t->log_line = textlog_line(t->log_desc, "done");
}

int textlog_intent(struct txn *t, long long id, struct wd_err *err)
{
	if (!t->log_desc)
		return 0;
	char *v = wd_xasprintf("%lld %s", id, t->log_desc);
	int r = db_meta_set(&t->db, TEXTLOG_META_INTENT, v, err);
	free(v);
	return r;
}

void textlog_outcome(struct txn *t, bool done, bool undone)
{
	struct wd_err e;
	if (t->log_desc && undone) {
		free(t->log_line);
		t->log_line = textlog_line(t->log_desc, "undone");
		db_meta_set(&t->db, TEXTLOG_META_LAST, t->log_line, &e);
	}
	const char *crash = wd_test_hook("WARPDRV_CRASH_AT");
	if (t->log_line && (done || undone) && crash && !strcmp(crash, "log"))
		_exit(TXN_CRASH_EXIT); /* the test of a crash after the commit */
	if (t->log_line && (done || undone))
		textlog_append(t->v, t->log_line, &e);
	textlog_forget(t);
}

void textlog_recovering(struct txn *t, const struct txnlog_pending *p, const char *outcome)
{
	char *stored = NULL, *end = NULL;
	struct wd_err e;
	textlog_forget(t);
	if (!db_meta_get(&t->db, TEXTLOG_META_INTENT, &stored, &e) && stored &&
	    strtoll(stored, &end, 10) == p->id && end != stored && *end == ' ') {
		struct wd_buf b = {0};
		add_ascii(&b, end + 1, FIELD_MAX);
		wd_buf_cstr(&b);
		t->log_desc = b.p;
	} else { /* an intent recorded without it (an older build's) */
		struct wd_buf b = {0};
		wd_buf_adds(&b, p->install ? "install | " : "remove | ");
		add_ascii(&b, p->name ? p->name : "-", FIELD_MAX);
		wd_buf_adds(&b, " | -");
		wd_buf_cstr(&b);
		t->log_desc = b.p;
	}
	free(stored);
	t->log_line = textlog_line(t->log_desc, outcome);
}
