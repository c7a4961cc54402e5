#include "catalog/fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

/* Where the bytes go: memory or a file descriptor, never past limit. */
struct sink {
	const struct fetch_net *net;
	const char *label;
	struct wd_buf *mem;
	int fd;
	uint64_t start, have, limit, total;
	bool over;
	int write_errno;
	struct fetch_cond *cond; /* NULL: an unconditional download */
	long status;
};

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t len = size * n;
	if (s->have + len > s->limit) {
		s->over = true; /* the endless-data attack ends here */
		return 0;
	}
	if (s->mem) {
		wd_buf_add(s->mem, p, len);
	} else {
		for (size_t off = 0; off < len;) {
			ssize_t w = write(s->fd, p + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				s->write_errno = errno;
				return 0;
			}
			off += (size_t)w;
		}
	}
	s->have += len;
	return len;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)dlnow, (void)ultotal, (void)ulnow;
	struct sink *s = ud;
	uint64_t total = s->total ? s->total : dltotal > 0 ? s->start + (uint64_t)dltotal : 0;
	if (s->net->progress)
		s->net->progress(s->net->ud, s->label, s->have, total);
	return 0;
}

/* The value of a "Name: value" header line, trimmed; false for others. */
static bool header_value(const char *p, size_t n, const char *name, struct wd_sv *v)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(p, name, k) || p[k] != ':')
		return false;
	*v = wd_sv_trim(wd_sv_make(p + k + 1, n - k - 1));
	while (v->n && (v->p[v->n - 1] == '\r' || v->p[v->n - 1] == '\n'))
		v->n--;
	for (size_t i = 0; i < v->n; i++)
		if ((unsigned char)v->p[i] < 0x20 || v->p[i] == 0x7f)
			return false; /* not kept: the validators file is line-based */
	return v->n > 0 && v->n < 256;
}

/* The validators of the final answer (a redirect's are dropped). */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct fetch_cond *c = ud;
	size_t len = size * n;
	struct wd_sv v;
	if (len >= 5 && !memcmp(p, "HTTP/", 5)) {
		free(c->new_etag);
		free(c->new_last_modified);
		c->new_etag = c->new_last_modified = NULL;
	} else if (header_value(p, len, "ETag", &v)) {
		free(c->new_etag);
		c->new_etag = wd_sv_dup(v);
	} else if (header_value(p, len, "Last-Modified", &v)) {
		free(c->new_last_modified);
		c->new_last_modified = wd_sv_dup(v);
	}
	return len;
}

static struct curl_slist *cond_headers(const struct fetch_cond *c)
{
	struct curl_slist *h = NULL;
	char line[300];
	if (c && c->etag) {
		snprintf(line, sizeof line, "If-None-Match: %s", c->etag);
		h = curl_slist_append(h, line);
	}
	if (c && c->last_modified) {
		snprintf(line, sizeof line, "If-Modified-Since: %s", c->last_modified);
		h = curl_slist_append(h, line);
	}
	return h;
}

static bool is_https(const char *url)
{
	return !strncasecmp(url, "https://", 8);
}

static long or_default(long v, long def)
{
	return v > 0 ? v : def;
}

static long max_time(const struct fetch_net *net)
{
	return or_default(net ? net->max_time : 0, FETCH_MAX_TIME);
}

static void set_options(CURL *h, const struct fetch_net *net, const char *url,
			const struct fetch_auth *auth, struct sink *s, char *ebuf)
{
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "warpdrv");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
	/* a local file needs no bar */
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, strncasecmp(url, "file://", 7) ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	/* A redirect never leaves https when a key is sent; and never to file:. */
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, auth ? "https" : "http,https");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT,
			 or_default(net ? net->connect_timeout : 0, FETCH_CONNECT_TIMEOUT));
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT,
			 or_default(net ? net->speed_limit : 0, FETCH_SPEED_LIMIT));
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
			 or_default(net ? net->speed_time : 0, FETCH_SPEED_TIME));
	curl_easy_setopt(h, CURLOPT_TIMEOUT, max_time(net));
	/* Verification stays on (libcurl's default, said again so no one
	 * "simplifies" it away); a private CA replaces the system bundle. */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (net && net->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, net->cacert);
	if (auth) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, auth->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, auth->password);
	}
	if (s->start)
		curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)s->start);
}

static int http_error(const char *url, long status, const struct fetch_auth *auth,
		      struct wd_err *err)
{
	if ((status == 401 || status == 403) && auth)
		return wd_err_set(err, WD_ELICENSE, "%s: HTTP %ld: the repository refused the "
				  "subscription key (not entitled, expired or revoked; "
				  "'warpdrv license' shows it)", url, status);
	if (status == 401 || status == 403)
		return wd_err_set(err, WD_EFAIL, "%s: HTTP %ld: the server wants credentials (a "
				  "subscription repository must be added with 'repo add --subscription')",
				  url, status);
	return wd_err_set(err, WD_EFAIL, "%s: HTTP %ld%s", url, status,
			  status == 404 ? " (not found)" : status >= 500 ? " (server error)" : "");
}

