/* http:// and https:// transfers through libcurl. libcurl is not linked: it
 * is loaded (dlopen) when the first such transfer starts, and its functions
 * are called through one small table. Linking it cost every run about 7 ms
 * of start-up here (loading and starting its thirty dependencies), and most
 * runs (detect, check, list on the bundled repository) download nothing. */
#include "catalog/fetch_sink.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "common/hooks.h"
#include "trust/keys.h"

#define LIBCURL "libcurl.so.4"
#define LIBCURL_PACKAGE "libcurl4"

/* The libcurl functions warpdrv calls, with libcurl's own prototypes. */
struct curl_fns {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode c);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	time_t (*getdate)(const char *s, const time_t *unused);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *u);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
	const char *(*url_strerror)(CURLUcode c);
	void (*free)(void *p);
};

static const struct {
	const char *name;
	size_t off;
} curl_syms[] = {
	{"curl_global_init", offsetof(struct curl_fns, global_init)},
	{"curl_easy_init", offsetof(struct curl_fns, easy_init)},
	{"curl_easy_setopt", offsetof(struct curl_fns, easy_setopt)},
	{"curl_easy_perform", offsetof(struct curl_fns, easy_perform)},
	{"curl_easy_getinfo", offsetof(struct curl_fns, easy_getinfo)},
	{"curl_easy_cleanup", offsetof(struct curl_fns, easy_cleanup)},
	{"curl_easy_strerror", offsetof(struct curl_fns, easy_strerror)},
	{"curl_slist_append", offsetof(struct curl_fns, slist_append)},
	{"curl_slist_free_all", offsetof(struct curl_fns, slist_free_all)},
	{"curl_getdate", offsetof(struct curl_fns, getdate)},
	{"curl_url", offsetof(struct curl_fns, url)},
	{"curl_url_cleanup", offsetof(struct curl_fns, url_cleanup)},
	{"curl_url_set", offsetof(struct curl_fns, url_set)},
	{"curl_url_get", offsetof(struct curl_fns, url_get)},
	{"curl_url_strerror", offsetof(struct curl_fns, url_strerror)},
	{"curl_free", offsetof(struct curl_fns, free)},
};

static struct curl_fns curl_table;
static const struct curl_fns *cu; /* NULL until loaded */

static const char *curl_name(void)
{
	const char *name = wd_test_hook("WARPDRV_LIBCURL");
	return name && *name ? name : LIBCURL;
}

/* fetch_preload's thread: OpenSSL's set-up, then only dlopen (libcurl's and
 * its dependencies' constructors); curl_global_init stays on the caller's
 * thread. dlerror's text is the thread's own, so it is kept for load_curl's
 * message. */
static struct {
	pthread_t thread;
	bool running;
	void *lib;
	char why[512];
} pre;

static void *preload_main(void *arg)
{
	(void)arg;
	key_crypto_ready(); /* before the load, off the caller's path */
	pre.lib = dlopen(curl_name(), RTLD_NOW | RTLD_LOCAL);
	if (!pre.lib)
		snprintf(pre.why, sizeof pre.why, "%s", dlerror());
	return NULL;
}

void fetch_preload(void)
{
	if (cu || pre.running)
		return;
	pre.lib = NULL;
	pre.why[0] = 0;
	pre.running = pthread_create(&pre.thread, NULL, preload_main, NULL) == 0;
}

/* The preload's library (NULL with *why set when it failed, or NULL and
 * why empty when none was started). */
static void *preload_take(char *why, size_t n)
{
	why[0] = 0;
	if (!pre.running)
		return NULL;
	pthread_join(pre.thread, NULL);
	pre.running = false;
	snprintf(why, n, "%s", pre.lib ? "" : pre.why[0] ? pre.why : "cannot be loaded");
	return pre.lib;
}

void fetch_preload_end(void)
{
	char why[sizeof pre.why];
	void *lib = preload_take(why, sizeof why);
	(void)lib; /* kept loaded: a later transfer's dlopen finds it */
}

/* Loads libcurl once (a failure is tried again on the next transfer), or
 * takes up fetch_preload's. The test programs may name another file in
 * WARPDRV_LIBCURL. */
