#include "catalog/repo.h"

#include "license/activation.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hash.h"

struct sink {
	struct wd_buf *out;
	size_t max;
	bool over;
};

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t len = size * n;
	if (s->out->len + len > s->max) {
		s->over = true;
		return 0;
	}
	wd_buf_add(s->out, p, len);
	return len;
}

int repo_fetch(const char *url, size_t max, struct wd_buf *out, struct wd_err *err)
{
	static bool inited;
	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = true;
	}
	wd_buf_reset(out);
	CURL *h = curl_easy_init();
	if (!h)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", url);
	struct sink s = {out, max, false};
	char ebuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURLcode c = curl_easy_perform(h);
	curl_easy_cleanup(h);
	if (s.over)
		return wd_err_set(err, WD_ETRUST, "%s: larger than %zu bytes", url, max);
	if (c != CURLE_OK)
		return wd_err_set(err, WD_EFAIL, "%s: cannot fetch: %s", url,
				  *ebuf ? ebuf : curl_easy_strerror(c));
	wd_buf_reserve(out, 1);
	out->p[out->len] = '\0';
	return 0;
}

char *repo_url(const char *arg)
{
	if (strstr(arg, "://"))
		return wd_xstrdup(arg);
	struct wd_buf b = {0};
	wd_buf_adds(&b, "file://");
	char *abs = NULL;
	if (arg[0] != '/') {
		char cwd[4096];
		abs = wd_xasprintf("%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", arg);
	}
	for (const char *p = abs ? abs : arg; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~", c))
			wd_buf_addc(&b, (char)c);
		else
			wd_buf_addf(&b, "%%%02X", c);
	}
	free(abs);
	return (char *)wd_buf_cstr(&b);
}

static char *join_url(const char *base, const char *name)
{
	size_t n = strlen(base);
	return wd_xasprintf("%s%s%s", base, n && base[n - 1] == '/' ? "" : "/", name);
}

int catalog_load(struct catalog *c, const char *const *urls, size_t n, const struct keyring *kr,
		 int today, struct wd_err *err)
{
	memset(c, 0, sizeof *c);
	c->repos = wd_xcalloc(n ? n : 1, sizeof *c->repos);
	struct wd_buf b = {0};
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		char *u = join_url(urls[i], INDEX_NAME);
		r = repo_fetch(u, INDEX_MAX_BYTES, &b, err);
		if (!r)
			r = index_read(b.p, b.len, kr, today, u, &c->repos[i].idx, err);
		free(u);
		if (!r)
			c->repos[c->n++].url = wd_xstrdup(urls[i]);
	}
	wd_buf_free(&b);
	if (r)
		catalog_free(c);
	return r;
}

void catalog_free(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->repos[i].url);
		index_free(&c->repos[i].idx);
	}
	free(c->repos);
	memset(c, 0, sizeof *c);
}

const struct index_entry *catalog_find(const struct catalog *c, const char *name,
				       const struct repo **from)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct index_entry *e = index_find(&c->repos[i].idx, name);
		if (e) {
			if (from)
				*from = &c->repos[i];
			return e;
		}
	}
	return NULL;
}

int catalog_fetch(const struct repo *from, const struct index_entry *e, const struct keyring *kr,
		  struct package *p, struct wd_err *err)
{
	char *u = join_url(from->url, e->file);
	struct wd_buf b = {0};
	/* one byte over the index's size, so that a longer file is named as such */
	int r = repo_fetch(u, e->size < PACKAGE_MAX_BYTES ? (size_t)e->size + 1 : PACKAGE_MAX_BYTES,
			   &b, err);
	char hex[WD_SHA256_HEX];
	if (!r && b.len != e->size)
		r = wd_err_set(err, WD_ETRUST, "%s: %zu bytes; the index says %llu", u, b.len,
			       (unsigned long long)e->size);
	if (!r) {
		wd_sha256_hex(b.p, b.len, hex);
		if (strcmp(hex, e->sha256))
			r = wd_err_set(err, WD_ETRUST, "%s: does not match the SHA-256 in the index "
				       "(damaged or altered)", u);
	}
	if (!r)
		r = package_read(b.p, b.len, kr, e->file, p, err);
	if (!r && (strcmp(p->m.name, e->name) || strcmp(p->m.version, e->version))) {
		r = wd_err_set(err, WD_ETRUST, "%s: holds %s %s; the index says %s %s", u,
			       p->m.name, p->m.version, e->name, e->version);
		package_free(p);
	}
	wd_buf_free(&b);
	free(u);
	return r;
}

bool catalog_key_revoked(const struct catalog *c, const char *keyid)
{
	for (size_t i = 0; i < c->n; i++)
		if (index_is_revoked(&c->repos[i].idx, keyid))
			return true;
	return false;
}

int catalog_remember(struct db *db, const struct catalog *c, struct wd_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < c->n; i++) {
		const struct repo *rp = &c->repos[i];
		char *key = wd_xasprintf("index-serial %s %s", rp->idx.signer, rp->url);
		char *val = NULL;
		r = db_meta_get(db, key, &val, err);
		unsigned long long seen = val ? strtoull(val, NULL, 10) : 0;
		if (!r && rp->idx.serial < seen)
			r = wd_err_set(err, WD_ETRUST, "%s: index serial %llu is older than serial %llu "
				       "seen before (a replayed old index?); refusing it", rp->url,
				       (unsigned long long)rp->idx.serial, seen);
		if (!r && rp->idx.serial > seen) {
			char num[32];
			snprintf(num, sizeof num, "%llu", (unsigned long long)rp->idx.serial);
			r = db_meta_set(db, key, num, err);
		}
		free(val);
		free(key);
		/* A revocation sticks: an index that no longer lists a key does
		 * not bring it back. */
		sqlite3_stmt *st = NULL;
		if (!r)
			r = db_prepare(db, "INSERT OR IGNORE INTO revoked_keys (key_id, source) "
					   "VALUES (?, ?)", &st, err);
		if (!r)
			r = activation_note_date(db, rp->idx.issued, err);
		for (size_t k = 0; !r && k < rp->idx.nrevoked; k++) {
			sqlite3_bind_text(st, 1, rp->idx.revoked[k], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, rp->url, -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_DONE)
				r = db_fail(db, err, "cannot record a revoked key");
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
	}
	return r;
}

int catalog_db_key_revoked(struct db *db, const char *keyid, bool *revoked, struct wd_err *err)
{
	sqlite3_stmt *st;
	int r = db_prepare(db, "SELECT 1 FROM revoked_keys WHERE key_id = ?", &st, err);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, keyid, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*revoked = s == SQLITE_ROW;
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		r = db_fail(db, err, "cannot read revoked keys");
	sqlite3_finalize(st);
	return r;
}
