/* state/: the volume's database. The intent rows and the commit made from
 * them, the checks recovery applies to rows read back, installed files,
 * history, generations and repositories, on a database in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/hoststate.h"
#include "catalog/repo.h"
#include "common/buf.h"
#include "state/db.h"
#include "state/generations.h"
#include "state/history.h"
#include "state/installed.h"
#include "state/repos.h"
#include "state/subscriptions.h"
#include "state/txnlog.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static int open_db(void **state)
{
	struct db *db = malloc(sizeof *db);
	struct wd_err e;
	assert_int_equal(db_open_memory(db, &e), 0);
	*state = db;
	return 0;
}

static int close_db(void **state)
{
	db_close(*state);
	free(*state);
	return 0;
}

static void set_op(struct txnlog_op *o, enum txnlog_kind kind, const char *path,
		   const char *host, const char *kept, const char *package)
{
	memset(o, 0, sizeof *o);
	o->kind = kind;
	o->path = (char *)path;
	o->host = (char *)host;
	o->kept = (char *)kept;
	o->package = (char *)package;
	o->size = 12;
	if (kept)
		memcpy(o->old_sha, SHA_A, WD_SHA256_HEX);
	memcpy(o->new_sha, SHA_B, WD_SHA256_HEX);
}

/* An install of one package with a folder, a new file, a replaced file and a
 * configuration file of generation 4, recorded in its own commit. */
