/* netio 1.33's UDP test. The control connection is TCP to the server's port
 * + 1 (the aux port); the datagrams travel between the two ends' aux ports,
 * so both ends bind it. Per datagram size: C2S {1, size} is echoed, the
 * client sends datagrams for its period, then RES {3, 0} is answered with
 * RES {3, datagrams received}; S2C {2, size} makes the server send for its
 * period and then RES {3, datagrams sent}. QUIT {0, 0} ends the run. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "netbench/netio_sock.h"

#define DGRAM_MAX 65536             /* a receive call's buffer: any datagram whole, as netio's */
#define RX_GRACE 60.0               /* seconds beyond the Tx period a receive may take */

struct udp {
	struct conn *c;                 /* the control connection */
	int fd;                         /* the datagram socket, bound to the aux port */
	struct sockaddr_storage dst;    /* the peer's aux port */
	socklen_t dst_len;
	int aux;
	unsigned char *buf;             /* DGRAM_MAX bytes: the datagram just received */
	int prev;                       /* the size of the step before: its late datagrams are dropped */
	double give_up;                 /* a receive step ends with a fault after this time */
};

static void udp_init(struct udp *u, struct conn *c, int fd, int aux)
{
	memset(u, 0, sizeof *u);
	u->c = c;
	u->fd = fd;
	u->aux = aux;
	u->buf = wd_xmalloc(DGRAM_MAX);
}

static int wrong_size(struct udp *u, size_t len, int bs, struct wd_err *err)
{
	char d[80];
	netio_describe(u->buf, len < 16 ? len : 16, d, sizeof d);
	if (bs == 0)
		return wd_err_set(err, WD_EFAIL, "%s sent a %zu-byte datagram (%s) during %s, "
				  "where none was due: is it a netio peer?", u->c->who, len, d,
				  u->c->phase);
	return wd_err_set(err, WD_EFAIL, "%s sent a %zu-byte datagram (%s) during %s, where "
			  "netio's are %d bytes: is it a netio peer?", u->c->who, len, d,
			  u->c->phase, bs);
}

/* One datagram, copied whole, as netio's receiver copies it: the copy is
 * part of what a receiver's rate measures, and a receiver that skipped it
 * (or batched its calls) would lose fewer datagrams than netio on the same
 * link and read higher for that reason alone. Those of size bs are
 * counted. 1: one was read; 0: none came (flags, or the socket's time
 * limit); below 0: a fault. */
static int recv_one(struct udp *u, int bs, uint64_t *got, int flags, struct wd_err *err)
{
	ssize_t n = recv(u->fd, u->buf, DGRAM_MAX, flags);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNREFUSED)
			return 0;
		return wd_err_set(err, WD_EFAIL, "receiving datagrams on UDP port %d during %s: %s",
				  u->aux, u->c->phase, strerror(errno));
	}
	size_t len = (size_t)n;
	if (len == (size_t)bs && bs)
		(*got)++;
	else if (u->prev >= 0 && (len != (size_t)u->prev || !u->prev))
		return wrong_size(u, len, bs, err);
	return 1;
}

/* Reads every datagram waiting. */
static int drain(struct udp *u, int bs, uint64_t *got, struct wd_err *err)
{
	int r;
	while ((r = recv_one(u, bs, got, MSG_DONTWAIT, err)) == 1)
		;
	return r;
}

/* While datagrams arrive: one blocking receive call each, as netio's
 * receiving thread makes them, with a look at the control connection every
 * NETIO_UDP_LOOK_US. Returns once the control connection has input or no
 * datagram came for that long (the socket's time limit). */
static int recv_flow(struct udp *u, int bs, uint64_t *got, struct wd_err *err)
{
	double look = netio_now() + NETIO_UDP_LOOK_US / 1e6;
	for (;;) {
		int r = recv_one(u, bs, got, 0, err);
		if (r <= 0)
			return r;
		double now = netio_now();
		if (now < look)
			continue;
		look = now + NETIO_UDP_LOOK_US / 1e6;
		struct pollfd p = {u->c->fd, POLLIN, 0};
		if (poll(&p, 1, 0) > 0 || (u->give_up > 0 && now > u->give_up))
			return 0;
	}
}

/* Waits until the control connection has input, counting datagrams of size
 * bs meanwhile (0: none are due). Bounded: 10 s without anything, or
 * u->give_up. */
