/* The socket helpers both netio protocols use (netbench/netio_sock.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "netbench/netio_sock.h"

double netio_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool netio_block_ok(uint32_t b)
{
	return b >= NETIO_PEER_MIN_BLOCK && b <= NETIO_PEER_MAX_BLOCK;
}

/* Enough of what a foreign peer sent for the user to recognise an HTTP or
 * SSH server. */
void netio_describe(const unsigned char *p, size_t n, char *out, size_t cap)
{
	size_t k = n < 16 ? n : 16;
	bool text = k > 0;
	for (size_t i = 0; i < k; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			text = p[i] == '\r' || p[i] == '\n' ? text : false;
	size_t o = 0;
	if (text) {
		o += (size_t)snprintf(out, cap, "\"");
		for (size_t i = 0; i < k && o + 3 < cap; i++)
			out[o++] = p[i] >= 0x20 ? (char)p[i] : ' ';
		snprintf(out + o, cap - o, "\"");
		return;
	}
	out[0] = '\0';
	for (size_t i = 0; i < k && o + 4 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%s%02x", i ? " " : "", p[i]);
}

void netio_peer_name(const struct sockaddr *sa, socklen_t len, char *out, size_t n)
{
	char h[NI_MAXHOST], s[NI_MAXSERV];
	if (getnameinfo(sa, len, h, sizeof h, s, sizeof s, NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, n, "?");
		return;
	}
	snprintf(out, n, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, s);
}

void netio_set_bufs(int fd)
{
	int v = NETIO_SOCKBUF;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
}

void netio_set_stream_opts(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = {NETIO_TIMEOUT_MS / 1000, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct timeval look = {0, NETIO_LOOK_MS * 1000};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &look, sizeof look);
}

void netio_set_dgram_opts(int fd)
{
	struct timeval tv = {0, NETIO_UDP_LOOK_US};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

unsigned char *netio_data_block(size_t n)
{
	unsigned char *b = wd_xmalloc(n ? n : 1);
	uint32_t x = 0x9e3779b9u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)(x >> 24);
	}
	b[0] = 0;
	return b;
}

void netio_set_dir(struct netio_dir *d, uint64_t bytes, double secs)
{
	d->set = true;
	d->bytes = bytes;
	d->secs = secs > 1e-9 ? secs : 1e-9;
	d->rate = (double)bytes / d->secs;
}

void netio_phase(char *out, size_t n, int block, char dir, enum netio_proto proto)
{
	char label[16];
	netio_block_label(block, label, sizeof label);
	snprintf(out, n, "the %s %s test%s", label, dir == 'T' ? "Tx" : "Rx",
		 proto == NETIO_UDP ? " (UDP)" : "");
}

/* ------------------------------------------------------------ conn */

void conn_init(struct conn *c, int fd)
{
	memset(c, 0, sizeof *c);
	c->fd = fd;
	c->in = wd_xmalloc(NETIO_INBUF);
}

void conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	c->in = NULL;
	c->fd = -1;
}

int conn_closed_or_foreign(struct conn *c, struct wd_err *err)
{
	if (c->end == NETIO_INBUF)
		c->start = c->end = 0; /* unread leftovers matter less than the news */
	ssize_t n = recv(c->fd, c->in + c->end, NETIO_INBUF - c->end, MSG_DONTWAIT);
	if (n > 0) {
		char d[80];
		netio_describe(c->in + c->end, (size_t)n, d, sizeof d);
		return wd_err_set(err, WD_EFAIL, "%s does not speak netio: it sent %s during %s",
				  c->who, d, c->phase);
	}
	return wd_err_set(err, WD_EFAIL, "%s closed the connection during %s", c->who, c->phase);
}

int conn_io_fail(struct conn *c, int e, struct wd_err *err)
{
	if (e == EAGAIN || e == EWOULDBLOCK)
		return wd_err_set(err, WD_EFAIL, "%s made no progress for %d s during %s; "
				  "is it a netio peer?", c->who, NETIO_TIMEOUT_MS / 1000, c->phase);
	if (e == EPIPE || e == ECONNRESET)
		return conn_closed_or_foreign(c, err);
	return wd_err_set(err, WD_EFAIL, "connection to %s failed during %s: %s", c->who,
			  c->phase, strerror(e));
}

