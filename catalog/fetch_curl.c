/* http:// and https:// transfers through libcurl (file:// too: every
 * transfer goes through it). */
#include "catalog/fetch_sink.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "trust/keys.h"

#define LIBCURL_PACKAGE "libcurl4"

/* fetch_preload's thread: OpenSSL's one-time set-up, off the caller's path. */
static struct {
	pthread_t thread;
	bool running;
} pre;

static void *preload_main(void *arg)
{
	(void)arg;
	key_crypto_ready();
	return NULL;
}

void fetch_preload(void)
{
	if (pre.running)
		return;
	pre.running = pthread_create(&pre.thread, NULL, preload_main, NULL) == 0;
}

void fetch_preload_end(void)
{
	if (!pre.running)
		return;
	pthread_join(pre.thread, NULL);
	pre.running = false;
}

/* curl_global_init, once per process, on the first transfer (a failure is
 * tried again on the next). */
static int start_curl(const char *url, struct wd_err *err)
{
	static bool started;
	if (started)
		return 0;
	fetch_preload_end();
	key_crypto_full(); /* the system's TLS policy, where detect left it out */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", url);
	started = true;
	return 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	return fetch_sink_add(ud, p, size * n) ? size * n : 0;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)dlnow, (void)ultotal, (void)ulnow;
	struct fetch_sink *s = ud;
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
		free(c->new_date);
		c->new_etag = c->new_last_modified = c->new_date = NULL;
	} else if (header_value(p, len, "Date", &v)) {
		free(c->new_date);
		c->new_date = wd_sv_dup(v);
	} else if (header_value(p, len, "ETag", &v)) {
		free(c->new_etag);
		c->new_etag = wd_sv_dup(v);
	} else if (header_value(p, len, "Last-Modified", &v)) {
		free(c->new_last_modified);
		c->new_last_modified = wd_sv_dup(v);
	}
	return len;
}

/* Which of the answer's validators are kept: an ETag over a Last-Modified,
 * and a Last-Modified only a second or more older than the answer's Date
 * (a file changed again within its second would look unchanged). */
static void keep_validators(struct fetch_cond *c)
{
	if (c->new_etag || !c->new_last_modified)
		goto drop;
	time_t lm = c->new_date ? curl_getdate(c->new_last_modified, NULL) : -1,
	       date = c->new_date ? curl_getdate(c->new_date, NULL) : -1;
	if (lm >= 0 && date >= 0 && lm <= date - 1)
		return;
drop:
	free(c->new_last_modified);
	c->new_last_modified = NULL;
}

static struct curl_slist *cond_headers(const struct fetch_cond *c)
{
	struct curl_slist *h = NULL;
	char line[300];
	if (c && c->etag) {
		snprintf(line, sizeof line, "If-None-Match: %s", c->etag);
		h = curl_slist_append(h, line);
	}
	if (c && c->last_modified && !c->etag) {
		snprintf(line, sizeof line, "If-Modified-Since: %s", c->last_modified);
		h = curl_slist_append(h, line);
	}
	return h;
}

static long or_default(long v, long def)
{
	return v > 0 ? v : def;
}

static long max_time(const struct fetch_net *net)
{
	return or_default(net ? net->max_time : 0, FETCH_MAX_TIME);
}

/* The options of one transfer; an error when the loaded libcurl cannot
 * restrict the protocols (older than 7.85): nothing is fetched then. */