/* Did the transfer run into its total deadline (rather than a stall)? */
static bool past_deadline(CURL *h, const struct fetch_net *net)
{
	curl_off_t us = 0;
	curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &us);
	return us >= (curl_off_t)max_time(net) * 1000000 - 100000;
}

/* Turns a finished transfer into 0 or an error naming the URL and the cause. */
static int outcome(CURL *h, CURLcode c, const struct sink *s, const struct fetch_net *net,
		   const char *url, const struct fetch_auth *auth, const char *ebuf,
		   struct wd_err *err)
{
	const char *why = *ebuf ? ebuf : curl_easy_strerror(c);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (s->over)
		return wd_err_set(err, WD_ETRUST, "%s: longer than the %llu bytes expected; "
				  "cut off and refused", url, (unsigned long long)s->limit);
	if (s->write_errno)
		return wd_err_set(err, WD_EFAIL, "%s: cannot write the download: %s", url,
				  strerror(s->write_errno));
	switch (c) {
	case CURLE_OK:
		return 0;
	case CURLE_HTTP_RETURNED_ERROR:
		return http_error(url, status, auth, err);
	case CURLE_OPERATION_TIMEDOUT:
		if (past_deadline(h, net))
			return wd_err_set(err, WD_EFAIL, "%s: not done within %ld s (--max-time), "
					  "abandoned after %llu bytes", url, max_time(net),
					  (unsigned long long)(s->have - s->start));
		if (!s->have && !status)
			return wd_err_set(err, WD_EFAIL, "%s: no connection within %ld s "
					  "(--connect-timeout): %s", url,
					  or_default(net ? net->connect_timeout : 0,
						     FETCH_CONNECT_TIMEOUT), why);
		return wd_err_set(err, WD_EFAIL, "%s: stalled: under %ld bytes/s for %ld s "
				  "(--speed-limit, --speed-time), abandoned after %llu bytes", url,
				  or_default(net ? net->speed_limit : 0, FETCH_SPEED_LIMIT),
				  or_default(net ? net->speed_time : 0, FETCH_SPEED_TIME),
				  (unsigned long long)s->have);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
		return wd_err_set(err, WD_EFAIL, "%s: the server's certificate cannot be checked: %s "
				  "(a private CA is given with --cacert FILE)", url, why);
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return wd_err_set(err, WD_EFAIL, "%s: the connection dropped after %llu bytes: %s",
				  url, (unsigned long long)s->have, why);
	default:
		return wd_err_set(err, WD_EFAIL, "%s: cannot fetch: %s", url, why);
	}
}

static int transfer(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		    struct sink *s, CURLcode *code, struct wd_err *err)
{
	static bool inited;
	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = true;
	}
	if (auth && !is_https(url))
		return wd_err_set(err, WD_EUSAGE, "%s: a subscription key is sent over https:// "
				  "only; use an https URL for this repository", url);
	CURL *h = curl_easy_init();
	if (!h)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", url);
	char ebuf[CURL_ERROR_SIZE] = "";
	set_options(h, net, url, auth, s, ebuf);
	struct curl_slist *hdrs = cond_headers(s->cond);
	if (hdrs)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	if (s->cond) {
		curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h, CURLOPT_HEADERDATA, s->cond);
	}
	*code = curl_easy_perform(h);
	curl_slist_free_all(hdrs);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	s->status = status;
	/* A resume past the server's end (416) is answered like an ignored
	 * range: the caller starts again from the first byte. */
	if (s->start && status == 416)
		*code = CURLE_RANGE_ERROR;
	int r = *code == CURLE_RANGE_ERROR ? 0 : outcome(h, *code, s, net, url, auth, ebuf, err);
	curl_easy_cleanup(h);
	if (net && net->finished && strncasecmp(url, "file://", 7))
		net->finished(net->ud, s->label, r);
	return r;
}

int fetch_mem_if(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		 size_t max, const char *label, struct fetch_cond *cond, struct wd_buf *out,
		 struct wd_err *err)
{
	static const struct fetch_net none;
	wd_buf_reset(out);
	struct sink s = {.net = net ? net : &none, .label = label, .mem = out, .fd = -1,
			 .limit = max, .cond = cond};
	if (cond)
		cond->not_modified = false;
	CURLcode c;
	int r = transfer(net, url, auth, &s, &c, err);
	if (r)
		return r;
	/* 304 only answers a question asked; unasked, it is no file */
	if (cond && s.status == 304 && (cond->etag || cond->last_modified))
		cond->not_modified = true;
	else if (s.status == 304)
		return wd_err_set(err, WD_EFAIL, "%s: HTTP 304 to an unconditional request", url);
	wd_buf_reserve(out, 1);
	out->p[out->len] = '\0';
	return 0;
}

