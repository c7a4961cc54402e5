/* warpdrv-fetch: warpdrv's transfer helper, the one program of the project
 * linked with libcurl. warpdrv starts it on its first transfer (catalog/
 * fetch_helper.c) with a socket on its standard input and sends it one
 * request at a time (xfer/proto.h): fetch a URL into the descriptor that
 * comes with the request, or check a URL's form. It answers with progress
 * and one result, and ends when warpdrv closes the socket or ends.
 *
 * Every URL (file://, http, https) goes through libcurl with a connect
 * time-out, a low-speed limit and a total deadline, so that a dead, stalled
 * or dripping server is abandoned; certificates are always checked, with
 * the system's TLS policy (libcurl starts OpenSSL with its configuration
 * file). The helper holds nothing but the socket and the descriptor of the
 * request under way: no handle on the volume, the host's state or a key;
 * and before its first request it gives up, where the kernel has Landlock,
 * every right to make, write, remove or rename a file by name (sandbox),
 * and with a seccomp filter the calls that change a file's mode, owner or
 * times or reach another process (deny_calls): it reads what libcurl and
 * OpenSSL read (a file:// repository, the CA files) and writes only the
 * descriptors it was given. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/hooks.h"
#include "xfer/proto.h"

#define LIBCURL_PACKAGE "libcurl4"
#define SOCK 0 /* the socket to warpdrv: standard input */

/* One fetch: what the request asked and what the answer brought. */
struct job {
	const struct xfer_msg *rq;
	const char *url;
	int fd;
	uint64_t start, have, limit, total;
	uint64_t now_total;             /* the size expected, as known so far */
	uint64_t sent_have, sent_total; /* what the last progress said, and when */
	double sent_at;
	bool sent, over;
	int write_errno;
	char *etag, *last_modified, *date; /* the final answer's, malloc'd */
};

static bool sink_add(struct job *j, const char *p, size_t len)
{
	if (j->have + len > j->limit) {
		j->over = true; /* the endless-data attack ends here */
		return false;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(j->fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			j->write_errno = errno;
			return false;
		}
		off += (size_t)w;
	}
	j->have += len;
	return true;
}

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	return sink_add(ud, p, size * n) ? size * n : 0;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Progress to warpdrv, when asked for: the first time, then whenever it has
 * changed, at most 20 times a second (and once more at the end: send_last).
 * false when warpdrv is gone. */
static bool send_progress(struct job *j, uint64_t total, bool last)
{
	double t = now();
	if (j->sent && (j->have == j->sent_have && total == j->sent_total))
		return true;
	if (j->sent && !last && t - j->sent_at < 0.05)
		return true;
	j->sent = true;
	j->sent_at = t;
	j->sent_have = j->have;
	j->sent_total = total;
	struct xfer_msg m;
	xfer_msg_init(&m, XFER_PROGRESS);
	xfer_set_num(&m, XN_HAVE, (int64_t)j->have);
	xfer_set_num(&m, XN_TOTAL, (int64_t)total);
	return xfer_send(SOCK, &m, -1) == 0 || errno != EPIPE;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)dlnow, (void)ultotal, (void)ulnow;
	struct job *j = ud;
	if (j->total)
		j->now_total = j->total;
	else if (dltotal > 0)
		j->now_total = j->start + (uint64_t)dltotal;
	/* warpdrv gone: the transfer is abandoned */
	return !send_progress(j, j->now_total, false);
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

static void replace(char **slot, struct wd_sv v)
{
	free(*slot);
	*slot = v.p ? wd_sv_dup(v) : NULL;
}

/* The validators of the final answer (a redirect's are dropped). */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct job *j = ud;
	size_t len = size * n;
	struct wd_sv v = {0};
	if (len >= 5 && !memcmp(p, "HTTP/", 5)) {
		replace(&j->etag, v);
		replace(&j->last_modified, v);
		replace(&j->date, v);
	} else if (header_value(p, len, "Date", &v)) {
		replace(&j->date, v);
	} else if (header_value(p, len, "ETag", &v)) {
		replace(&j->etag, v);
	} else if (header_value(p, len, "Last-Modified", &v)) {
		replace(&j->last_modified, v);
	}
	return len;
}

