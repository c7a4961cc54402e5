/* The netio wire protocol over sockets: a client and a one-client-at-a-time
 * server, TCP on the port and UDP on the port + 1.
 *
 * Control message: 8 bytes, two big-endian uint32 {cmd, data}. TCP: cmd 1
 * (data: block size) is followed by the client's blocks for its own
 * period, cmd 2 by the server's blocks for the server's period, cmd 0 ends the
 * run. Every block starts with byte 0; one block starting with byte 1 ends a
 * direction. The UDP dialogue (how control travels, acknowledgements, cmd 3)
 * is this project's rule, written down in docs/bench.md. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "netbench/netio.h"

#define SOCKBUF (128 * 1024)       /* netio's socket buffers */
#define IO_TIMEOUT_MS 10000        /* no progress for this long: the peer is gone */
#define CHUNK (256 * 1024)         /* bytes per receive call */
#define UDP_MAX 65536

enum { CMD_QUIT = 0, CMD_C2S = 1, CMD_S2C = 2, CMD_RESULT = 3 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put_ctl(unsigned char m[8], uint32_t cmd, uint32_t data)
{
	uint32_t a = htonl(cmd), b = htonl(data);
	memcpy(m, &a, 4);
	memcpy(m + 4, &b, 4);
}

static void get_ctl(const unsigned char m[8], uint32_t *cmd, uint32_t *data)
{
	uint32_t a, b;
	memcpy(&a, m, 4);
	memcpy(&b, m + 4, 4);
	*cmd = ntohl(a);
	*data = ntohl(b);
}

static bool block_ok(uint32_t b)
{
	return b >= NETIO_MIN_BLOCK && b <= NETIO_MAX_BLOCK;
}

/* The first bytes a foreign peer sent, quoted when printable, else in hex:
 * enough for the user to recognise an HTTP or SSH server. */
static void describe(const unsigned char *p, size_t n, char *out, size_t cap)
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

static void peer_name(const struct sockaddr *sa, socklen_t len, char *out, size_t n)
{
	char h[NI_MAXHOST], s[NI_MAXSERV];
	if (getnameinfo(sa, len, h, sizeof h, s, sizeof s, NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, n, "?");
		return;
	}
	snprintf(out, n, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, s);
}

static void set_bufs(int fd)
{
	int v = SOCKBUF;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
}

static void set_stream_opts(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = {IO_TIMEOUT_MS / 1000, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* ---------------------------------------------------------------- TCP */

/* A TCP connection with buffered input, so that reading blocks in large
 * pieces never swallows the control message that follows them. */
struct conn {
	int fd;
	char who[300];        /* "the server 10.0.0.2:18767", "client 10.0.0.5:1042" */
	char phase[64];       /* "the 4k Tx test" */
	unsigned char *in;
	size_t start, end;
};

static int closed_or_foreign(struct conn *c, struct wd_err *err)
{
	if (c->end == CHUNK)
		c->start = c->end = 0; /* unread leftovers matter less than the news */
	ssize_t n = recv(c->fd, c->in + c->end, CHUNK - c->end, MSG_DONTWAIT);
	if (n > 0) {
		char d[80];
		describe(c->in + c->end, (size_t)n, d, sizeof d);
		return wd_err_set(err, WD_EFAIL, "%s does not speak netio: it sent %s during %s",
				  c->who, d, c->phase);
	}
	return wd_err_set(err, WD_EFAIL, "%s closed the connection during %s", c->who, c->phase);
}

static int io_fail(struct conn *c, int e, struct wd_err *err)
{
	if (e == EAGAIN || e == EWOULDBLOCK)
		return wd_err_set(err, WD_EFAIL, "%s made no progress for %d s during %s; "
				  "is it a netio peer?", c->who, IO_TIMEOUT_MS / 1000, c->phase);
	if (e == EPIPE || e == ECONNRESET)
		return closed_or_foreign(c, err);
	return wd_err_set(err, WD_EFAIL, "connection to %s failed during %s: %s", c->who,
			  c->phase, strerror(e));
}

/* More input; the buffer is compacted first. */
static int conn_fill(struct conn *c, struct wd_err *err)
{
	if (c->start == c->end)
		c->start = c->end = 0;
	if (c->end == CHUNK) {
		memmove(c->in, c->in + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->end, CHUNK - c->end, 0);
		if (n > 0) {
			c->end += (size_t)n;
			return 0;
		}
		if (n == 0)
			return wd_err_set(err, WD_EFAIL, "%s closed the connection during %s",
					  c->who, c->phase);
		if (errno != EINTR)
			return io_fail(c, errno, err);
	}
}

static int conn_read(struct conn *c, void *out, size_t n, struct wd_err *err)
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

static int conn_send_all(struct conn *c, const void *p, size_t n, struct wd_err *err)
{
	const char *s = p;
	while (n) {
		ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return io_fail(c, errno, err);
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int conn_send_ctl(struct conn *c, uint32_t cmd, uint32_t data, struct wd_err *err)
{
	unsigned char m[8];
	put_ctl(m, cmd, data);
	return conn_send_all(c, m, sizeof m, err);
}

/* A netio peer says nothing while it receives our blocks: anything it sends
 * (or its closing) means it is something else or has gone. */
static int peer_spoke(struct conn *c, struct wd_err *err)
{
	struct pollfd p = {c->fd, POLLIN, 0};
	if (poll(&p, 1, 0) <= 0)
		return 0;
	return closed_or_foreign(c, err);
}

static void set_dir(struct netio_dir *d, uint64_t bytes, double secs)
{
	d->set = true;
	d->bytes = bytes;
	d->secs = secs > 1e-9 ? secs : 1e-9;
	d->rate = (double)bytes / d->secs;
}

/* Waits until the socket takes more. The peer speaking up meanwhile means
 * it is not a netio peer (one never talks while it receives). */
static int wait_writable(struct conn *c, struct wd_err *err)
{
	struct pollfd p = {c->fd, POLLIN | POLLOUT, 0};
	int n;
	do
		n = poll(&p, 1, IO_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return io_fail(c, EAGAIN, err);
	if (p.revents & (POLLIN | POLLERR | POLLHUP))
		return closed_or_foreign(c, err);
	return 0;
}

/* Sends whole blocks for `seconds`, then the end block. One send per block,
 * as netio does: the block size is what the test varies, and with
 * TCP_NODELAY each send is pushed on its own. */
static int tcp_send_blocks(struct conn *c, int block, double seconds, struct netio_dir *d,
			   struct wd_err *err)
{
	unsigned char *buf = wd_xcalloc((size_t)block, 1); /* zeros: a data block starts with 0 */
	double t0 = now(), deadline = t0 + seconds;
	uint64_t pos = 0, checked = 0;
	int r = 0;
	for (;;) {
		size_t off = (size_t)(pos % (uint64_t)block);
		if (off == 0 && now() >= deadline)
			break;
		ssize_t w = send(c->fd, buf + off, (size_t)block - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if ((r = wait_writable(c, err)))
					goto out;
				continue;
			}
			r = io_fail(c, errno, err);
			goto out;
		}
		pos += (uint64_t)w;
		if (pos - checked >= CHUNK) { /* now and then, not per block: it is a system call */
			checked = pos;
			if ((r = peer_spoke(c, err)))
				goto out;
		}
	}
	buf[0] = 1;
	if ((r = conn_send_all(c, buf, (size_t)block, err)))
		goto out;
	set_dir(d, pos, now() - t0);
out:
	free(buf);
	return r;
}

/* Reads blocks until the end block; *bytes counts the data blocks. */
static int tcp_recv_blocks(struct conn *c, int block, uint64_t *bytes, struct wd_err *err)
{
	uint64_t pos = 0;
	int r;
	for (;;) {
		if (c->start == c->end && (r = conn_fill(c, err)))
			return r;
		size_t in_block = (size_t)(pos % (uint64_t)block);
		if (in_block == 0) {
			unsigned char m = c->in[c->start];
			if (m == 1)
				break;
			if (m != 0) {
				char d[80];
				describe(c->in + c->start, c->end - c->start, d, sizeof d);
				return wd_err_set(err, WD_EFAIL, "%s does not speak netio: a block of "
						  "%s began with %s", c->who, c->phase, d);
			}
		}
		size_t avail = c->end - c->start, want = (size_t)block - in_block;
		size_t take = avail < want ? avail : want;
		c->start += take;
		pos += take;
	}
	/* The end block: read and drop it whole. */
	for (size_t left = (size_t)block; left;) {
		if (c->start == c->end && (r = conn_fill(c, err)))
			return r;
		size_t take = c->end - c->start < left ? c->end - c->start : left;
		c->start += take;
		left -= take;
	}
	*bytes = pos;
	return 0;
}

static void conn_init(struct conn *c, int fd)
{
	memset(c, 0, sizeof *c);
	c->fd = fd;
	c->in = wd_xmalloc(CHUNK);
}

static void conn_free(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	c->in = NULL;
	c->fd = -1;
}

static void set_phase(struct conn *c, int block, char dir)
{
	char label[16];
	netio_block_label(block, label, sizeof label);
	snprintf(c->phase, sizeof c->phase, "the %s %s test", label, dir == 'T' ? "Tx" : "Rx");
}

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
			n = poll(&p, 1, IO_TIMEOUT_MS);
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

static int resolve(const char *host, int port, int socktype, struct addrinfo **res,
		   struct wd_err *err)
{
	struct addrinfo hints = {0};
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	char ps[16];
	snprintf(ps, sizeof ps, "%d", port);
	int g = getaddrinfo(host, ps, &hints, res);
	if (g)
		return wd_err_set(err, WD_EFAIL, "cannot find host %s: %s", host, gai_strerror(g));
	return 0;
}

static int connect_fail(const char *host, int port, const char *proto, int e,
			struct wd_err *err)
{
	if (e == ECONNREFUSED)
		return wd_err_set(err, WD_EFAIL, "nothing listens on %s port %d at %s: start "
				  "`warpdrv bench server` (or netio -s) there", proto, port, host);
	if (e == ETIMEDOUT)
		return wd_err_set(err, WD_EFAIL, "no answer from %s %s port %d within %d s: the "
				  "host is down or a firewall drops the packets", host, proto, port,
				  IO_TIMEOUT_MS / 1000);
	return wd_err_set(err, WD_EFAIL, "cannot reach %s %s port %d: %s", host, proto, port,
			  strerror(e));
}

static int tcp_connect(const char *host, int port, int *fd, struct wd_err *err)
{
	struct addrinfo *res;
	int r = resolve(host, port, SOCK_STREAM, &res, err);
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
		set_bufs(s);
		if (connect_timed(s, a->ai_addr, a->ai_addrlen, &e) == 0)
			*fd = s;
		else
			close(s);
	}
	freeaddrinfo(res);
	if (*fd < 0)
		return connect_fail(host, port, "TCP", e, err);
	set_stream_opts(*fd);
	return 0;
}

static int tcp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		      struct netio_listing *out, struct wd_err *err)
{
	int fd;
	int r = tcp_connect(o->host, o->port, &fd, err);
	if (r)
		return r;
	struct conn c;
	conn_init(&c, fd);
	snprintf(c.who, sizeof c.who, "the server %s port %d", o->host, o->port);
	if (ev->note)
		ev->note(ev->arg, "TCP connection established.");
	for (int i = 0; i < NETIO_NSIZES; i++) {
		int bs = o->block ? o->block : netio_sizes[i];
		struct netio_result *res = &out->r[out->n];
		memset(res, 0, sizeof *res);
		res->block = bs;
		set_phase(&c, bs, 'T');
		if (ev->progress)
			ev->progress(ev->arg, bs, 'T');
		if ((r = conn_send_ctl(&c, CMD_C2S, (uint32_t)bs, err)) ||
		    (r = tcp_send_blocks(&c, bs, o->seconds, &res->tx, err)))
			break;
		set_phase(&c, bs, 'R');
		if (ev->progress)
			ev->progress(ev->arg, bs, 'R');
		double t0 = now();
		uint64_t got;
		if ((r = conn_send_ctl(&c, CMD_S2C, (uint32_t)bs, err)) ||
		    (r = tcp_recv_blocks(&c, bs, &got, err)))
			break;
		set_dir(&res->rx, got, now() - t0);
		out->n++;
		if (ev->result)
			ev->result(ev->arg, res);
		if (o->block)
			break;
	}
	if (!r) {
		snprintf(c.phase, sizeof c.phase, "the end of the run");
		r = conn_send_ctl(&c, CMD_QUIT, 0, err);
	}
	conn_free(&c);
	return r;
}

static int tcp_serve(struct netio_server *s, const struct netio_events *ev,
		     struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = accept(s->tcp_fd, (struct sockaddr *)&ss, &sl);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "cannot accept a client on TCP port %d: %s",
				  s->port, strerror(errno));
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	peer_name((struct sockaddr *)&ss, sl, peer, peer_len);
	set_bufs(fd);
	set_stream_opts(fd);
	struct conn c;
	conn_init(&c, fd);
	snprintf(c.who, sizeof c.who, "client %s", peer);
	if (ev->note) {
		char m[360];
		snprintf(m, sizeof m, "client %s connected (TCP)", peer);
		ev->note(ev->arg, m);
	}
	out->proto = NETIO_TCP;
	int r;
	for (;;) {
		unsigned char m[8];
		uint32_t cmd, bs;
		snprintf(c.phase, sizeof c.phase, "the wait for its next command");
		if ((r = conn_read(&c, m, sizeof m, err)))
			break;
		get_ctl(m, &cmd, &bs);
		if (cmd == CMD_QUIT)
			break;
		if ((cmd != CMD_C2S && cmd != CMD_S2C) || !block_ok(bs)) {
			/* Show what came after the 8 bytes too: "GET / HTTP/1.0" says more. */
			unsigned char sample[16];
			size_t more = c.end - c.start < 8 ? c.end - c.start : 8;
			memcpy(sample, m, 8);
			memcpy(sample + 8, c.in + c.start, more);
			char d[80];
			describe(sample, 8 + more, d, sizeof d);
			r = wd_err_set(err, WD_EFAIL, "%s does not speak netio: it sent %s where a "
				       "command was due", c.who, d);
			break;
		}
		struct netio_result *res = netio_find(out, (int)bs);
		if (!res) {
			if (out->n == NETIO_MAX_RESULTS) {
				r = wd_err_set(err, WD_EFAIL, "%s asked for more than %d block sizes",
					       c.who, NETIO_MAX_RESULTS);
				break;
			}
			res = &out->r[out->n++];
			memset(res, 0, sizeof *res);
			res->block = (int)bs;
		}
		set_phase(&c, (int)bs, cmd == CMD_C2S ? 'T' : 'R');
		if (ev->progress)
			ev->progress(ev->arg, (int)bs, cmd == CMD_C2S ? 'T' : 'R');
		if (cmd == CMD_C2S) {
			double t0 = now();
			uint64_t got;
			if ((r = tcp_recv_blocks(&c, (int)bs, &got, err)))
				break;
			set_dir(&res->tx, got, now() - t0);
		} else if ((r = tcp_send_blocks(&c, (int)bs, s->seconds, &res->rx, err))) {
			break;
		}
	}
	conn_free(&c);
	if (!r && out->n == 0)
		r = wd_err_set(err, WD_EFAIL, "client %s quit before any test", peer);
	return r;
}

/* ---------------------------------------------------------------- UDP */

struct udp {
	int fd;
	char who[300];
	char phase[64];
	unsigned char *buf; /* UDP_MAX */
};

/* One datagram within ms: its length, 0 on timeout, or a negative code. */
static int udp_recv(struct udp *u, int ms, size_t *len, struct wd_err *err)
{
	struct pollfd p = {u->fd, POLLIN, 0};
	int n = poll(&p, 1, ms < 0 ? 0 : ms);
	if (n < 0 && errno != EINTR)
		return wd_err_set(err, WD_EFAIL, "waiting for %s: %s", u->who, strerror(errno));
	if (n <= 0)
		return 0;
	ssize_t k = recv(u->fd, u->buf, UDP_MAX, MSG_DONTWAIT);
	if (k < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		if (errno == ECONNREFUSED)
			return wd_err_set(err, WD_EFAIL, "%s is not there any more (nothing "
					  "listens on its UDP port) during %s", u->who, u->phase);
		return wd_err_set(err, WD_EFAIL, "receiving from %s during %s: %s", u->who,
				  u->phase, strerror(errno));
	}
	*len = (size_t)k;
	return 1;
}

static int udp_send(struct udp *u, const void *p, size_t n, struct wd_err *err)
{
	for (;;) {
		if (send(u->fd, p, n, 0) >= 0)
			return 0;
		if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
			continue; /* a full queue drops the datagram; that is UDP */
		if (errno == ECONNREFUSED)
			return wd_err_set(err, WD_EFAIL, "%s is not there (nothing listens on its "
					  "UDP port) during %s", u->who, u->phase);
		return wd_err_set(err, WD_EFAIL, "sending to %s during %s: %s", u->who, u->phase,
				  strerror(errno));
	}
}

static int udp_send_ctl(struct udp *u, uint32_t cmd, uint32_t data, struct wd_err *err)
{
	unsigned char m[8];
	put_ctl(m, cmd, data);
	return udp_send(u, m, sizeof m, err);
}

/* A netio block of some size (starting with 0 or 1): late or repeated ones
 * from an earlier step are dropped rather than taken for a foreign peer. */
static bool is_block(const unsigned char *p, size_t n)
{
	return block_ok((uint32_t)n) && p[0] <= 1;
}

static int udp_foreign(struct udp *u, size_t n, struct wd_err *err)
{
	char d[80];
	describe(u->buf, n, d, sizeof d);
	return wd_err_set(err, WD_EFAIL, "%s does not speak netio: it sent a %zu-byte datagram "
			  "(%s) during %s", u->who, n, d, u->phase);
}

/* Sends msg and waits for the control answer `want`, sending again after
 * each silent wait (control datagrams may be lost like any other). */
static int udp_request(struct udp *u, const void *msg, size_t n, uint32_t want, int tries,
		       int wait_ms, uint32_t *data, struct wd_err *err)
{
	for (int t = 0; t < tries; t++) {
		int r = udp_send(u, msg, n, err);
		if (r)
			return r;
		double until = now() + wait_ms / 1000.0;
		for (;;) {
			int left = (int)((until - now()) * 1000);
			if (left <= 0)
				break;
			size_t len;
			if ((r = udp_recv(u, left, &len, err)) < 0)
				return r;
			if (r == 0)
				continue;
			uint32_t cmd;
			if (len == 8) {
				get_ctl(u->buf, &cmd, data);
				if (cmd == want)
					return 0;
			} else if (!is_block(u->buf, len)) {
				return udp_foreign(u, len, err);
			}
		}
	}
	return wd_err_set(err, WD_EFAIL, "no netio answer from %s during %s after %d tries: "
			  "is a netio server running there?", u->who, u->phase, tries);
}

/* Sends blocks for `seconds`; returns how many went out. */
static int udp_blast(struct udp *u, int block, double seconds, uint64_t *sent, double *secs,
		     struct wd_err *err)
{
	unsigned char *b = wd_xcalloc((size_t)block, 1);
	double t0 = now(), deadline = t0 + seconds;
	uint64_t k = 0;
	int r = 0;
	do {
		if ((r = udp_send(u, b, (size_t)block, err)))
			break;
		k++;
	} while (now() < deadline);
	*sent = k;
	*secs = now() - t0;
	free(b);
	return r;
}

static int udp_client_size(struct udp *u, int bs, const struct netio_client_opts *o,
			   const struct netio_events *ev, struct netio_result *res,
			   struct wd_err *err)
{
	memset(res, 0, sizeof *res);
	res->block = bs;
	char label[16];
	netio_block_label(bs, label, sizeof label);
	snprintf(u->phase, sizeof u->phase, "the %s Tx test", label);
	if (ev->progress)
		ev->progress(ev->arg, bs, 'T');
	unsigned char m[8];
	uint32_t data;
	put_ctl(m, CMD_C2S, (uint32_t)bs);
	int r = udp_request(u, m, sizeof m, CMD_C2S, 5, 500, &data, err);
	uint64_t sent;
	double secs;
	if (r || (r = udp_blast(u, bs, o->seconds, &sent, &secs, err)))
		return r;
	unsigned char *end = wd_xcalloc((size_t)bs, 1);
	end[0] = 1;
	r = udp_request(u, end, (size_t)bs, CMD_RESULT, 10, 300, &data, err);
	free(end);
	if (r)
		return r;
	set_dir(&res->tx, (uint64_t)data * (uint64_t)bs, secs);

	snprintf(u->phase, sizeof u->phase, "the %s Rx test", label);
	if (ev->progress)
		ev->progress(ev->arg, bs, 'R');
	double t0 = now();
	if ((r = udp_send_ctl(u, CMD_S2C, (uint32_t)bs, err)))
		return r;
	uint64_t got = 0;
	for (;;) {
		size_t len;
		if ((r = udp_recv(u, IO_TIMEOUT_MS, &len, err)) < 0)
			return r;
		if (r == 0)
			return wd_err_set(err, WD_EFAIL, "%s sent nothing for %d s during %s",
					  u->who, IO_TIMEOUT_MS / 1000, u->phase);
		if (len == (size_t)bs && u->buf[0] == 0)
			got++;
		else if (len == (size_t)bs && u->buf[0] == 1)
			break;
		else if (len != 8 && !is_block(u->buf, len))
			return udp_foreign(u, len, err);
	}
	set_dir(&res->rx, got * (uint64_t)bs, now() - t0);
	return udp_send_ctl(u, CMD_RESULT, (uint32_t)got, err);
}

static int udp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		      struct netio_listing *out, struct wd_err *err)
{
	struct addrinfo *res;
	int r = resolve(o->host, o->port + 1, SOCK_DGRAM, &res, err);
	if (r)
		return r;
	struct udp u = {.fd = -1};
	int e = 0;
	for (struct addrinfo *a = res; a && u.fd < 0; a = a->ai_next) {
		u.fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (u.fd < 0) {
			e = errno;
			continue;
		}
		if (connect(u.fd, a->ai_addr, a->ai_addrlen) < 0) {
			e = errno;
			close(u.fd);
			u.fd = -1;
		}
	}
	freeaddrinfo(res);
	if (u.fd < 0)
		return connect_fail(o->host, o->port + 1, "UDP", e, err);
	set_bufs(u.fd);
	u.buf = wd_xmalloc(UDP_MAX);
	snprintf(u.who, sizeof u.who, "the server %s UDP port %d", o->host, o->port + 1);
	out->proto = NETIO_UDP;
	for (int i = 0; i < NETIO_NSIZES && !r; i++) {
		int bs = o->block ? o->block : netio_sizes[i];
		if ((r = udp_client_size(&u, bs, o, ev, &out->r[out->n], err)))
			break;
		if (out->n == 0 && ev->note)
			ev->note(ev->arg, "UDP connection established.");
		out->n++;
		if (ev->result)
			ev->result(ev->arg, &out->r[out->n - 1]);
		if (o->block)
			break;
	}
	if (!r) {
		unsigned char m[8];
		uint32_t data;
		put_ctl(m, CMD_QUIT, 0);
		snprintf(u.phase, sizeof u.phase, "the end of the run");
		r = udp_request(&u, m, sizeof m, CMD_QUIT, 5, 300, &data, err);
	}
	close(u.fd);
	free(u.buf);
	return r;
}

/* Server side of one UDP Rx step: blocks for the server's period, then the
 * end block until the client confirms it with {3, blocks received}. A control
 * message from the client instead (its confirmation was lost and it moved on)
 * is left in u->buf for the caller: *pending says so. */
static int udp_serve_s2c(struct netio_server *s, struct udp *u, int bs,
			 struct netio_result *res, bool *pending, struct wd_err *err)
{
	uint64_t sent;
	double secs;
	int r = udp_blast(u, bs, s->seconds, &sent, &secs, err);
	if (r)
		return r;
	unsigned char *end = wd_xcalloc((size_t)bs, 1);
	end[0] = 1;
	for (int t = 0; t < 10 && !r; t++) {
		if ((r = udp_send(u, end, (size_t)bs, err)))
			break;
		double until = now() + 0.3;
		for (;;) {
			int left = (int)((until - now()) * 1000);
			size_t len;
			if (left <= 0 || (r = udp_recv(u, left, &len, err)) < 0)
				break;
			if (r == 0)
				continue;
			r = 0;
			uint32_t cmd, data;
			if (len != 8)
				continue;
			get_ctl(u->buf, &cmd, &data);
			if (cmd == CMD_RESULT) {
				set_dir(&res->rx, (uint64_t)data * (uint64_t)bs, secs);
				free(end);
				return 0;
			}
			set_dir(&res->rx, sent * (uint64_t)bs, secs);
			*pending = true;
			free(end);
			return 0;
		}
	}
	free(end);
	return r ? r : wd_err_set(err, WD_EFAIL, "%s did not confirm the end of %s", u->who,
				  u->phase);
}

static int udp_serve_loop(struct netio_server *s, struct udp *u, struct netio_listing *out,
			  const struct netio_events *ev, struct wd_err *err)
{
	int cur = 0;          /* block size of the Tx step under way, 0: none */
	uint64_t count = 0;
	double t0 = 0, last = 0; /* last: the latest block, so lost end blocks cost nothing */
	bool pending = true;  /* the first datagram is already in u->buf */
	size_t len = 8;
	for (;;) {
		int r;
		if (!pending) {
			if ((r = udp_recv(u, IO_TIMEOUT_MS, &len, err)) < 0)
				return r;
			if (r == 0)
				return wd_err_set(err, WD_EFAIL, "%s went quiet for %d s during %s",
						  u->who, IO_TIMEOUT_MS / 1000, u->phase);
		}
		pending = false;
		if (cur && len == (size_t)cur && u->buf[0] == 0) {
			count++;
			last = now();
			continue;
		}
		if (len != 8) {
			if (!is_block(u->buf, len))
				return udp_foreign(u, len, err);
			struct netio_result *res = netio_find(out, (int)len);
			if (u->buf[0] == 1 && res) {
				if (cur == (int)len) {
					set_dir(&res->tx, count * len, (count ? last : now()) - t0);
					cur = 0;
				}
				if ((r = udp_send_ctl(u, CMD_RESULT, (uint32_t)(res->tx.bytes / len), err)))
					return r;
			}
			continue;
		}
		uint32_t cmd, bs;
		get_ctl(u->buf, &cmd, &bs);
		if (cmd == CMD_RESULT)
			continue; /* a repeated confirmation */
		if (cmd == CMD_QUIT)
			return udp_send_ctl(u, CMD_QUIT, 0, err);
		if ((cmd != CMD_C2S && cmd != CMD_S2C) || !block_ok(bs))
			return udp_foreign(u, len, err);
		struct netio_result *res = netio_find(out, (int)bs);
		if (!res) {
			if (out->n == NETIO_MAX_RESULTS)
				return wd_err_set(err, WD_EFAIL, "%s asked for more than %d block sizes",
						  u->who, NETIO_MAX_RESULTS);
			res = &out->r[out->n++];
			memset(res, 0, sizeof *res);
			res->block = (int)bs;
		}
		char label[16];
		netio_block_label((int)bs, label, sizeof label);
		snprintf(u->phase, sizeof u->phase, "the %s %s test", label,
			 cmd == CMD_C2S ? "Tx" : "Rx");
		if (cmd == CMD_C2S) {
			if (cur != (int)bs) { /* not a repeat of the request under way */
				if (ev->progress)
					ev->progress(ev->arg, (int)bs, 'T');
				cur = (int)bs;
				count = 0;
				t0 = now();
			}
			if ((r = udp_send_ctl(u, CMD_C2S, bs, err)))
				return r;
			continue;
		}
		if (ev->progress)
			ev->progress(ev->arg, (int)bs, 'R');
		cur = 0;
		if ((r = udp_serve_s2c(s, u, (int)bs, res, &pending, err)))
			return r;
		len = 8;
	}
}

static int udp_serve(struct netio_server *s, const struct netio_events *ev,
		     struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err)
{
	struct udp u = {.fd = s->udp_fd};
	u.buf = wd_xmalloc(UDP_MAX);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	ssize_t n = recvfrom(u.fd, u.buf, UDP_MAX, MSG_DONTWAIT, (struct sockaddr *)&ss, &sl);
	int r = 0;
	if (n < 0) {
		free(u.buf);
		return 1; /* nothing after all (or an old ICMP error): wait again */
	}
	peer_name((struct sockaddr *)&ss, sl, peer, peer_len);
	snprintf(u.who, sizeof u.who, "client %s (UDP)", peer);
	snprintf(u.phase, sizeof u.phase, "its first request");
	uint32_t cmd = 0, bs = 0;
	if (n == 8)
		get_ctl(u.buf, &cmd, &bs);
	if (n != 8 || cmd != CMD_C2S) {
		/* Late datagrams of a finished run are dropped quietly; anything
		 * else is a peer speaking another protocol. */
		if (n == 8 || is_block(u.buf, (size_t)n)) {
			free(u.buf);
			return 1;
		}
		r = udp_foreign(&u, (size_t)n, err);
		free(u.buf);
		return r;
	}
	/* Talk to this client only until it quits: one client at a time. */
	if (connect(u.fd, (struct sockaddr *)&ss, sl) < 0) {
		r = wd_err_set(err, WD_EFAIL, "cannot answer %s: %s", u.who, strerror(errno));
		free(u.buf);
		return r;
	}
	if (ev->note) {
		char m[360];
		snprintf(m, sizeof m, "client %s connected (UDP)", peer);
		ev->note(ev->arg, m);
	}
	out->proto = NETIO_UDP;
	r = udp_serve_loop(s, &u, out, ev, err);
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	connect(u.fd, &unspec, sizeof unspec);
	free(u.buf);
	return r;
}

/* ---------------------------------------------------------------- API */

int netio_client_run(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	if (o->proto == NETIO_UDP)
		return udp_client(o, ev, out, err);
	return tcp_client(o, ev, out, err);
}

static int listen_on(const char *bind_addr, int port, int type, int *fd, struct wd_err *err)
{
	struct addrinfo hints = {0}, *res;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = type;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	char ps[16];
	snprintf(ps, sizeof ps, "%d", port);
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	int g = getaddrinfo(bind_addr, ps, &hints, &res);
	if (g)
		return wd_err_set(err, WD_EFAIL, "cannot use address %s: %s", bind_addr,
				  gai_strerror(g));
	int s = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	int e = s < 0 ? errno : 0;
	if (s >= 0) {
		int one = 1;
		if (type == SOCK_STREAM)
			setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		set_bufs(s);
		if (bind(s, res->ai_addr, res->ai_addrlen) < 0 ||
		    (type == SOCK_STREAM && listen(s, 8) < 0)) {
			e = errno;
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
	if (s < 0) {
		if (e == EADDRINUSE)
			return wd_err_set(err, WD_EFAIL, "%s port %d is in use on %s (another netio "
					  "server?); stop it or choose another with --port", proto,
					  port, bind_addr);
		return wd_err_set(err, WD_EFAIL, "cannot listen on %s port %d of %s: %s", proto,
				  port, bind_addr, strerror(e));
	}
	*fd = s;
	return 0;
}

int netio_server_open(struct netio_server *s, const char *bind_addr, int port,
		      double seconds, struct wd_err *err)
{
	memset(s, 0, sizeof *s);
	s->tcp_fd = s->udp_fd = -1;
	s->port = port;
	s->seconds = seconds;
	if (!bind_addr)
		bind_addr = "0.0.0.0";
	int r = listen_on(bind_addr, port, SOCK_STREAM, &s->tcp_fd, err);
	if (!r && (r = listen_on(bind_addr, port + 1, SOCK_DGRAM, &s->udp_fd, err)))
		netio_server_close(s);
	return r;
}

void netio_server_close(struct netio_server *s)
{
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	if (s->udp_fd >= 0)
		close(s->udp_fd);
	s->tcp_fd = s->udp_fd = -1;
}

int netio_server_serve_one(struct netio_server *s, const struct netio_events *ev,
			   struct netio_listing *out, char *peer, size_t peer_len,
			   struct wd_err *err)
{
	for (;;) {
		memset(out, 0, sizeof *out);
		snprintf(peer, peer_len, "?");
		struct pollfd p[2] = {{s->tcp_fd, POLLIN, 0}, {s->udp_fd, POLLIN, 0}};
		int n = poll(p, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return wd_err_set(err, WD_EFAIL, "waiting for clients: %s", strerror(errno));
		}
		if (p[0].revents)
			return tcp_serve(s, ev, out, peer, peer_len, err);
		int r = udp_serve(s, ev, out, peer, peer_len, err);
		if (r <= 0)
			return r;
	}
}