static int wait_input(struct udp *u, int bs, uint64_t *got, struct wd_err *err)
{
	while (u->c->start == u->c->end) {
		struct pollfd p[2] = {{u->c->fd, POLLIN, 0}, {u->fd, POLLIN, 0}};
		int n = poll(p, 2, NETIO_TIMEOUT_MS), r;
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return wd_err_set(err, WD_EFAIL, "%s sent nothing for %d s during %s: no "
					  "datagram to UDP port %d here and no answer on the control "
					  "connection", u->c->who, NETIO_TIMEOUT_MS / 1000, u->c->phase,
					  u->aux);
		if (u->give_up > 0 && netio_now() > u->give_up)
			return wd_err_set(err, WD_EFAIL, "%s kept sending for over %d s beyond the "
					  "test's period during %s without its count of datagrams sent",
					  u->c->who, (int)RX_GRACE, u->c->phase);
		if (n < 0)
			return wd_err_set(err, WD_EFAIL, "waiting for %s during %s: %s", u->c->who,
					  u->c->phase, strerror(errno));
		if (p[0].revents) /* what arrived before the message counts, as netio's
				   * receiving thread has counted it by then */
			return drain(u, bs, got, err);
		if ((p[1].revents & POLLIN) && (r = recv_flow(u, bs, got, err)))
			return r;
	}
	return 0;
}

/* Waits for the control message `want`, counting datagrams of size bs. */
static int wait_ctl(struct udp *u, uint32_t want, const char *due, int bs, uint64_t *got,
		    uint32_t *data, struct wd_err *err)
{
	uint64_t dummy = 0;
	got = got ? got : &dummy;
	for (;;) {
		unsigned char m[8];
		uint32_t cmd;
		int r;
		if ((r = wait_input(u, bs, got, err)) || (r = conn_read(u->c, m, sizeof m, err)))
			return r;
		netio_get_ctl(m, &cmd, data);
		if (cmd == want)
			return 0;
		/* An echo of the S2C request is not in netio 1.33's dialogue, but a
		 * server that sends one means no harm: keep counting. */
		if (want != NETIO_RES || cmd != NETIO_S2C || *data != (uint32_t)bs || !bs)
			return conn_foreign_ctl(u->c, m, due, err);
	}
}

/* Sends datagrams of size bs to the peer's aux port for `seconds`: one
 * blocking call per datagram, as netio's sender makes. */
static int send_for(struct udp *u, int bs, double seconds, uint64_t *sent, double *secs,
		    struct wd_err *err)
{
	unsigned char *b = netio_data_block((size_t)bs); /* first byte 0, as netio's */
	double t0 = netio_now(), deadline = t0 + seconds, look = t0 + NETIO_LOOK_MS / 1000.0;
	uint64_t k = 0;
	int r = 0;
	for (;;) {
		double now = netio_now();
		if (now >= deadline)
			break;
		if (now >= look) {
			look = now + NETIO_LOOK_MS / 1000.0;
			if ((r = conn_peer_spoke(u->c, err)))
				break;
		}
		if (sendto(u->fd, b, (size_t)bs, 0, (struct sockaddr *)&u->dst, u->dst_len) >= 0)
			k++;
		else if (errno == ENOBUFS || errno == EAGAIN || errno == ECONNREFUSED)
			k++; /* a full queue drops the datagram: counted as sent, as netio
			      * does, so that it shows as loss */
		else if (errno != EINTR) {
			r = wd_err_set(err, WD_EFAIL, "sending datagrams to UDP port %d of %s during "
				       "%s: %s", u->aux, u->c->who, u->c->phase, strerror(errno));
			break;
		}
	}
	*sent = k;
	*secs = netio_now() - t0;
	free(b);
	return r;
}

static void set_loss(struct netio_dir *d, uint64_t sent, uint64_t got)
{
	d->has_loss = true;
	d->loss = netio_loss(sent, got);
}

static int client_tx(struct udp *u, int bs, double seconds, struct netio_dir *d,
		     struct wd_err *err)
{
	char due[64], label[16];
	uint32_t data;
	uint64_t sent;
	double secs;
	netio_block_label(bs, label, sizeof label);
	snprintf(due, sizeof due, "the echo of its %s Tx request", label);
	int r = conn_send_ctl(u->c, NETIO_C2S, (uint32_t)bs, err);
	if (r || (r = wait_ctl(u, NETIO_C2S, due, 0, NULL, &data, err)))
		return r;
	if (data != (uint32_t)bs)
		return wd_err_set(err, WD_EFAIL, "%s echoed a request for %u bytes to the one for "
				  "%d during %s: is it a netio server?", u->c->who, data, bs,
				  u->c->phase);
	if ((r = send_for(u, bs, seconds, &sent, &secs, err)) ||
	    (r = conn_send_ctl(u->c, NETIO_RES, 0, err)) ||
	    (r = wait_ctl(u, NETIO_RES, "the count of datagrams it received", 0, NULL, &data,
			  err)))
		return r;
	if (data == 0)
		return wd_err_set(err, WD_EFAIL, "%s received none of the %llu datagrams of %d "
				  "bytes sent to its UDP port %d during %s: a firewall drops them, "
				  "or it is no netio server", u->c->who, (unsigned long long)sent, bs,
				  u->aux, u->c->phase);
	netio_set_dir(d, (uint64_t)data * (uint64_t)bs, secs);
	set_loss(d, sent, data);
	return 0;
}