/* Which of the answer's validators are kept: an ETag over a Last-Modified,
 * and a Last-Modified only a second or more older than the answer's Date
 * (a file changed again within its second would look unchanged). */
static void keep_validators(struct job *j)
{
	if (j->etag || !j->last_modified)
		goto drop;
	time_t lm = j->date ? curl_getdate(j->last_modified, NULL) : -1,
	       date = j->date ? curl_getdate(j->date, NULL) : -1;
	if (lm >= 0 && date >= 0 && lm <= date - 1)
		return;
drop:
	free(j->last_modified);
	j->last_modified = NULL;
}

static struct curl_slist *cond_headers(const struct xfer_msg *rq)
{
	struct curl_slist *h = NULL;
	char line[300];
	if (rq->str[XS_ETAG]) {
		snprintf(line, sizeof line, "If-None-Match: %s", rq->str[XS_ETAG]);
		h = curl_slist_append(h, line);
	} else if (rq->str[XS_LAST_MODIFIED]) {
		snprintf(line, sizeof line, "If-Modified-Since: %s", rq->str[XS_LAST_MODIFIED]);
		h = curl_slist_append(h, line);
	}
	return h;
}

/* The options of one transfer; an error when the libcurl installed cannot
 * restrict the protocols (older than 7.85): nothing is fetched then. */
static int set_options(CURL *h, struct job *j, char *ebuf, struct wd_err *err)
{
	const struct xfer_msg *rq = j->rq;
	bool auth = rq->str[XS_USER] != NULL;
	curl_easy_setopt(h, CURLOPT_URL, j->url);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "warpdrv");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, j);
	if (rq->num[XN_PROGRESS]) {
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, j);
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	}
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, j);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* A redirect never leads to file://, and never leaves https when a key
	 * is sent. */
	if (curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "file,http,https") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, auth ? "https" : "http,https") !=
		    CURLE_OK)
		return wd_err_set(err, WD_EFAIL, "%s: the libcurl installed is older than 7.85 "
				  "(no CURLOPT_PROTOCOLS_STR); upgrade the package %s", j->url,
				  LIBCURL_PACKAGE);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)rq->num[XN_CONNECT_TIMEOUT]);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, (long)rq->num[XN_SPEED_LIMIT]);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)rq->num[XN_SPEED_TIME]);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)rq->num[XN_MAX_TIME]);
	/* Verification stays on (libcurl's default, said again so no one
	 * "simplifies" it away); a private CA replaces the system bundle. */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (rq->str[XS_CACERT])
		curl_easy_setopt(h, CURLOPT_CAINFO, rq->str[XS_CACERT]);
	if (auth) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, rq->str[XS_USER]);
		curl_easy_setopt(h, CURLOPT_PASSWORD,
				 rq->str[XS_PASSWORD] ? rq->str[XS_PASSWORD] : "");
	}
	if (j->start)
		curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)j->start);
	return 0;
}

static int http_error(const char *url, long status, bool auth, struct wd_err *err)
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
static bool past_deadline(CURL *h, long max_time)
{
	curl_off_t us = 0;
	curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &us);
	return us >= (curl_off_t)max_time * 1000000 - 100000;
}

static int timed_out(CURL *h, const struct job *j, long status, const char *why,
		     struct wd_err *err)
{
	const struct xfer_msg *rq = j->rq;
	if (past_deadline(h, (long)rq->num[XN_MAX_TIME]))
		return wd_err_set(err, WD_EFAIL, "%s: not done within %ld s (--max-time), "
				  "abandoned after %llu bytes", j->url, (long)rq->num[XN_MAX_TIME],
				  (unsigned long long)(j->have - j->start));
	if (!j->have && !status)
		return wd_err_set(err, WD_EFAIL, "%s: no connection within %ld s "
				  "(--connect-timeout): %s", j->url,
				  (long)rq->num[XN_CONNECT_TIMEOUT], why);
	return wd_err_set(err, WD_EFAIL, "%s: stalled: under %ld bytes/s for %ld s "
			  "(--speed-limit, --speed-time), abandoned after %llu bytes", j->url,
			  (long)rq->num[XN_SPEED_LIMIT], (long)rq->num[XN_SPEED_TIME],
			  (unsigned long long)j->have);
}

