/* The transfers of catalog/fetch.h, made by the transfer helper
 * warpdrv-fetch (xfer/warpdrv_fetch.c, the one program linked with
 * libcurl), started on the first transfer and kept for the run's others. */
#define _GNU_SOURCE
#include "catalog/fetch_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hooks.h"
#include "trust/keys.h"
#include "xfer/proto.h"

#define HELPER "warpdrv-fetch"
#ifndef WD_LIBEXECDIR
#define WD_LIBEXECDIR "/usr/local/libexec/warpdrv"
#endif

extern char **environ;

static struct {
	pid_t pid;
	int sock;
	bool at_exit;
} helper = {0, -1, false};

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

/* Where the helper is, by the rule of the program's data (ui/out.c):
 * beside the running program (the build folder), then in libexec/warpdrv
 * beside its bin/ (an installed tree, wherever it was unpacked), then where
 * `make install` was told (LIBEXECDIR). A copy to free. */
static char *helper_path(void)
{
	const char *hook = wd_test_hook("WARPDRV_FETCH_HELPER");
	if (hook && *hook)
		return wd_xstrdup(hook);
	char *dir = wd_exe_dir();
	if (dir) {
		char *cand[] = {wd_xasprintf("%s/" HELPER, dir),
				wd_xasprintf("%s/../libexec/warpdrv/" HELPER, dir)};
		free(dir);
		char *found = NULL;
		for (size_t i = 0; i < 2; i++) {
			if (!found && !access(cand[i], X_OK)) /* host: the program's own files */
				found = cand[i];
			else
				free(cand[i]);
		}
		if (found)
			return found;
	}
	return wd_xstrdup(WD_LIBEXECDIR "/" HELPER);
}

/* The helper ended: its socket closed, its exit collected ("exit N" or
 * "signal N" into why). stop: it may be in the middle of a transfer (it
 * answered nonsense), and is killed rather than waited for; else it ends
 * on its own at the socket's close. */
