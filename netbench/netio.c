/* The entry points of the netio test: the client picks its protocol, the
 * server listens for both and serves one client at a time. The protocols
 * are in netio_tcp.c and netio_udp.c. */
#define _GNU_SOURCE /* recvmmsg */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netbench/netio_sock.h"

int netio_client_run(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	out->proto = o->proto;
	if (o->proto == NETIO_UDP)
		return netio_udp_client(o, ev, out, err);
	return netio_tcp_client(o, ev, out, err);
}

int netio_client_sizes(struct conn *c, const struct netio_client_opts *o,
		       const struct netio_events *ev, netio_size_fn one, void *ctx,
		       struct netio_listing *out, struct wd_err *err)
{
	const int *sizes = o->proto == NETIO_UDP ? netio_udp_sizes : netio_sizes;
	int r = 0;
	out->proto = o->proto;
	for (int i = 0; i < NETIO_NSIZES; i++) {
		int bs = o->block ? netio_proto_block(o->proto, o->block) : sizes[i];
		if ((r = one(ctx, bs, &out->r[out->n], err)))
			return r;
		out->n++;
		if (ev->result)
			ev->result(ev->arg, &out->r[out->n - 1]);
		if (o->block)
			break;
	}
	snprintf(c->phase, sizeof c->phase, "the end of the run");
	return conn_send_ctl(c, NETIO_QUIT, 0, err);
}

int netio_server_open(struct netio_server *s, const char *bind_addr, int port,
		      double seconds, struct wd_err *err)
{
	memset(s, 0, sizeof *s);
	s->tcp_fd = s->ctl_fd = s->udp_fd = -1;
	s->port = port;
	s->seconds = seconds;
	if (!bind_addr)
		bind_addr = "0.0.0.0";
	int r = netio_listen_on(bind_addr, port, SOCK_STREAM, &s->tcp_fd, err);
	if (!r)
		r = netio_listen_on(bind_addr, port + 1, SOCK_STREAM, &s->ctl_fd, err);
	if (!r)
		r = netio_listen_on(bind_addr, port + 1, SOCK_DGRAM, &s->udp_fd, err);
	if (r)
		netio_server_close(s);
	return r;
}

void netio_server_close(struct netio_server *s)
{
	int *fds[] = {&s->tcp_fd, &s->ctl_fd, &s->udp_fd};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Datagrams while no UDP test runs: late ones of a finished run, or a
 * stranger's. They are dropped; the first of a burst is noted. */
static void drop_strays(struct netio_server *s, const struct netio_events *ev)
{
	unsigned char buf[64];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	ssize_t n = recvfrom(s->udp_fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&ss, &sl);
	if (n < 0)
		return;
	int more = 0;
	while (recv(s->udp_fd, NULL, 0, MSG_DONTWAIT | MSG_TRUNC) >= 0 && more < 100000)
		more++;
	if (!ev->note)
		return;
	char who[128], d[80], m[400];
	netio_peer_name((struct sockaddr *)&ss, sl, who, sizeof who);
	netio_describe(buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf, d, sizeof d);
	snprintf(m, sizeof m, "dropped a %zd-byte datagram (%s) from %s%s: no UDP test is under "
		 "way (a netio UDP client connects to TCP port %d first)", n, d, who,
		 more ? " and more after it" : "", s->port + 1);
	ev->note(ev->arg, m);
}

int netio_server_serve_one(struct netio_server *s, const struct netio_events *ev,
			   struct netio_listing *out, char *peer, size_t peer_len,
			   struct wd_err *err)
{
	for (;;) {
		memset(out, 0, sizeof *out);
		snprintf(peer, peer_len, "?");
		struct pollfd p[3] = {{s->tcp_fd, POLLIN, 0}, {s->ctl_fd, POLLIN, 0},
				      {s->udp_fd, POLLIN, 0}};
		int n = poll(p, 3, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return wd_err_set(err, WD_EFAIL, "waiting for clients: %s", strerror(errno));
		}
		if (p[2].revents)
			drop_strays(s, ev);
		if (p[0].revents)
			return netio_tcp_serve(s, ev, out, peer, peer_len, err);
		if (p[1].revents)
			return netio_udp_serve(s, ev, out, peer, peer_len, err);
	}
}