int fetch_mem(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	      size_t max, const char *label, struct wd_buf *out, struct wd_err *err)
{
	return fetch_mem_if(net, url, auth, max, label, NULL, out, err);
}

void fetch_cond_free(struct fetch_cond *cond)
{
	free(cond->new_etag);
	free(cond->new_last_modified);
	cond->new_etag = cond->new_last_modified = NULL;
}

void fetch_validators_read(const char *path, struct fetch_validators *vs)
{
	memset(vs, 0, sizeof *vs);
	struct wd_buf b = {0};
	struct wd_err ignore;
	if (wd_read_file(path, 1 << 20, &b, &ignore)) {
		wd_buf_free(&b);
		return;
	}
	for (char *line = b.p, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t1 = *t2 = '\0';
		fetch_validators_set(vs, line, strcmp(t1 + 1, "-") ? t1 + 1 : NULL,
				     strcmp(t2 + 1, "-") ? t2 + 1 : NULL);
	}
	wd_buf_free(&b);
}

int fetch_validators_write(const char *path, const struct fetch_validators *vs,
			   struct wd_err *err)
{
	struct wd_buf b = {0};
	for (size_t i = 0; i < vs->n; i++)
		wd_buf_addf(&b, "%s\t%s\t%s\n", vs->v[i].url, vs->v[i].etag ? vs->v[i].etag : "-",
			    vs->v[i].last_modified ? vs->v[i].last_modified : "-");
	int r = wd_write_atomic(path, b.p ? b.p : "", b.len, 0644, err);
	wd_buf_free(&b);
	return r;
}

const struct fetch_validator *fetch_validators_find(const struct fetch_validators *vs,
						    const char *url)
{
	for (size_t i = 0; i < vs->n; i++)
		if (!strcmp(vs->v[i].url, url))
			return &vs->v[i];
	return NULL;
}

void fetch_validators_set(struct fetch_validators *vs, const char *url, const char *etag,
			  const char *last_modified)
{
	struct fetch_validator *v = (struct fetch_validator *)fetch_validators_find(vs, url);
	if (v) {
		free(v->etag);
		free(v->last_modified);
	} else if (etag || last_modified) {
		vs->v = wd_xrealloc(vs->v, (vs->n + 1) * sizeof *vs->v);
		v = &vs->v[vs->n++];
		v->url = wd_xstrdup(url);
	} else {
		return;
	}
	v->etag = etag ? wd_xstrdup(etag) : NULL;
	v->last_modified = last_modified ? wd_xstrdup(last_modified) : NULL;
	if (!etag && !last_modified) { /* removed: the last entry takes its place */
		free(v->url);
		*v = vs->v[--vs->n];
	}
}

void fetch_validators_free(struct fetch_validators *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].url);
		free(vs->v[i].etag);
		free(vs->v[i].last_modified);
	}
	free(vs->v);
	memset(vs, 0, sizeof *vs);
}

int fetch_file(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       const char *path, uint64_t size, const char *label, struct wd_err *err)
{
	static const struct fetch_net none;
	int fd = wd_open_plain(path, O_WRONLY | O_CREAT | O_APPEND, 0644, err);
	if (fd < 0)
		return fd;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	uint64_t have = (uint64_t)st.st_size;
	if (have > size && ftruncate(fd, 0) == 0)
		have = 0;
	/* Two rounds at most: the second when the server ignored the range. */
	for (int round = 0; have < size && round < 2; round++) {
		struct sink s = {.net = net ? net : &none, .label = label, .fd = fd,
				 .start = have, .have = have, .limit = size, .total = size};
		CURLcode c;
		if ((r = transfer(net, url, auth, &s, &c, err)))
			break;
		have = s.have;
		if (c != CURLE_RANGE_ERROR)
			break;
		if (ftruncate(fd, 0) < 0) {
			r = wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
			break;
		}
		have = 0;
	}
	/* The server ended its body cleanly short of the size the signed index
	 * gives: what it serves is not the package (exit 3), and resuming it
	 * again would only repeat this. */
	if (!r && have < size)
		r = wd_err_set(err, WD_ETRUST, "%s: the server's file ends after %llu bytes; the "
			       "index says %llu (a truncated or replaced file)", url,
			       (unsigned long long)have, (unsigned long long)size);
out:
	close(fd);
	return r;
}