static int client_rx(struct udp *u, int bs, double seconds, struct netio_dir *d,
		     struct wd_err *err)
{
	uint64_t got = 0;
	uint32_t sent;
	int r = conn_send_ctl(u->c, NETIO_S2C, (uint32_t)bs, err);
	double t0 = netio_now(); /* from the request sent to the count, as netio times it */
	u->give_up = t0 + seconds + RX_GRACE;
	if (r || (r = wait_ctl(u, NETIO_RES, "the count of datagrams it sent", bs, &got, &sent,
			       err)))
		return r;
	double secs = netio_now() - t0;
	u->give_up = 0;
	if (sent == 0)
		return wd_err_set(err, WD_EFAIL, "%s sent no datagrams during %s", u->c->who,
				  u->c->phase);
	if (got == 0)
		return wd_err_set(err, WD_EFAIL, "none of the %u datagrams %s sent during %s "
				  "arrived at UDP port %d here: a firewall drops them, or it sends "
				  "them to another address", sent, u->c->who, u->c->phase, u->aux);
	netio_set_dir(d, got * (uint64_t)bs, secs);
	set_loss(d, sent, got);
	return 0;
}

struct udp_client {
	struct udp *u;
	const struct netio_client_opts *o;
	const struct netio_events *ev;
};

static int client_size(void *ctx, int bs, struct netio_result *res, struct wd_err *err)
{
	const struct udp_client *x = ctx;
	struct udp *u = x->u;
	const struct netio_client_opts *o = x->o;
	const struct netio_events *ev = x->ev;
	memset(res, 0, sizeof *res);
	res->block = bs;
	netio_phase(u->c->phase, sizeof u->c->phase, bs, 'T', NETIO_UDP);
	if (ev->progress)
		ev->progress(ev->arg, bs, 'T');
	int r = client_tx(u, bs, o->seconds, &res->tx, err);
	if (r)
		return r;
	netio_phase(u->c->phase, sizeof u->c->phase, bs, 'R', NETIO_UDP);
	if (ev->progress)
		ev->progress(ev->arg, bs, 'R');
	r = client_rx(u, bs, o->seconds, &res->rx, err);
	u->prev = bs;
	return r;
}

/* The client's datagram socket: the aux port on the control connection's
 * local address (with --bind) or on every address, as netio binds it. */
static int client_socket(struct udp *u, const struct netio_client_opts *o, struct wd_err *err)
{
	struct sockaddr_storage local;
	socklen_t ll = sizeof local;
	u->dst_len = sizeof u->dst;
	getpeername(u->c->fd, (struct sockaddr *)&u->dst, &u->dst_len);
	getsockname(u->c->fd, (struct sockaddr *)&local, &ll);
	uint16_t port = htons((uint16_t)u->aux);
	if (local.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&u->dst)->sin6_port = port;
		((struct sockaddr_in6 *)&local)->sin6_port = port;
		if (!o->bind)
			((struct sockaddr_in6 *)&local)->sin6_addr = in6addr_any;
	} else {
		((struct sockaddr_in *)&u->dst)->sin_port = port;
		((struct sockaddr_in *)&local)->sin_port = port;
		if (!o->bind)
			((struct sockaddr_in *)&local)->sin_addr.s_addr = htonl(INADDR_ANY);
	}
	u->fd = socket(local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0 || bind(u->fd, (struct sockaddr *)&local, ll) < 0) {
		int e = errno;
		if (e == EADDRINUSE)
			return wd_err_set(err, WD_EFAIL, "UDP port %d is in use on this host: netio's "
					  "UDP test binds it on both ends, so client and server need "
					  "two hosts (or network namespaces), or each --bind to an "
					  "address of its own", u->aux);
		return wd_err_set(err, WD_EFAIL, "cannot bind UDP port %d here: %s", u->aux,
				  strerror(e));
	}
	netio_set_bufs(u->fd);
	netio_set_dgram_opts(u->fd);
	return 0;
}

