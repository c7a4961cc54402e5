/* The rows recovery reads back from a volume's database (state/txnlog.h):
 * the input becomes one pending transaction (its action, then five fields a
 * row: kind, host, kept, old_sha256, new_sha256, each line one field; an
 * empty field is SQL NULL, a field starting with byte 1 a blob) in a
 * database in memory. txnlog_load either refuses it, naming the database and
 * the transaction, or returns operations whose every path is confined: not
 * absolute, no empty, '.' or '..' component, no backslash, no NUL, never in
 * the state folder but for a generation's folder, and hashes in hex. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "state/db.h"
#include "state/txnlog.h"

#define MAX_OPS 8

/* An SQL literal for a field: NULL, X'..' (a blob) or CAST(X'..' AS TEXT). */
static void literal(struct wd_buf *b, const uint8_t *p, size_t n)
{
	if (!n) {
		wd_buf_adds(b, "NULL");
		return;
	}
	bool blob = p[0] == 1;
	if (blob) {
		p++;
		n--;
	}
	wd_buf_adds(b, blob ? "X'" : "CAST(X'");
	for (size_t i = 0; i < n; i++)
		wd_buf_addf(b, "%02x", p[i]);
	wd_buf_adds(b, blob ? "'" : "' AS TEXT)");
}

/* The next line of the input (without its '\n'). */
static bool next_field(const uint8_t **p, const uint8_t *end, const uint8_t **f, size_t *n)
{
	if (*p >= end)
		return false;
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	*f = *p;
	*n = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

static void check_path(const char *s)
{
	if (!*s || s[0] == '/' || strchr(s, '\\') || strstr(s, "//"))
		abort();
	size_t n = strlen(s);
	if (s[n - 1] == '/')
		abort();
	for (const char *c = s; c; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (!strncmp(c, "./", 2) || !strcmp(c, ".") || !strncmp(c, "../", 3) || !strcmp(c, ".."))
			abort();
	}
}

static void check_sha(const char *s)
{
	if (strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
		abort();
}

static void check_op(const struct txnlog_op *o)
{
	if (o->kind > TXNLOG_RETIRE)
		abort();
	check_path(o->host);
	if (!strncasecmp(o->host, WD_STATE_DIR, strlen(WD_STATE_DIR)) &&
	    (o->host[strlen(WD_STATE_DIR)] == '/' || !o->host[strlen(WD_STATE_DIR)]) &&
	    (o->kind != TXNLOG_MKDIR ||
	     strncasecmp(o->host, WD_STATE_DIR "/generations", strlen(WD_STATE_DIR "/generations"))))
		abort();
	if (o->kept) {
		check_path(o->kept);
		if (strncasecmp(o->kept, WD_STATE_DIR "/", strlen(WD_STATE_DIR "/")))
			abort();
		check_sha(o->old_sha);
	}
	if (o->kind != TXNLOG_MKDIR)
		check_sha(o->new_sha);
}

static struct db db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wd_err err;
	if (!db.h && db_open_memory(&db, &err))
		abort();
	if (db_exec(&db, "DELETE FROM txn", &err))
		abort();
	const uint8_t *p = data, *end = data + size, *f;
	size_t n;
	struct wd_buf sql = {0};
	wd_buf_adds(&sql, "INSERT INTO txn (id, action, package, started, rows_format) VALUES "
			  "(7, ");
	if (!next_field(&p, end, &f, &n))
		n = 0;
	literal(&sql, f, n);
	wd_buf_addf(&sql, ", 'fuzz', '2026-01-01', %d);", TXNLOG_ROWS_FORMAT);
	for (int op = 0; op < MAX_OPS && p < end; op++) {
		wd_buf_addf(&sql, "INSERT INTO txn_op (txn, seq, kind, host, kept, old_sha256, "
				  "new_sha256) VALUES (7, %d", op);
		for (int k = 0; k < 5; k++) {
			wd_buf_adds(&sql, ", ");
			if (next_field(&p, end, &f, &n))
				literal(&sql, f, n);
			else
				wd_buf_adds(&sql, "NULL");
		}
		wd_buf_adds(&sql, ");");
	}
	/* a row the schema refuses (host NOT NULL) is no input to recovery */
	if (db_exec(&db, wd_buf_cstr(&sql), &err)) {
		wd_buf_free(&sql);
		return 0;
	}
	wd_buf_free(&sql);
	struct txnlog_pending pend;
	bool found;
	int r = txnlog_load(&db, &pend, &found, &err);
	if (r) {
		if (r != -WD_EFAIL || strncmp(err.msg, ":memory:: interrupted transaction 7", 35))
			abort();
		return 0;
	}
	if (!found || (!pend.install && strcmp(pend.name, "fuzz")))
		abort();
	for (size_t i = 0; i < pend.nops; i++)
		check_op(&pend.ops[i]);
	txnlog_pending_free(&pend);
	return 0;
}
