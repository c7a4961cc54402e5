/* netio's TCP test: cmd 1 (data: block size) is followed by the client's
 * blocks for its own period, cmd 2 by the server's blocks for the server's
 * period, cmd 0 ends the run. Every block starts with byte 0; one block
 * starting with byte 1 ends a direction. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "netbench/netio_sock.h"

/* Sends whole blocks for `seconds`, then the end block: one blocking send
 * call per block, as netio's sender makes, so that the block size is what
 * the test varies (with TCP_NODELAY each call is pushed on its own). Now and
 * then it looks whether the peer spoke, which a netio peer never does while
 * it receives. */
static int send_blocks(struct conn *c, int block, double seconds, struct netio_dir *d,
		       struct wd_err *err)
{
	unsigned char *buf = netio_data_block((size_t)block); /* a data block starts with 0 */
	double t0 = netio_now(), deadline = t0 + seconds, look = t0 + NETIO_LOOK_MS / 1000.0;
	uint64_t pos = 0;
	int r = 0;
	for (;;) {
		double now = netio_now();
		if (now >= deadline)
			break;
		if (now >= look) {
			look = now + NETIO_LOOK_MS / 1000.0;
			if ((r = conn_peer_spoke(c, err)))
				goto out;
		}
		if ((r = conn_send_all(c, buf, (size_t)block, err)))
			goto out;
		pos += (uint64_t)block;
	}
	double secs = netio_now() - t0;
	buf[0] = 1;
	if ((r = conn_send_all(c, buf, (size_t)block, err)))
		goto out;
	netio_set_dir(d, pos, secs);
out:
	free(buf);
	return r;
}

/* Up to n bytes of the next block: what the control connection's buffer
 * holds first, else one receive call for the rest of the block. */
static int recv_part(struct conn *c, unsigned char *to, size_t n, size_t *got,
		     struct wd_err *err)
{
	if (c->start < c->end) {
		size_t k = c->end - c->start < n ? c->end - c->start : n;
		memcpy(to, c->in + c->start, k);
		c->start += k;
		*got = k;
		return 0;
	}
	for (;;) {
		ssize_t k = recv(c->fd, to, n, 0);
		if (k > 0) {
			*got = (size_t)k;
			return 0;
		}
		if (k == 0)
			return wd_err_set(err, WD_EFAIL, "%s closed the connection during %s",
					  c->who, c->phase);
		if (errno != EINTR)
			return conn_io_fail(c, errno, err);
	}
}

/* Reads blocks until the end block; *bytes counts the data blocks. Each
 * receive call asks for the rest of the block under way, as netio's
 * receiver does: the calls' sizes decide how often the receiver sleeps and
 * is woken, and so what a link's rate reads as (docs/bench.md). */
static int recv_blocks(struct conn *c, int block, uint64_t *bytes, struct wd_err *err)
{
	unsigned char *buf = wd_xmalloc((size_t)block);
	uint64_t pos = 0;
	int r = 0;
	for (;;) {
		size_t have = 0, got = 0;
		while (have < (size_t)block) {
			if ((r = recv_part(c, buf + have, (size_t)block - have, &got, err)))
				goto out;
			if (have == 0 && buf[0] > 1) {
				char d[80];
				netio_describe(buf, got, d, sizeof d);
				r = wd_err_set(err, WD_EFAIL, "%s does not speak netio: a block of %s "
					       "began with %s", c->who, c->phase, d);
				goto out;
			}
			have += got;
		}
		if (buf[0] == 1)
			break;
		pos += (uint64_t)block;
	}
	*bytes = pos;
out:
	free(buf);
	return r;
}

struct tcp_client {
	struct conn *c;
	const struct netio_client_opts *o;
	const struct netio_events *ev;
};

static int client_size(void *ctx, int bs, struct netio_result *res, struct wd_err *err)
{
	const struct tcp_client *t = ctx;
	struct conn *c = t->c;
	memset(res, 0, sizeof *res);
	res->block = bs;
	netio_phase(c->phase, sizeof c->phase, bs, 'T', NETIO_TCP);
	if (t->ev->progress)
		t->ev->progress(t->ev->arg, bs, 'T');
	int r;
	if ((r = conn_send_ctl(c, NETIO_C2S, (uint32_t)bs, err)) ||
	    (r = send_blocks(c, bs, t->o->seconds, &res->tx, err)))
		return r;
	netio_phase(c->phase, sizeof c->phase, bs, 'R', NETIO_TCP);
	if (t->ev->progress)
		t->ev->progress(t->ev->arg, bs, 'R');
	if ((r = conn_send_ctl(c, NETIO_S2C, (uint32_t)bs, err)))
		return r;
	double t0 = netio_now(); /* from the request sent to the end block, as netio times it */
	uint64_t got;
	if ((r = recv_blocks(c, bs, &got, err)))
		return r;
	netio_set_dir(&res->rx, got, netio_now() - t0);
	return 0;
}

int netio_tcp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	int fd;
	int r = netio_tcp_connect(o->host, o->port, o->bind, "TCP port", &fd, err);
	if (r)
		return r;
	struct conn c;
	conn_init(&c, fd);
	snprintf(c.who, sizeof c.who, "the server %s port %d", o->host, o->port);
	if (ev->note)
		ev->note(ev->arg, "TCP connection established.");
	struct tcp_client t = {&c, o, ev};
	r = netio_client_sizes(&c, o, ev, client_size, &t, out, err);
	conn_free(&c);
	return r;
}

/* One command of a TCP client: 1 when it quit. */
static int serve_cmd(struct netio_server *s, struct conn *c, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	unsigned char m[8];
	uint32_t cmd, bs;
	snprintf(c->phase, sizeof c->phase, "the wait for its next command");
	int r = conn_read(c, m, sizeof m, err);
	if (r)
		return r;
	netio_get_ctl(m, &cmd, &bs);
	if (cmd == NETIO_QUIT)
		return 1;
	if ((cmd != NETIO_C2S && cmd != NETIO_S2C) || !netio_block_ok(bs))
		return conn_foreign_ctl(c, m, "a command", err);
	struct netio_result *res = netio_find_or_add(out, (int)bs);
	if (!res)
		return wd_err_set(err, WD_EFAIL, "%s asked for more than %d block sizes", c->who,
				  NETIO_MAX_RESULTS);
	char dir = cmd == NETIO_C2S ? 'T' : 'R';
	netio_phase(c->phase, sizeof c->phase, (int)bs, dir, NETIO_TCP);
	if (ev->progress)
		ev->progress(ev->arg, (int)bs, dir);
	if (cmd == NETIO_S2C)
		return send_blocks(c, (int)bs, s->seconds, &res->rx, err);
	double t0 = netio_now();
	uint64_t got;
	if ((r = recv_blocks(c, (int)bs, &got, err)))
		return r;
	netio_set_dir(&res->tx, got, netio_now() - t0);
	return 0;
}

int netio_tcp_serve(struct netio_server *s, const struct netio_events *ev,
		    struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = accept(s->tcp_fd, (struct sockaddr *)&ss, &sl);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "cannot accept a client on TCP port %d: %s",
				  s->port, strerror(errno));
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	netio_peer_name((struct sockaddr *)&ss, sl, peer, peer_len);
	netio_set_bufs(fd);
	netio_set_stream_opts(fd);
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
	while ((r = serve_cmd(s, &c, ev, out, err)) == 0)
		;
	conn_free(&c);
	if (r < 0)
		return r;
	if (out->n == 0)
		return wd_err_set(err, WD_EFAIL, "client %s quit before any test", peer);
	return 0;
}