static long long record_setup(struct db *db)
{
	struct txnlog_op ops[4];
	set_op(&ops[0], TXNLOG_MKDIR, NULL, "OS2/BOOT", NULL, NULL);
	set_op(&ops[1], TXNLOG_PUT, "\\os2\\boot\\new.add", "OS2/BOOT/NEW.ADD", NULL, "testpkg");
	set_op(&ops[2], TXNLOG_PUT, "\\OS2\\KEEP.SYS", "OS2/KEEP.SYS",
	       "var/lib/warpdrv/kept/" SHA_A, "testpkg");
	set_op(&ops[3], TXNLOG_PUT, "CONFIG.SYS", "CONFIG.SYS",
	       "var/lib/warpdrv/generations/4/CONFIG.SYS", NULL);
	ops[3].config = true;
	struct txnlog_pkg pkg = {.name = "testpkg", .version = "1.0", .kind = "psd",
				 .summary = "A package", .released = 19723,
				 .manifest = "format 1\n", .manifest_len = 9};
	struct txnlog_intent in = {.install = true, .name = "setup", .version = "-", .ops = ops,
				   .nops = 4, .pkgs = &pkg, .npkgs = 1, .gen_n = 4,
				   .gen_command = "setup", .gen_summary = "E1000 -> MMLEM"};
	struct wd_err e;
	long long id;
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_insert(db, &in, &id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	return id;
}

static void test_an_intent_reads_back_and_commits_as_its_rows(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	long long id = record_setup(db);
	struct txnlog_pending p;
	bool found;
	assert_int_equal(txnlog_load(db, &p, &found, &e), 0);
	assert_true(found);
	assert_true(p.install);
	assert_int_equal(p.id, id);
	assert_string_equal(p.name, "setup");
	assert_int_equal(p.nops, 4);
	assert_int_equal(p.ops[0].kind, TXNLOG_MKDIR);
	assert_string_equal(p.ops[2].host, "OS2/KEEP.SYS");
	assert_string_equal(p.ops[2].kept, "var/lib/warpdrv/kept/" SHA_A);
	assert_string_equal(p.ops[2].old_sha, SHA_A);
	assert_string_equal(p.ops[1].new_sha, SHA_B);
	txnlog_pending_free(&p);

	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_done(db, id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	bool any;
	assert_int_equal(txnlog_any(db, &any, &e), 0);
	assert_false(any);
	char *v;
	assert_int_equal(installed_version(db, "testpkg", &v, &e), 0);
	assert_string_equal(v, "1.0");
	free(v);
	/* the file rows: the package's files, upper case; not the configuration file */
	struct installed_file *f;
	size_t n;
	assert_int_equal(installed_files(db, NULL, &f, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].path, "\\OS2\\BOOT\\NEW.ADD");
	assert_null(f[0].kept);
	assert_string_equal(f[1].kept, "var/lib/warpdrv/kept/" SHA_A);
	assert_string_equal(f[1].kept_sha, SHA_A);
	assert_int_equal(f[1].size, 12);
	installed_files_free(f, n);
	char *owner;
	assert_int_equal(installed_owner(db, "\\os2\\keep.sys", &owner, &e), 0);
	assert_string_equal(owner, "testpkg");
	free(owner);

	struct generation *g;
	assert_int_equal(generation_list(db, &g, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].n, 4);
	assert_string_equal(g[0].summary, "E1000 -> MMLEM");
	generation_list_free(g, n);
	long next;
	assert_int_equal(generation_next(db, &next, &e), 0);
	assert_int_equal(next, 5);
	struct history_row *h;
	assert_int_equal(history_list(db, &h, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].action, "install");
	assert_string_equal(h[0].package, "testpkg");
	history_list_free(h, n);
}

static void test_a_removal_commits_and_an_undone_install_is_history(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	long long id = record_setup(db);
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_done(db, id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	/* testpkg 1.1 over it: an upgrade, from 1.0 */
	struct txnlog_pkg up = {"testpkg", "1.1", "psd", NULL, "A package", 19723, "format 1\n", 9};
	struct txnlog_intent in = {true, "testpkg", "1.1", NULL, 0, &up, 1, 0, NULL, NULL, NULL, 0};
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_insert(db, &in, &id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_done(db, id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);

	struct txnlog_op op;
	set_op(&op, TXNLOG_DELETE, "\\OS2\\BOOT\\NEW.ADD", "OS2/BOOT/NEW.ADD", NULL, NULL);
	struct txnlog_intent rm = {.install = false, .name = "testpkg", .version = "1.1", .ops = &op,
				   .nops = 1};
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_insert(db, &rm, &id, &e), 0);
	assert_int_equal(txnlog_done(db, id, &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	char *v;
	assert_int_equal(installed_version(db, "testpkg", &v, &e), 0);
	assert_null(v);

	id = record_setup(db);
	assert_int_equal(db_begin(db, &e), 0);
	assert_int_equal(txnlog_undone(db, id, "setup", &e), 0);
	assert_int_equal(db_commit(db, &e), 0);
	struct history_row *h;
	size_t n;
	assert_int_equal(history_list(db, &h, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_string_equal(h[0].action, "install");
	assert_null(h[0].from_version);
	assert_string_equal(h[1].action, "upgrade");
	assert_string_equal(h[1].from_version, "1.0");
	assert_string_equal(h[1].version, "1.1");
	assert_string_equal(h[2].action, "remove");
	assert_string_equal(h[2].version, "1.1");
	/* the undone transaction: its command and its packages */
	assert_string_equal(h[3].action, "undo");
	assert_string_equal(h[3].package, "setup");
	assert_string_equal(h[3].command, "setup");
	assert_string_equal(h[3].packages, "testpkg");
	assert_null(h[3].from_version);
	history_list_free(h, n);
}

/* A crafted op row; the message names the database, the transaction, the row. */
static void refused(struct db *db, const char *values, const char *msg)
{
	struct wd_err e;
	assert_int_equal(db_exec(db, "DELETE FROM txn; INSERT INTO txn (id, action, package, "
				     "started, rows_format) VALUES (9, 'install', 'x', 'now', 1)", &e), 0);
	char *sql = wd_xasprintf("INSERT INTO txn_op (txn, seq, kind, host, kept, old_sha256, "
				 "new_sha256) VALUES (9, 3, %s)", values);
	assert_int_equal(db_exec(db, sql, &e), 0);
	free(sql);
	struct txnlog_pending p;
	bool found, pending;
	assert_int_equal(txnlog_load(db, &p, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, ":memory:: interrupted transaction 9, operation 3: "));
	if (!strstr(e.msg, msg))
		fail_msg("message '%s' lacks '%s'", e.msg, msg);
	assert_int_equal(txnlog_any(db, &pending, &e), 0);
	assert_true(pending);
}

static void test_recovery_refuses_rows_that_reach_outside(void **state)
{
	struct db *db = *state;
	refused(db, "'put', '../../../outside/victim', NULL, NULL, '" SHA_B "'",
		"host '../../../outside/victim' is not a path below the volume's root (it has a "
		"'.' or '..' component)");
	refused(db, "'put', '/etc/passwd', NULL, NULL, '" SHA_B "'", "(it is absolute)");
	refused(db, "'put', 'OS2//X', NULL, NULL, '" SHA_B "'", "(it has an empty component)");
	refused(db, "'put', 'OS2\\X', NULL, NULL, '" SHA_B "'", "(it holds a backslash)");
	refused(db, "'put', CAST(X'4f5300' AS TEXT), NULL, NULL, '" SHA_B "'",
		"(it holds a NUL byte)");
	refused(db, "'put', X'4f53', NULL, NULL, '" SHA_B "'", "host is not text");
	refused(db, "'put', 'OS2/X', '../kept', '" SHA_A "', '" SHA_B "'", "kept '../kept'");
	refused(db, "'put', 'OS2/X', 'OS2/Y', '" SHA_A "', '" SHA_B "'",
		"kept 'OS2/Y' is not in the kept or generations folder");
	refused(db, "'put', 'var/lib/WARPDRV/lock', NULL, NULL, '" SHA_B "'",
		"host 'var/lib/WARPDRV/lock' lies in warpdrv's own state folder");
	refused(db, "'rmtree', 'OS2', NULL, NULL, '" SHA_B "'",
		"kind 'rmtree' is not an operation warpdrv records");
	refused(db, "'put', 'OS2/X', NULL, NULL, 'not a hash'",
		"new_sha256 'not a hash' is not a SHA-256 in hex");
	refused(db, "'restore', 'OS2/X', NULL, NULL, '" SHA_B "'", "old_sha256");
	/* a long value is cut short, and shown printable */
	refused(db, "'put', '/' || hex(randomblob(200)), NULL, NULL, '" SHA_B "'", "...'");
}

static void test_recovery_refuses_stored_sql_and_older_rows(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	struct txnlog_pending p;
	bool found;
	assert_int_equal(db_exec(db, "INSERT INTO txn (id, action, package, started, done_sql) "
				     "VALUES (5, 'install', 'x', 'now', 'ATTACH DATABASE ''/tmp/x.db'' "
				     "AS x')", &e), 0);
	assert_int_equal(txnlog_load(db, &p, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, ":memory:: interrupted transaction 5: done_sql holds SQL "
				      "text, which this warpdrv never runs"));
	assert_int_equal(db_exec(db, "UPDATE txn SET done_sql = NULL", &e), 0);
	assert_int_equal(txnlog_load(db, &p, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "rows_format is not the format this warpdrv writes"));
	assert_int_equal(db_exec(db, "UPDATE txn SET rows_format = 1, action = 'chmod'", &e), 0);
	assert_int_equal(txnlog_load(db, &p, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "action 'chmod' is neither install nor remove"));
	/* nothing pending: nothing found, no error */
	assert_int_equal(db_exec(db, "DELETE FROM txn", &e), 0);
	assert_int_equal(txnlog_load(db, &p, &found, &e), 0);
	assert_false(found);
}

static void test_installed_files_outside_the_root_are_refused(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	assert_int_equal(db_exec(db, "INSERT INTO package VALUES ('p', '1', '2024-01-01', 'psd', "
				     "NULL, 's', 'm', 'now'); INSERT INTO file VALUES ('\\X', 'p', "
				     "'../x', 1, '" SHA_B "', NULL, NULL)", &e), 0);
	struct installed_file *f;
	size_t n;
	assert_int_equal(installed_files(db, "p", &f, &n, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, ":memory:: file row \\X: host '../x' is not a path below"));
	assert_null(f);
	assert_int_equal(n, 0);
}

static void test_repositories_and_revoked_keys(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	char *mirrors[] = {"https://m1/", "https://m2/"};
	struct repo_conf c = {.name = "main", .url = "https://r/", .mirrors = mirrors, .nmirrors = 2,
			      .subscription = true};
	assert_int_equal(repos_insert(db, &c, "2026-01-01", &e), 0);
	struct repo_list l;
	assert_int_equal(repos_read(db, &l, &e), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].subscription);
	assert_int_equal(l.v[0].nmirrors, 2);
	assert_string_equal(l.v[0].mirrors[1], "https://m2/");
	repos_free(&l);
	bool found;
	assert_int_equal(repos_delete(db, "main", &found, &e), 0);
	assert_true(found);
	assert_int_equal(repos_delete(db, "main", &found, &e), 0);
	assert_false(found);

	assert_int_equal(revoked_keys_add(db, "K2", "u", &e), 0);
	assert_int_equal(revoked_keys_add(db, "K1", "u", &e), 0);
	assert_int_equal(revoked_keys_add(db, "K1", "v", &e), 0);
	char **ids = NULL;
	size_t n = 0;
	assert_int_equal(revoked_keys_list(db, &ids, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], "K1");
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* The one rollback guard: the serial the host remembers and the one held
 * both count; a serial the volume's database names does not. */
static void test_one_serial_guard(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	char host[] = "/tmp/wd-host-XXXXXX";
	assert_non_null(mkdtemp(host));
	/* planted on the volume: ignored */
	assert_int_equal(db_meta_set(db, "index-serial S https://r/", "999", &e), 0);
	assert_int_equal(host_seen_raise(host, "S", "https://r/", 6, 100, &e), 0);
	assert_int_equal(host_seen_raise(host, "S", "https://r/", 4, 50, &e), 0); /* never lowered */
	struct host_seen seen;
	assert_int_equal(host_seen_get(host, "S", "https://r/", &seen, &e), 0);
	assert_true(seen.known);
	assert_int_equal(seen.serial, 6);
	assert_int_equal(seen.issued, 100);
	struct repo_index idx = {.serial = 5, .signer = "S"}, held = {.serial = 9, .signer = "S"};
	assert_int_equal(repo_serial_guard(host, "https://r/", &idx, NULL, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "https://r/: index serial 5 is older than serial 6 already seen"));
	idx.serial = 7;
	assert_int_equal(repo_serial_guard(host, "https://r/", &idx, NULL, &e), 0);
	assert_int_equal(repo_serial_guard(host, "https://r/", &idx, &held, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "older than serial 9"));
	snprintf(held.signer, sizeof held.signer, "another");
	assert_int_equal(repo_serial_guard(host, "https://r/", &idx, &held, &e), 0);
	assert_int_equal(repo_serial_guard(host, "https://other/", &(struct repo_index){.serial = 1,
					   .signer = "S"}, NULL, &e), 0);
	/* no host memory at all: only what is held */
	assert_int_equal(repo_serial_guard(NULL, "https://r/", &(struct repo_index){.serial = 1,
					   .signer = "S"}, NULL, &e), 0);
	int newest;
	assert_int_equal(host_seen_raise(host, "T", "https://t/", 1, 300, &e), 0);
	assert_int_equal(host_seen_newest(host, &newest, &e), 0);
	assert_int_equal(newest, 300);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", host);
	assert_int_equal(system(cmd), 0);
}

/* db_prepare_kept: one statement per query and handle, returned reset with
 * its bindings cleared, seeing rows written after its last use; past
 * DB_KEPT queries a fresh one the caller finalizes. */
static void test_a_kept_statement_is_prepared_once(void **state)
{
	struct db *db = *state;
	struct wd_err e;
	static const char q[] = "SELECT value FROM meta WHERE key = ?";
	sqlite3_stmt *a, *b;
	bool fresh = true;
	assert_int_equal(db_prepare_kept(db, q, &a, &fresh, &e), 0);
	assert_false(fresh);
	sqlite3_bind_text(a, 1, "k", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(a), SQLITE_DONE);
	assert_int_equal(db_meta_set(db, "k", "v1", &e), 0);
	assert_int_equal(db_prepare_kept(db, q, &b, &fresh, &e), 0);
	assert_ptr_equal(a, b);
	assert_false(fresh);
	assert_int_equal(sqlite3_step(b), SQLITE_DONE); /* no key bound: no row */
	assert_int_equal(db_prepare_kept(db, q, &b, &fresh, &e), 0);
	sqlite3_bind_text(b, 1, "k", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(b), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(b, 0), "v1");
	sqlite3_reset(b);
	static const char more[DB_KEPT][48] = {"SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4"};
	sqlite3_stmt *m[DB_KEPT];
	for (int i = 0; i < DB_KEPT; i++) {
		assert_int_equal(db_prepare_kept(db, more[i], &m[i], &fresh, &e), 0);
		assert_int_equal(fresh, i == DB_KEPT - 1); /* q holds the first place */
		assert_int_equal(sqlite3_step(m[i]), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(m[i], 0), i + 1);
		sqlite3_reset(m[i]);
	}
	sqlite3_finalize(m[DB_KEPT - 1]);
	/* a version read through the kept query follows the row */
	assert_int_equal(db_exec(db, "INSERT INTO package (name, version, released, kind, summary, "
				 "manifest, installed) VALUES ('p', '1.0', '2024-01-01', 'psd', 's', "
				 "'format 1', '2024-01-01')", &e), 0);
	char *v = NULL;
	assert_int_equal(installed_version(db, "p", &v, &e), 0);
	assert_string_equal(v, "1.0");
	free(v);
	assert_int_equal(db_exec(db, "UPDATE package SET version = '1.1' WHERE name = 'p'", &e), 0);
	assert_int_equal(installed_version(db, "p", &v, &e), 0);
	assert_string_equal(v, "1.1");
	free(v);
	assert_true(sqlite3_get_autocommit(db->h)); /* no read left open */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_an_intent_reads_back_and_commits_as_its_rows,
						open_db, close_db),
		cmocka_unit_test_setup_teardown(test_a_removal_commits_and_an_undone_install_is_history,
						open_db, close_db),
		cmocka_unit_test_setup_teardown(test_recovery_refuses_rows_that_reach_outside, open_db,
						close_db),
		cmocka_unit_test_setup_teardown(test_recovery_refuses_stored_sql_and_older_rows,
						open_db, close_db),
		cmocka_unit_test_setup_teardown(test_installed_files_outside_the_root_are_refused,
						open_db, close_db),
		cmocka_unit_test_setup_teardown(test_repositories_and_revoked_keys, open_db, close_db),
		cmocka_unit_test_setup_teardown(test_one_serial_guard, open_db, close_db),
		cmocka_unit_test_setup_teardown(test_a_kept_statement_is_prepared_once, open_db,
						close_db),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