static void helper_reap(bool stop, char *why, size_t n)
{
	if (helper.sock >= 0)
		close(helper.sock);
	helper.sock = -1;
	int st = 0;
	snprintf(why, n, "ended");
	if (stop && helper.pid > 0)
		kill(helper.pid, SIGKILL);
	if (helper.pid > 0 && waitpid(helper.pid, &st, 0) == helper.pid) {
		if (WIFEXITED(st))
			snprintf(why, n, "ended with exit %d", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			snprintf(why, n, "was killed by signal %d", WTERMSIG(st));
	}
	helper.pid = 0;
}

/* At the run's end: the socket closed, which ends the helper. */
static void helper_stop(void)
{
	char why[64];
	if (helper.pid > 0)
		helper_reap(false, why, sizeof why);
}

/* posix_spawn's settings: the socket on the helper's standard input, its
 * standard output discarded (warpdrv's may be JSON), no signal blocked, and
 * a process group of its own: a Ctrl-C or a hang-up is warpdrv's to handle
 * (held back in a transaction, ignored under nohup), and the helper ends
 * with warpdrv (the socket's close, or PR_SET_PDEATHSIG). The helper is
 * told warpdrv's process ID and the messages' version (xfer/proto.h). */
static int spawn(const char *path, int sock, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	char parent[24], version[12];
	snprintf(parent, sizeof parent, "%ld", (long)getpid());
	snprintf(version, sizeof version, "%d", XFER_VERSION);
	char *argv[] = {(char *)HELPER, parent, version, NULL};
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sock, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	int e = posix_spawn(pid, path, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return e;
}

/* The helper, started unless it runs. url names the transfer in a message. */
static int helper_start(const char *url, struct wd_err *err)
{
	if (helper.pid > 0)
		return 0;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot start the transfer helper: %s", url,
				  strerror(errno));
	char *path = helper_path();
	pid_t pid;
	int e = spawn(path, sv[1], &pid);
	close(sv[1]);
	if (e) {
		close(sv[0]);
		bool missing = e == ENOENT || e == EACCES || e == ENOEXEC;
		wd_err_set(err, WD_EFAIL, "%s: cannot start the transfer helper %s: %s%s", url, path,
			   strerror(e), missing ? " (warpdrv's installation is incomplete: install "
			   "it again)" : "");
		free(path);
		return -WD_EFAIL;
	}
	free(path);
	helper.pid = pid;
	helper.sock = sv[0];
	if (!helper.at_exit)
		helper.at_exit = atexit(helper_stop) == 0;
	return 0;
}

void fetch_preload(void)
{
	struct wd_err ignore;
	helper_start("", &ignore); /* libcurl loads in the helper meanwhile */
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

/* Sends rq (with fd) to a running helper: 0, an error, or GONE: the helper
 * had ended before the request (it is collected). */
#define GONE 1
static int send_request(const char *url, struct xfer_msg *rq, int fd, struct wd_err *err)
{
	int r = helper_start(url, err);
	if (r)
		return r;
	if (xfer_send(helper.sock, rq, fd) == 0)
		return 0;
	if (errno == EMSGSIZE)
		return wd_err_set(err, WD_EFAIL, "%s: the request is too long for the transfer "
				  "helper (over %d bytes with its URL)", url, XFER_MSG_MAX);
	if (errno != EPIPE)
		return wd_err_set(err, WD_EFAIL, "%s: cannot ask the transfer helper: %s", url,
				  strerror(errno));
	char why[64];
	helper_reap(false, why, sizeof why);
	return GONE;
}

/* Sends rq and reads the helper's messages up to its result (progress to
 * net); 0 with *res, or an error. A helper that had ended before the
 * request (killed while idle) is replaced once; one that ends or answers
 * nonsense during it is collected (killed if need be), and the next
 * transfer starts another. */
static int exchange(const struct fetch_net *net, const char *label, const char *url,
		    struct xfer_msg *rq, int fd, struct xfer_msg *res, struct wd_err *err)
{
	int r = send_request(url, rq, fd, err);
	if (r == GONE)
		r = send_request(url, rq, fd, err);
	if (r == GONE)
		return wd_err_set(err, WD_EFAIL, "%s: the transfer helper " HELPER " ended before "
				  "the request, twice", url);
	if (r)
		return r;
	for (;;) {
		int got = xfer_recv(helper.sock, res);
		if (got > 0 && res->fd >= 0)
			close(res->fd);
		if (got > 0 && res->type == XFER_RESULT)
			return 0;
		if (got > 0 && res->type == XFER_PROGRESS) {
			if (net && net->progress)
				net->progress(net->ud, label, (uint64_t)res->num[XN_HAVE],
					      (uint64_t)res->num[XN_TOTAL]);
			continue;
		}
		/* ended (a request left unread is a reset), or nonsense */
		bool ended = got == 0 || (got < 0 && errno == ECONNRESET);
		char why[64];
		helper_reap(!ended, why, sizeof why);
		return wd_err_set(err, WD_EFAIL, "%s: the transfer helper " HELPER " %s "
				  "during the transfer", url, ended ? why : "answered nonsense");
	}
}

static long or_default(long v, long def)
{
	return v > 0 ? v : def;
}

/* A result's code: 0, XFER_FROM_START (only where a range was asked for:
 * range), or an error with its message; anything else is the helper's
 * fault, not the server's answer. */
static int result_error(const struct xfer_msg *res, const char *url, bool range,
			struct wd_err *err)
{
	int64_t code = res->num[XN_CODE];
	if (!res->has_num[XN_CODE] || code > XFER_FROM_START || code < -WD_ENODEV ||
	    (code == XFER_FROM_START && !range))
		return wd_err_set(err, WD_EFAIL, "%s: the transfer helper answered nonsense "
				  "(code %lld)", url, (long long)code);
	if (code >= 0)
		return (int)code;
	return wd_err_set(err, (int)-code, "%s", res->str[XS_MESSAGE] ? res->str[XS_MESSAGE]
			  : url);
}

/* A memory download's bytes, from the file the helper wrote. */
static int read_back(int fd, struct fetch_sink *s, const char *url, struct wd_err *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != s->have || s->have > s->limit)
		return wd_err_set(err, WD_EFAIL, "%s: the transfer helper's file does not hold "
				  "the %llu bytes it reported", url, (unsigned long long)s->have);
	wd_buf_reserve(s->mem, (size_t)s->have + 1);
	for (uint64_t off = 0; off < s->have;) {
		ssize_t n = pread(fd, s->mem->p + off, (size_t)(s->have - off), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return wd_err_set(err, WD_EFAIL, "%s: cannot read the download back: %s", url,
					  n < 0 ? strerror(errno) : "short");
		off += (uint64_t)n;
	}
	s->mem->len = (size_t)s->have;
	return 0;
}

/* The request of one transfer into s. */
static void fetch_request(struct xfer_msg *rq, const struct fetch_net *net, const char *url,
			  const struct fetch_auth *auth, const struct fetch_sink *s)
{
	xfer_msg_init(rq, XFER_FETCH);
	rq->str[XS_URL] = url;
	if (auth) {
		rq->str[XS_USER] = auth->user;
		rq->str[XS_PASSWORD] = auth->password;
	}
	rq->str[XS_CACERT] = net ? net->cacert : NULL;
	if (s->cond && s->cond->etag)
		rq->str[XS_ETAG] = s->cond->etag;
	else if (s->cond)
		rq->str[XS_LAST_MODIFIED] = s->cond->last_modified;
	xfer_set_num(rq, XN_CONNECT_TIMEOUT,
		     or_default(net ? net->connect_timeout : 0, FETCH_CONNECT_TIMEOUT));
	xfer_set_num(rq, XN_SPEED_LIMIT, or_default(net ? net->speed_limit : 0, FETCH_SPEED_LIMIT));
	xfer_set_num(rq, XN_SPEED_TIME, or_default(net ? net->speed_time : 0, FETCH_SPEED_TIME));
	xfer_set_num(rq, XN_MAX_TIME, or_default(net ? net->max_time : 0, FETCH_MAX_TIME));
	xfer_set_num(rq, XN_START, (int64_t)s->start);
	xfer_set_num(rq, XN_LIMIT, (int64_t)s->limit);
	xfer_set_num(rq, XN_TOTAL, (int64_t)s->total);
	xfer_set_num(rq, XN_PROGRESS, net && net->progress);
}

/* The answer's validators into the caller's fetch_cond. */
static void take_validators(struct fetch_cond *c, const struct xfer_msg *res)
{
	free(c->new_etag);
	free(c->new_last_modified);
	c->new_etag = res->str[XS_ETAG] ? wd_xstrdup(res->str[XS_ETAG]) : NULL;
	c->new_last_modified =
		res->str[XS_LAST_MODIFIED] ? wd_xstrdup(res->str[XS_LAST_MODIFIED]) : NULL;
}

int fetch_remote(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		 struct fetch_sink *s, struct wd_err *err)
{
	int fd = s->fd;
	if (s->mem && (fd = memfd_create("warpdrv-download", MFD_CLOEXEC)) < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot hold the download: %s", url,
				  strerror(errno));
	struct xfer_msg rq, res;
	fetch_request(&rq, net, url, auth, s);
	int r = exchange(net, s->label, url, &rq, fd, &res, err);
	if (!r) {
		s->status = (long)res.num[XN_STATUS];
		s->have = (uint64_t)res.num[XN_HAVE];
		if (s->cond)
			take_validators(s->cond, &res);
		r = result_error(&res, url, s->start > 0, err);
		if (!r && s->mem)
			r = read_back(fd, s, url, err);
	}
	if (net && net->finished) /* the bar cleared whatever happened */
		net->finished(net->ud, s->label, r < 0 ? r : 0);
	if (s->mem)
		close(fd);
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

/* The rule on a URL's parts (libcurl's parse, in the helper). */
static int judge_url(const char *shown, const struct xfer_msg *res, struct wd_err *err)
{
	const char *scheme = res->str[XS_SCHEME], *host = res->str[XS_HOST];
	bool web = scheme && (!strcmp(scheme, "http") || !strcmp(scheme, "https"));
	if (res->num[XN_CODE] == -WD_EUSAGE)
		return wd_err_set(err, WD_EUSAGE, "%s: not a URL (libcurl: %s); expected "
				  "http://HOST/..., https://HOST/..., file:///FOLDER or a folder",
				  shown, res->str[XS_MESSAGE] ? res->str[XS_MESSAGE] : "?");
	if (res->num[XN_CODE] != 0)
		return result_error(res, shown, false, err);
	if (!web && (!scheme || strcmp(scheme, "file")))
		return wd_err_set(err, WD_EUSAGE, "%s: the scheme %s is not one warpdrv reads; "
				  "expected http://, https://, file:// or a folder", shown,
				  scheme ? scheme : "(none)");
	if (web && (!host || !*host))
		return wd_err_set(err, WD_EUSAGE, "%s: no host in it; expected %s://HOST/PATH",
				  shown, scheme);
	if (res->num[XN_CREDS])
		return wd_err_set(err, WD_EUSAGE, "%s: a user name or password in a repository "
				  "URL is refused (it would be stored and shown); a subscription "
				  "repository (--subscription) is sent the activated key instead",
				  shown);
	return 0;
}

int fetch_url_check(const char *url, struct wd_err *err)
{
	char *shown = fetch_url_redacted(url);
	struct xfer_msg rq, res;
	xfer_msg_init(&rq, XFER_CHECK);
	rq.str[XS_URL] = url;
	int r = exchange(NULL, NULL, shown, &rq, -1, &res, err);
	if (!r)
		r = judge_url(shown, &res, err);
	free(shown);
	return r;
}