int netio_udp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	int aux = o->port + 1, fd;
	int r = netio_tcp_connect(o->host, aux, o->bind, "TCP port", &fd, err);
	if (r)
		return r;
	struct conn c;
	conn_init(&c, fd);
	snprintf(c.who, sizeof c.who, "the server %s port %d", o->host, aux);
	snprintf(c.phase, sizeof c.phase, "the start of the UDP test");
	struct udp u;
	udp_init(&u, &c, -1, aux);
	if (!(r = client_socket(&u, o, err)) && ev->note)
		ev->note(ev->arg, "UDP connection established.");
	struct udp_client x = {&u, o, ev};
	if (!r)
		r = netio_client_sizes(&c, o, ev, client_size, &x, out, err);
	if (u.fd >= 0)
		close(u.fd);
	free(u.buf);
	conn_free(&c);
	return r;
}

/* ------------------------------------------------------------ server */

static int serve_c2s(struct udp *u, int bs, struct netio_result *res, struct wd_err *err)
{
	uint64_t got = 0;
	uint32_t data;
	int r = conn_send_ctl(u->c, NETIO_C2S, (uint32_t)bs, err);
	double t0 = netio_now();
	if (r || (r = wait_ctl(u, NETIO_RES, "the end of its datagrams", bs, &got, &data, err)) ||
	    (r = conn_send_ctl(u->c, NETIO_RES, (uint32_t)got, err)))
		return r;
	netio_set_dir(&res->tx, got * (uint64_t)bs, netio_now() - t0);
	return 0;
}

static int serve_s2c(struct netio_server *s, struct udp *u, int bs, struct netio_result *res,
		     struct wd_err *err)
{
	uint64_t sent;
	double secs;
	int r = send_for(u, bs, s->seconds, &sent, &secs, err);
	if (r || (r = conn_send_ctl(u->c, NETIO_RES, (uint32_t)sent, err)))
		return r;
	netio_set_dir(&res->rx, sent * (uint64_t)bs, secs);
	return 0;
}

/* One command of a UDP client: 1 when it quit. */
static int serve_cmd(struct netio_server *s, struct udp *u, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	unsigned char m[8];
	uint32_t cmd, bs;
	snprintf(u->c->phase, sizeof u->c->phase, "the wait for its next command");
	int r = conn_read(u->c, m, sizeof m, err);
	if (r)
		return r;
	netio_get_ctl(m, &cmd, &bs);
	if (cmd == NETIO_QUIT)
		return 1;
	if ((cmd != NETIO_C2S && cmd != NETIO_S2C) || !netio_block_ok(bs))
		return conn_foreign_ctl(u->c, m, "a command", err);
	struct netio_result *res = netio_find_or_add(out, (int)bs);
	if (!res)
		return wd_err_set(err, WD_EFAIL, "%s asked for more than %d block sizes",
				  u->c->who, NETIO_MAX_RESULTS);
	char dir = cmd == NETIO_C2S ? 'T' : 'R';
	netio_phase(u->c->phase, sizeof u->c->phase, (int)bs, dir, NETIO_UDP);
	if (ev->progress)
		ev->progress(ev->arg, (int)bs, dir);
	r = cmd == NETIO_C2S ? serve_c2s(u, (int)bs, res, err) : serve_s2c(s, u, (int)bs, res, err);
	u->prev = (int)bs;
	return r;
}

int netio_udp_serve(struct netio_server *s, const struct netio_events *ev,
		    struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = accept(s->ctl_fd, (struct sockaddr *)&ss, &sl);
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "cannot accept a client on TCP port %d: %s",
				  s->port + 1, strerror(errno));
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	netio_peer_name((struct sockaddr *)&ss, sl, peer, peer_len);
	netio_set_bufs(fd);
	netio_set_stream_opts(fd);
	struct conn c;
	conn_init(&c, fd);
	snprintf(c.who, sizeof c.who, "client %s", peer);
	struct udp u;
	udp_init(&u, &c, s->udp_fd, s->port + 1);
	u.dst = ss;
	u.dst_len = sl;
	uint16_t port = htons((uint16_t)(s->port + 1)); /* netio answers at the aux port */
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&u.dst)->sin6_port = port;
	else
		((struct sockaddr_in *)&u.dst)->sin_port = port;
	uint64_t stale = 0;
	u.prev = -1; /* datagrams from before this client are dropped, whatever their size */
	struct wd_err ignored = {0};
	drain(&u, 0, &stale, &ignored);
	u.prev = 0;
	if (ev->note) {
		char m[360];
		snprintf(m, sizeof m, "client %s connected (UDP)", peer);
		ev->note(ev->arg, m);
	}
	out->proto = NETIO_UDP;
	int r;
	while ((r = serve_cmd(s, &u, ev, out, err)) == 0)
		;
	free(u.buf);
	conn_free(&c);
	if (r < 0)
		return r;
	if (out->n == 0)
		return wd_err_set(err, WD_EFAIL, "client %s quit before any test", peer);
	return 0;
}