/* Turns a finished transfer into 0 or an error naming the URL and the cause. */
static int outcome(CURL *h, CURLcode c, const struct job *j, long status, const char *ebuf,
		   struct wd_err *err)
{
	const char *why = *ebuf ? ebuf : curl_easy_strerror(c);
	if (j->over)
		return wd_err_set(err, WD_ETRUST, "%s: longer than the %llu bytes expected; "
				  "cut off and refused", j->url, (unsigned long long)j->limit);
	if (j->write_errno)
		return wd_err_set(err, WD_EFAIL, "%s: cannot write the download: %s", j->url,
				  strerror(j->write_errno));
	switch (c) {
	case CURLE_OK:
		return 0;
	case CURLE_HTTP_RETURNED_ERROR:
		return http_error(j->url, status, j->rq->str[XS_USER] != NULL, err);
	case CURLE_OPERATION_TIMEDOUT:
		return timed_out(h, j, status, why, err);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
		return wd_err_set(err, WD_EFAIL, "%s: the server's certificate cannot be checked: %s "
				  "(a private CA is given with --cacert FILE)", j->url, why);
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return wd_err_set(err, WD_EFAIL, "%s: the connection dropped after %llu bytes: %s",
				  j->url, (unsigned long long)j->have, why);
	default:
		return wd_err_set(err, WD_EFAIL, "%s: cannot fetch: %s", j->url, why);
	}
}

/* One transfer: 0, a negated exit code, or XFER_FROM_START; *status the
 * HTTP status. */
