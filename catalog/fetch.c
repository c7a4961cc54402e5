#include "catalog/fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the bytes go: memory or a file descriptor, never past limit. */
struct sink {
	const struct fetch_net *net;
	const char *label;
	struct wd_buf *mem;
	int fd;
	uint64_t start, have, limit, total;
	bool over;
	int write_errno;
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
	*code = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
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

int fetch_mem(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	      size_t max, const char *label, struct wd_buf *out, struct wd_err *err)
{
	static const struct fetch_net none;
	wd_buf_reset(out);
	struct sink s = {.net = net ? net : &none, .label = label, .mem = out, .fd = -1,
			 .limit = max};
	CURLcode c;
	int r = transfer(net, url, auth, &s, &c, err);
	if (r)
		return r;
	wd_buf_reserve(out, 1);
	out->p[out->len] = '\0';
	return 0;
}

int fetch_file(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       const char *path, uint64_t size, const char *label, struct wd_err *err)
{
	static const struct fetch_net none;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot create: %s", path, strerror(errno));
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