/* More input; the buffer is compacted first. */
int conn_fill(struct conn *c, struct wd_err *err)
{
	if (c->start == c->end)
		c->start = c->end = 0;
	if (c->end == NETIO_INBUF) {
		memmove(c->in, c->in + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->end, NETIO_INBUF - c->end, 0);
		if (n > 0) {
			c->end += (size_t)n;
			return 0;
		}
		if (n == 0)
			return wd_err_set(err, WD_EFAIL, "%s closed the connection during %s",
					  c->who, c->phase);
		if (errno != EINTR)
			return conn_io_fail(c, errno, err);
	}
}

int conn_read(struct conn *c, void *out, size_t n, struct wd_err *err)
{
	unsigned char *o = out;
	while (n) {
		int r;
		if (c->start == c->end && (r = conn_fill(c, err)))
			return r;
		size_t k = c->end - c->start < n ? c->end - c->start : n;
		memcpy(o, c->in + c->start, k);
		c->start += k;
		o += k;
		n -= k;
	}
	return 0;
}

int conn_send_all(struct conn *c, const void *p, size_t n, struct wd_err *err)
{
	const char *s = p;
	double stalled = 0; /* when the sends stopped making progress */
	while (n) {
		ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return conn_io_fail(c, errno, err);
			/* The peer takes nothing: one that speaks instead is no netio peer. */
			int r = conn_peer_spoke(c, err);
			if (r)
				return r;
			double now = netio_now();
			if (stalled == 0)
				stalled = now - NETIO_LOOK_MS / 1000.0;
			else if (now - stalled >= NETIO_TIMEOUT_MS / 1000.0)
				return conn_io_fail(c, EAGAIN, err);
			continue;
		}
		stalled = 0;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int conn_send_ctl(struct conn *c, uint32_t cmd, uint32_t data, struct wd_err *err)
{
	unsigned char m[8];
	netio_put_ctl(m, cmd, data);
	return conn_send_all(c, m, sizeof m, err);
}

/* A netio peer says nothing while it receives our blocks: anything it sends
 * (or its closing) means it is something else or has gone. */
int conn_peer_spoke(struct conn *c, struct wd_err *err)
{
	struct pollfd p = {c->fd, POLLIN, 0};
	if (poll(&p, 1, 0) <= 0)
		return 0;
	return conn_closed_or_foreign(c, err);
}

int conn_foreign_ctl(struct conn *c, const unsigned char m[8], const char *due,
		     struct wd_err *err)
{
	/* Show what came after the 8 bytes too: "GET / HTTP/1.0" says more. */
	unsigned char sample[16];
	size_t more = c->end - c->start < 8 ? c->end - c->start : 8;
	memcpy(sample, m, 8);
	memcpy(sample + 8, c->in + c->start, more);
	char d[80];
	netio_describe(sample, 8 + more, d, sizeof d);
	return wd_err_set(err, WD_EFAIL, "%s does not speak netio: it sent %s where %s was due",
			  c->who, d, due);
}

/* ------------------------------------------------------------ connect, listen */

/* Connect with a time limit: an unreachable host should not hang the user
 * for the system's two-minute default. */
static int connect_timed(int fd, const struct sockaddr *sa, socklen_t len, int *e)
{
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	int r = connect(fd, sa, len);
	if (r < 0 && errno == EINPROGRESS) {
		struct pollfd p = {fd, POLLOUT, 0};
		int n;
		do
			n = poll(&p, 1, NETIO_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		if (n == 0) {
			*e = ETIMEDOUT;
			return -1;
		}
		socklen_t sl = sizeof *e;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, e, &sl);
		r = *e ? -1 : 0;
	} else if (r < 0) {
		*e = errno;
	}
	fcntl(fd, F_SETFL, fl);
	return r;
}

static int resolve(const char *host, int port, int socktype, int flags, struct addrinfo **res,
		   struct wd_err *err)
{
	struct addrinfo hints = {0};
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = flags;
	char ps[16];
	snprintf(ps, sizeof ps, "%d", port);
	int g = getaddrinfo(host, ps, &hints, res);
	if (g)
		return wd_err_set(err, WD_EFAIL, "cannot find host %s: %s", host ? host : "*",
				  gai_strerror(g));
	return 0;
}

static int connect_fail(const char *host, int port, const char *what, int e,
			struct wd_err *err)
{
	if (e == ECONNREFUSED)
		return wd_err_set(err, WD_EFAIL, "nothing listens on %s %d at %s: start "
				  "`warpdrv bench server` (or netio -s) there", what, port, host);
	if (e == ETIMEDOUT)
		return wd_err_set(err, WD_EFAIL, "no answer from %s %s %d within %d s: the "
				  "host is down or a firewall drops the packets", host, what, port,
				  NETIO_TIMEOUT_MS / 1000);
	return wd_err_set(err, WD_EFAIL, "cannot reach %s %s %d: %s", host, what, port,
			  strerror(e));
}

static int bind_local(int s, const char *bind_addr, int family, int *e)
{
	struct addrinfo *res;
	struct wd_err ignored = {0};
	if (resolve(bind_addr, 0, SOCK_STREAM, AI_NUMERICHOST | AI_PASSIVE, &res, &ignored)) {
		*e = EADDRNOTAVAIL;
		return -1;
	}
	int r = -1;
	for (struct addrinfo *a = res; a && r < 0; a = a->ai_next)
		if (a->ai_family == family)
			r = bind(s, a->ai_addr, a->ai_addrlen);
	*e = r < 0 ? (errno ? errno : EAFNOSUPPORT) : 0;
	freeaddrinfo(res);
	return r;
}

int netio_tcp_connect(const char *host, int port, const char *bind_addr, const char *what,
		      int *fd, struct wd_err *err)
{
	struct addrinfo *res;
	int r = resolve(host, port, SOCK_STREAM, 0, &res, err);
	if (r)
		return r;
	int e = ECONNREFUSED;
	*fd = -1;
	for (struct addrinfo *a = res; a && *fd < 0; a = a->ai_next) {
		int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (s < 0) {
			e = errno;
			continue;
		}
		netio_set_bufs(s);
		if ((!bind_addr || bind_local(s, bind_addr, a->ai_family, &e) == 0) &&
		    connect_timed(s, a->ai_addr, a->ai_addrlen, &e) == 0)
			*fd = s;
		else
			close(s);
	}
	freeaddrinfo(res);
	if (*fd < 0 && bind_addr && e != ECONNREFUSED && e != ETIMEDOUT)
		return wd_err_set(err, WD_EFAIL, "cannot connect from --bind %s to %s %s %d: %s",
				  bind_addr, host, what, port, strerror(e));
	if (*fd < 0)
		return connect_fail(host, port, what, e, err);
	netio_set_stream_opts(*fd);
	return 0;
}

int netio_listen_on(const char *bind_addr, int port, int type, int *fd, struct wd_err *err)
{
	struct addrinfo *res;
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	if (resolve(bind_addr, port, type, AI_PASSIVE | AI_NUMERICSERV, &res, err))
		return -WD_EFAIL;
	int s = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	int e = s < 0 ? errno : 0;
	if (s >= 0) {
		int one = 1;
		if (type == SOCK_STREAM)
			setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		netio_set_bufs(s);
		if (type == SOCK_DGRAM)
			netio_set_dgram_opts(s);
		if (bind(s, res->ai_addr, res->ai_addrlen) < 0 ||
		    (type == SOCK_STREAM && listen(s, 8) < 0)) {
			e = errno;
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
	const char *where = bind_addr ? bind_addr : "every address";
	if (s < 0) {
		if (e == EADDRINUSE)
			return wd_err_set(err, WD_EFAIL, "%s port %d is in use on %s (another netio "
					  "server or client?); stop it or choose another with --port",
					  proto, port, where);
		return wd_err_set(err, WD_EFAIL, "cannot listen on %s port %d of %s: %s", proto,
				  port, where, strerror(e));
	}
	*fd = s;
	return 0;
}