static int transfer(struct job *j, long *status, struct wd_err *err)
{
	CURL *h = curl_easy_init();
	if (!h)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start libcurl", j->url);
	char ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = cond_headers(j->rq);
	int r = set_options(h, j, ebuf, err);
	if (!r) {
		if (hdrs)
			curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
		CURLcode c = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
		if (j->rq->num[XN_PROGRESS])
			send_progress(j, j->now_total, true);
		keep_validators(j);
		/* A resume past the server's end (416) is answered like an
		 * ignored range: the caller starts again from the first byte. */
		if (c == CURLE_RANGE_ERROR || (j->start && *status == 416))
			r = XFER_FROM_START;
		else
			r = outcome(h, c, j, *status, ebuf, err);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return r;
}

static int serve_fetch(const struct xfer_msg *rq, struct xfer_msg *res, struct job *j,
		       struct wd_err *err)
{
	long status = 0;
	*j = (struct job){.rq = rq, .url = rq->str[XS_URL], .fd = rq->fd,
			  .start = (uint64_t)rq->num[XN_START], .limit = (uint64_t)rq->num[XN_LIMIT],
			  .total = (uint64_t)rq->num[XN_TOTAL]};
	j->have = j->start;
	if (!j->url || j->fd < 0)
		return wd_err_set(err, WD_EFAIL, "a request with no %s", j->url ? "file" : "URL");
	int r = transfer(j, &status, err);
	xfer_set_num(res, XN_STATUS, status);
	xfer_set_num(res, XN_HAVE, (int64_t)j->have);
	res->str[XS_ETAG] = j->etag;
	res->str[XS_LAST_MODIFIED] = j->last_modified;
	return r;
}

/* The part of u, or NULL when it has none (free with curl_free). */
static char *url_part(CURLU *u, CURLUPart what)
{
	char *p = NULL;
	if (curl_url_get(u, what, &p, 0) != CURLUE_OK)
		return NULL;
	return p;
}

/* A URL's parts by libcurl's own parser (its URL API), for warpdrv to judge
 * (catalog/fetch_helper.c: fetch_url_check). */
static int serve_check(const struct xfer_msg *rq, struct xfer_msg *res, char *parts[4],
		       struct wd_err *err)
{
	if (!rq->str[XS_URL])
		return wd_err_set(err, WD_EFAIL, "a request with no URL");
	CURLU *u = curl_url();
	if (!u)
		return wd_err_set(err, WD_EFAIL, "out of memory");
	CURLUcode c = curl_url_set(u, CURLUPART_URL, rq->str[XS_URL], CURLU_NON_SUPPORT_SCHEME);
	int r = 0;
	if (c != CURLUE_OK) {
		r = wd_err_set(err, WD_EUSAGE, "%s", curl_url_strerror(c));
	} else {
		parts[0] = url_part(u, CURLUPART_SCHEME);
		parts[1] = url_part(u, CURLUPART_HOST);
		parts[2] = url_part(u, CURLUPART_USER);
		parts[3] = url_part(u, CURLUPART_PASSWORD);
		res->str[XS_SCHEME] = parts[0];
		res->str[XS_HOST] = parts[1];
		xfer_set_num(res, XN_CREDS, parts[2] || parts[3]);
	}
	curl_url_cleanup(u);
	return r;
}

/* Answers one request; false when warpdrv can no longer be told. The
 * request's descriptor is closed before the result goes: a lock warpdrv
 * holds on the file's description ends when warpdrv closes its own. */
static bool serve(struct xfer_msg *rq)
{
	struct xfer_msg res;
	struct wd_err err = {0};
	struct job j = {0};
	char *parts[4] = {0};
	int r;
	xfer_msg_init(&res, XFER_RESULT);
	if (rq->type == XFER_FETCH)
		r = serve_fetch(rq, &res, &j, &err);
	else if (rq->type == XFER_CHECK)
		r = serve_check(rq, &res, parts, &err);
	else
		r = wd_err_set(&err, WD_EFAIL, "a request of no known type");
	xfer_set_num(&res, XN_CODE, r);
	if (r < 0)
		res.str[XS_MESSAGE] = err.msg;
	if (rq->fd >= 0)
		close(rq->fd);
	rq->fd = -1;
	bool ok = xfer_send(SOCK, &res, -1) == 0;
	if (!ok && errno == EMSGSIZE) { /* an answer too long: its code alone */
		struct xfer_msg short_res;
		xfer_msg_init(&short_res, XFER_RESULT);
		xfer_set_num(&short_res, XN_CODE, r < 0 ? r : -WD_EFAIL);
		short_res.str[XS_MESSAGE] = "the transfer helper's answer is too long to send";
		ok = xfer_send(SOCK, &short_res, -1) == 0;
	}
	free(j.etag);
	free(j.last_modified);
	free(j.date);
	for (int i = 0; i < 4; i++)
		curl_free(parts[i]);
	return ok;
}

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* Landlock ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* Landlock ABI 3 */
#endif

/* Every right to change the file system by name, given up for good (with
 * no_new_privs, which Landlock needs): no file made, written by name,
 * truncated, removed, renamed or linked, no folder made or removed, nothing
 * run. Reading is left as it is. The Landlock ABI the kernel has, or 0
 * with *why (the helper then runs as before): "none (...)" when the kernel
 * has no Landlock (not built in, or off), "failed (...)" otherwise. */
static int sandbox(char *why, size_t n)
{
	*why = '\0';
	int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			       LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		snprintf(why, n, "none (no Landlock in this kernel: %s)", strerror(errno));
		return 0;
	}
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
			LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
			LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
			LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
			LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	/* no rule: what the ruleset handles is refused beneath every folder */
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, rs, 0)) {
		snprintf(why, n, "failed (%s)", strerror(errno));
		if (rs >= 0)
			close(rs);
		return 0;
	}
	close(rs);
	return abi;
}

/* The calls Landlock leaves open that no transfer makes, refused (EPERM)
 * with a seccomp filter (libseccomp): a file's mode, owner, times or
 * attributes changed by any name or descriptor; another process reached
 * (kill, ptrace, its memory); the mounts, the root, modules, the swap, a
 * reboot. 0, or -1 with *why. Names the running kernel's libseccomp does
 * not know are passed over. Under AddressSanitizer ptrace stays (its leak
 * check at exit attaches to the process's own threads). */