static int load_curl(const char *url, struct wd_err *err)
{
	if (cu)
		return 0;
	const char *name = curl_name();
	char why[512];
	void *lib = preload_take(why, sizeof why);
	if (!lib && !why[0])
		lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return wd_err_set(err, WD_EFAIL, "%s: downloads need libcurl, and %s cannot be "
				  "loaded (%s); install the package %s (apt-get install %s)", url,
				  name, why[0] ? why : dlerror(), LIBCURL_PACKAGE, LIBCURL_PACKAGE);
	for (size_t i = 0; i < sizeof curl_syms / sizeof curl_syms[0]; i++) {
		void *f = dlsym(lib, curl_syms[i].name);
		if (!f) {
			dlclose(lib);
			return wd_err_set(err, WD_EFAIL, "%s: %s has no %s (not libcurl 7.85 or "
					  "later); install the package %s", url, name,
					  curl_syms[i].name, LIBCURL_PACKAGE);
		}
		/* POSIX: a function's address fits a void * */
		memcpy((char *)&curl_table + curl_syms[i].off, &f, sizeof f);
	}
	key_crypto_full(); /* the system's TLS policy, where detect left it out */
	if (curl_table.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		dlclose(lib);
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl (%s)", url, name);
	}
	cu = &curl_table;
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
	time_t lm = c->new_date ? cu->getdate(c->new_last_modified, NULL) : -1,
	       date = c->new_date ? cu->getdate(c->new_date, NULL) : -1;
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
		h = cu->slist_append(h, line);
	}
	if (c && c->last_modified && !c->etag) {
		snprintf(line, sizeof line, "If-Modified-Since: %s", c->last_modified);
		h = cu->slist_append(h, line);
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
	cu->easy_setopt(h, CURLOPT_URL, url);
	cu->easy_setopt(h, CURLOPT_USERAGENT, "warpdrv");
	cu->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	cu->easy_setopt(h, CURLOPT_WRITEDATA, s);
	cu->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	cu->easy_setopt(h, CURLOPT_XFERINFODATA, s);
	cu->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	cu->easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	cu->easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	cu->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* A redirect never leads to file://, and never leaves https when a key
	 * is sent. */
	if (cu->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "file,http,https") != CURLE_OK ||
	    cu->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, auth ? "https" : "http,https") !=
		    CURLE_OK)
		return wd_err_set(err, WD_EFAIL, "%s: the libcurl loaded is older than 7.85 "
				  "(no CURLOPT_PROTOCOLS_STR); upgrade the package %s", url,
				  LIBCURL_PACKAGE);
	cu->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	cu->easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	cu->easy_setopt(h, CURLOPT_CONNECTTIMEOUT,
			 or_default(net ? net->connect_timeout : 0, FETCH_CONNECT_TIMEOUT));
	cu->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT,
			 or_default(net ? net->speed_limit : 0, FETCH_SPEED_LIMIT));
	cu->easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
			 or_default(net ? net->speed_time : 0, FETCH_SPEED_TIME));
	cu->easy_setopt(h, CURLOPT_TIMEOUT, max_time(net));
	/* Verification stays on (libcurl's default, said again so no one
	 * "simplifies" it away); a private CA replaces the system bundle. */
	cu->easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	cu->easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (net && net->cacert)
		cu->easy_setopt(h, CURLOPT_CAINFO, net->cacert);
	if (auth) {
		cu->easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cu->easy_setopt(h, CURLOPT_USERNAME, auth->user);
		cu->easy_setopt(h, CURLOPT_PASSWORD, auth->password);
	}
	if (s->start)
		cu->easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)s->start);
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
	cu->easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &us);
	return us >= (curl_off_t)max_time(net) * 1000000 - 100000;
}

/* Turns a finished transfer into 0 or an error naming the URL and the cause. */
static int outcome(CURL *h, CURLcode c, const struct fetch_sink *s, const struct fetch_net *net,
		   const char *url, const struct fetch_auth *auth, const char *ebuf,
		   struct wd_err *err)
{
	const char *why = *ebuf ? ebuf : cu->easy_strerror(c);
	long status = 0;
	cu->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
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
	int r = load_curl(url, err);
	if (r)
		return r;
	CURL *h = cu->easy_init();
	if (!h)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", url);
	char ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = cond_headers(s->cond);
	if (!(r = set_options(h, net, url, auth, s, ebuf, err))) {
		if (hdrs)
			cu->easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
		if (s->cond) {
			cu->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
			cu->easy_setopt(h, CURLOPT_HEADERDATA, s->cond);
		}
		CURLcode c = cu->easy_perform(h);
		cu->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &s->status);
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
	cu->slist_free_all(hdrs);
	cu->easy_cleanup(h);
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

/* The part of u, or NULL when it has none (free with cu->free). */
static char *url_part(CURLU *u, CURLUPart what)
{
	char *p = NULL;
	if (cu->url_get(u, what, &p, 0) != CURLUE_OK)
		return NULL;
	return p;
}

int fetch_url_check(const char *url, struct wd_err *err)
{
	char *shown = fetch_url_redacted(url);
	int r = load_curl(shown, err);
	if (r) {
		free(shown);
		return r;
	}
	CURLU *u = cu->url();
	if (!u) {
		free(shown);
		wd_out_of_memory();
	}
	CURLUcode c = cu->url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	char *scheme = c == CURLUE_OK ? url_part(u, CURLUPART_SCHEME) : NULL;
	char *host = c == CURLUE_OK ? url_part(u, CURLUPART_HOST) : NULL;
	char *user = c == CURLUE_OK ? url_part(u, CURLUPART_USER) : NULL;
	char *pass = c == CURLUE_OK ? url_part(u, CURLUPART_PASSWORD) : NULL;
	bool web = scheme && (!strcmp(scheme, "http") || !strcmp(scheme, "https"));
	if (c != CURLUE_OK)
		r = wd_err_set(err, WD_EUSAGE, "%s: not a URL (libcurl: %s); expected http://HOST/..., "
			       "https://HOST/..., file:///FOLDER or a folder", shown,
			       cu->url_strerror(c));
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
	cu->free(scheme);
	cu->free(host);
	cu->free(user);
	cu->free(pass);
	cu->url_cleanup(u);
	free(shown);
	return r;
}