static int set_options(CURL *h, const struct fetch_net *net, const char *url,
		       const struct fetch_auth *auth, struct fetch_sink *s, char *ebuf,
		       struct wd_err *err)
{
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "warpdrv");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* A redirect never leads to file://, and never leaves https when a key
	 * is sent. */
	if (curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "file,http,https") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, auth ? "https" : "http,https") !=
		    CURLE_OK)
		return wd_err_set(err, WD_EFAIL, "%s: the libcurl installed is older than 7.85 "
				  "(no CURLOPT_PROTOCOLS_STR); upgrade the package %s", url,
				  LIBCURL_PACKAGE);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
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
	return 0;
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
static int outcome(CURL *h, CURLcode c, const struct fetch_sink *s, const struct fetch_net *net,
		   const char *url, const struct fetch_auth *auth, const char *ebuf,
		   struct wd_err *err)
{
	const char *why = *ebuf ? ebuf : curl_easy_strerror(c);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	int r = fetch_sink_error(s, url, err);
	if (r)
		return r;
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

/* One http(s) transfer into s: 0, a negative code, or FETCH_FROM_START. */
int fetch_curl(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       struct fetch_sink *s, struct wd_err *err)
{
	int r = start_curl(url, err);
	if (r)
		return r;
	CURL *h = curl_easy_init();
	if (!h)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", url);
	char ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = cond_headers(s->cond);
	if (!(r = set_options(h, net, url, auth, s, ebuf, err))) {
		if (hdrs)
			curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
		if (s->cond) {
			curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
			curl_easy_setopt(h, CURLOPT_HEADERDATA, s->cond);
		}
		CURLcode c = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &s->status);
		if (s->cond)
			keep_validators(s->cond);
		/* A resume past the server's end (416) is answered like an
		 * ignored range: the caller starts again from the first byte. */
		if (c == CURLE_RANGE_ERROR || (s->start && s->status == 416))
			r = FETCH_FROM_START;
		else
			r = outcome(h, c, s, net, url, auth, ebuf, err);
		if (net && net->finished)
			net->finished(net->ud, s->label, r < 0 ? r : 0);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return r;
}

char *fetch_url_redacted(const char *url)
{
	const char *auth = strstr(url, "://");
	auth = auth ? auth + 3 : url;
	size_t n = strcspn(auth, "/?#");
	const char *at = NULL;
	for (const char *c = auth; c < auth + n; c++)
		if (*c == '@')
			at = c;
	if (!at)
		return wd_xstrdup(url);
	return wd_xasprintf("%.*s***%s", (int)(auth - url), url, at);
}

/* The part of u, or NULL when it has none (free with curl_free). */
static char *url_part(CURLU *u, CURLUPart what)
{
	char *p = NULL;
	if (curl_url_get(u, what, &p, 0) != CURLUE_OK)
		return NULL;
	return p;
}

int fetch_url_check(const char *url, struct wd_err *err)
{
	char *shown = fetch_url_redacted(url);
	int r = start_curl(shown, err);
	if (r) {
		free(shown);
		return r;
	}
	CURLU *u = curl_url();
	if (!u) {
		free(shown);
		wd_out_of_memory();
	}
	CURLUcode c = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	char *scheme = c == CURLUE_OK ? url_part(u, CURLUPART_SCHEME) : NULL;
	char *host = c == CURLUE_OK ? url_part(u, CURLUPART_HOST) : NULL;
	char *user = c == CURLUE_OK ? url_part(u, CURLUPART_USER) : NULL;
	char *pass = c == CURLUE_OK ? url_part(u, CURLUPART_PASSWORD) : NULL;
	bool web = scheme && (!strcmp(scheme, "http") || !strcmp(scheme, "https"));
	if (c != CURLUE_OK)
		r = wd_err_set(err, WD_EUSAGE, "%s: not a URL (libcurl: %s); expected http://HOST/..., "
			       "https://HOST/..., file:///FOLDER or a folder", shown,
			       curl_url_strerror(c));
	else if (!web && (!scheme || strcmp(scheme, "file")))
		r = wd_err_set(err, WD_EUSAGE, "%s: the scheme %s is not one warpdrv reads; expected "
			       "http://, https://, file:// or a folder", shown,
			       scheme ? scheme : "(none)");
	else if (web && (!host || !*host))
		r = wd_err_set(err, WD_EUSAGE, "%s: no host in it; expected %s://HOST/PATH", shown,
			       scheme);
	else if (user || pass)
		r = wd_err_set(err, WD_EUSAGE, "%s: a user name or password in a repository URL is "
			       "refused (it would be stored and shown); a subscription repository "
			       "(--subscription) is sent the activated key instead", shown);
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(pass);
	curl_url_cleanup(u);
	free(shown);
	return r;
}