static int deny_calls(char *why, size_t n)
{
	static const char *const calls[] = {
		"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown",
		"fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
		"lremovexattr", "fremovexattr", "utime", "utimes", "utimensat", "futimesat",
		"kill", "process_vm_readv", "process_vm_writev", "mount", "umount2",
		"pivot_root", "chroot", "init_module", "finit_module", "delete_module",
		"kexec_load", "kexec_file_load", "swapon", "swapoff", "reboot",
#ifndef __SANITIZE_ADDRESS__
		"ptrace",
#endif
	};
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int r = f ? 0 : -ENOMEM;
	for (size_t i = 0; !r && i < sizeof calls / sizeof *calls; i++) {
		int nr = seccomp_syscall_resolve_name(calls[i]);
		if (nr != __NR_SCMP_ERROR)
			r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	if (!r)
		r = seccomp_load(f);
	if (r)
		snprintf(why, n, "seccomp failed (%s)", strerror(-r));
	seccomp_release(f);
	return r ? -1 : 0;
}

/* Test builds: WARPDRV_FETCH_PROBE=PATH (a file of the test's) makes the
 * helper say on standard error what its sandbox is, and whether it could
 * create PATH.new and change PATH's mode once the sandbox is set. */
static void probe(int abi, const char *why, bool filtered)
{
	const char *path = wd_test_hook("WARPDRV_FETCH_PROBE");
	if (!path || !*path)
		return;
	if (abi)
		fprintf(stderr, "warpdrv-fetch: sandbox: Landlock ABI %d%s\n", abi,
			filtered ? ", seccomp" : "");
	else
		fprintf(stderr, "warpdrv-fetch: sandbox: %s%s\n", why, filtered ? ", seccomp" : "");
	char *made = wd_xasprintf("%s.new", path);
	int fd = open(made, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600); /* host: the test's */
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "warpdrv-fetch: probe: create %s %s (%s)\n", made,
		fd >= 0 ? "done" : "refused", fd >= 0 ? "" : strerror(errno));
	int c = chmod(path, 0666); /* host: the test's */
	fprintf(stderr, "warpdrv-fetch: probe: chmod %s %s (%s)\n", path, c ? "refused" : "done",
		c ? strerror(errno) : "");
	free(made);
}

int main(int argc, char **argv)
{
	int type = 0;
	socklen_t tl = sizeof type;
	if (getsockopt(SOCK, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_SEQPACKET) {
		fprintf(stderr, "warpdrv-fetch: warpdrv's transfer helper: warpdrv starts it for "
			"its downloads; it is not run by hand\n");
		return 2;
	}
	closefrom(3); /* whatever warpdrv held open is not the helper's */
	if (argc != 3 || strtol(argv[2], NULL, 10) != XFER_VERSION) {
		fprintf(stderr, "warpdrv-fetch: this helper speaks version %d of warpdrv's messages, "
			"warpdrv another (%s): install warpdrv and its helper together\n",
			XFER_VERSION, argc == 3 ? argv[2] : "none given");
		return 2;
	}
	/* Ends with warpdrv, even in the middle of a transfer. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != (pid_t)strtol(argv[1], NULL, 10))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	char why[200], why2[200] = "";
	int abi = sandbox(why, sizeof why);
	bool filtered = deny_calls(why2, sizeof why2) == 0;
	if (!filtered)
		fprintf(stderr, "warpdrv-fetch: %s; going on without it\n", why2);
	probe(abi, why, filtered);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "warpdrv-fetch: cannot start libcurl\n");
		return 1;
	}
	int r = 0;
	for (;;) {
		struct xfer_msg rq;
		int got = xfer_recv(SOCK, &rq);
		if (got <= 0) {
			if (got < 0)
				fprintf(stderr, "warpdrv-fetch: a request that does not parse: %s\n",
					strerror(errno));
			r = got < 0;
			break;
		}
		if (!serve(&rq))
			break;
	}
	curl_global_cleanup();
	return r;
}
