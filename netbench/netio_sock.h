/* What the TCP and UDP halves of netio share: the clock, the buffered control
 * connection, name lookups, connecting and listening with time limits, and
 * the words of a fault. Internal to netbench/. */
#ifndef WD_NETIO_SOCK_H
#define WD_NETIO_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/err.h"
#include "netbench/netio.h"

#define NETIO_SOCKBUF (128 * 1024)  /* netio's socket buffers */
#define NETIO_TIMEOUT_MS 10000      /* no progress for this long: the peer is gone */
#define NETIO_LOOK_MS 250           /* a sender looks for the peer speaking this often */
#define NETIO_UDP_LOOK_US 2000     /* a UDP receiver looks at the control connection this often */
#define NETIO_INBUF (32 * 1024)    /* the control connection's input buffer */

double netio_now(void);
bool netio_block_ok(uint32_t b);
/* The first bytes a foreign peer sent, quoted when printable, else in hex. */
void netio_describe(const unsigned char *p, size_t n, char *out, size_t cap);
void netio_peer_name(const struct sockaddr *sa, socklen_t len, char *out, size_t n);
void netio_set_bufs(int fd);
void netio_set_stream_opts(int fd);
/* A datagram socket's receive time limit: NETIO_UDP_LOOK_US. */
void netio_set_dgram_opts(int fd);
void netio_set_dir(struct netio_dir *d, uint64_t bytes, double secs);
/* A block or datagram to send, as netio's: n bytes (malloc'd), the first 0,
 * the rest not zeros (netio sends random bytes; zeros from calloc may lie on
 * pages never written, which the kernel copies from one shared zero page). */
unsigned char *netio_data_block(size_t n);
/* "the 4k Tx test", with " (UDP)" for UDP. */
void netio_phase(char *out, size_t n, int block, char dir, enum netio_proto proto);

/* A TCP connection with buffered input, so that reading blocks in large
 * pieces never swallows the control message that follows them. */
struct conn {
	int fd;
	char who[300];        /* "the server 10.0.0.2 port 18767", "client 10.0.0.5:1042" */
	char phase[64];       /* "the 4k Tx test" */
	unsigned char *in;
	size_t start, end;
};

void conn_init(struct conn *c, int fd);
void conn_free(struct conn *c);
int conn_fill(struct conn *c, struct wd_err *err);
int conn_read(struct conn *c, void *out, size_t n, struct wd_err *err);
/* Blocking sends, as netio's: the socket's send time limit is NETIO_LOOK_MS,
 * at which the peer speaking is a fault; NETIO_TIMEOUT_MS without progress
 * ends the test. */
int conn_send_all(struct conn *c, const void *p, size_t n, struct wd_err *err);
int conn_send_ctl(struct conn *c, uint32_t cmd, uint32_t data, struct wd_err *err);
/* The peer closed or sent what it should not have: the message says which. */
int conn_closed_or_foreign(struct conn *c, struct wd_err *err);
int conn_io_fail(struct conn *c, int e, struct wd_err *err);
/* 0 while the peer stays silent; its speaking or closing is a fault. */
int conn_peer_spoke(struct conn *c, struct wd_err *err);
/* A control message that was not the one expected: a foreign peer. */
int conn_foreign_ctl(struct conn *c, const unsigned char m[8], const char *due,
		     struct wd_err *err);

/* TCP to host:port (from bind_addr when given); what names the port in messages. */
int netio_tcp_connect(const char *host, int port, const char *bind_addr, const char *what,
		      int *fd, struct wd_err *err);
int netio_listen_on(const char *bind_addr, int port, int type, int *fd, struct wd_err *err);

/* A client's run, the one loop of both protocols: each block size of the
 * protocol's list in turn (o->block alone when set) through one(ctx, ...),
 * each result counted in out and announced, then QUIT on c. */
typedef int (*netio_size_fn)(void *ctx, int block, struct netio_result *res,
			     struct wd_err *err);
int netio_client_sizes(struct conn *c, const struct netio_client_opts *o,
		       const struct netio_events *ev, netio_size_fn one, void *ctx,
		       struct netio_listing *out, struct wd_err *err);

/* The halves, for netio.c. */
int netio_tcp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err);
int netio_tcp_serve(struct netio_server *s, const struct netio_events *ev,
		    struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err);
int netio_udp_client(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err);
int netio_udp_serve(struct netio_server *s, const struct netio_events *ev,
		    struct netio_listing *out, char *peer, size_t peer_len, struct wd_err *err);

#endif
