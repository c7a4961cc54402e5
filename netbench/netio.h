/* netio 1.3x-compatible throughput test: the wire protocol (client and
 * server, TCP and UDP), netio's result lines, and a parser for the text a netio
 * client printed. Implemented from netio's public protocol description, as
 * docs/bench.md gives it (netio's own code may not be reused); it says which
 * rules follow that description and which are warpdrv's choice.
 *
 * Nothing here prints: progress and per-client notes go through struct
 * netio_events, errors through struct wd_err. netbench/netio_text.c holds the
 * pure text functions (formatting, parsing); the sockets are in netio_sock.c
 * (shared helpers), netio_tcp.c, netio_udp.c and netio.c (the entry points). */
#ifndef WD_NETIO_H
#define WD_NETIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define NETIO_PORT 18767          /* TCP test; the UDP test uses NETIO_PORT + 1 */
#define NETIO_NSIZES 6
#define NETIO_MIN_BLOCK 1024
#define NETIO_MAX_BLOCK 32768     /* TCP's "32k" */
#define NETIO_MAX_DATAGRAM 32767  /* UDP's "32k" */
#define NETIO_MAX_RESULTS 16      /* distinct block sizes in one listing */
/* What a netio client may ask of the server: netio's -b takes 1 byte to
 * 64 KiB (its own clamp), so the server serves any size in that range. */
#define NETIO_PEER_MIN_BLOCK 1
#define NETIO_PEER_MAX_BLOCK 65536
#define NETIO_SECONDS 6.0         /* per direction per block size */
#define NETIO_LINE_MAX 160

enum netio_proto { NETIO_TCP, NETIO_UDP };

/* The block sizes of a full run, smallest first: 1k 2k 4k 8k 16k 32k; the
 * last is 32768 bytes for TCP, 32767 for UDP. */
extern const int netio_sizes[NETIO_NSIZES];
extern const int netio_udp_sizes[NETIO_NSIZES];
/* A block size as the protocol sends it: "32k" (32768) is 32767 for UDP. */
int netio_proto_block(enum netio_proto proto, int block);
/* The report's row of a block size: 32767 and 32768 are both "32k". */
int netio_block_row(int block);

/* One direction at one block size. A run measured here knows the bytes and
 * seconds (netio's unit rule needs the bytes); an imported one only the rate.
 * UDP adds the loss, in whole percent, when the side knows it. */
struct netio_dir {
	bool set;
	double rate;      /* bytes per second */
	uint64_t bytes;   /* 0 when imported */
	double secs;      /* 0 when imported */
	bool has_loss;
	int loss;         /* percent of the datagrams sent that did not arrive */
};

/* tx: client to server; rx: server to client (the client's view, as netio prints). */
struct netio_result {
	int block;
	struct netio_dir tx, rx;
};

struct netio_listing {
	enum netio_proto proto;
	int n;
	struct netio_result r[NETIO_MAX_RESULTS];
};

/* --- text (netbench/netio_text.c) --- */

/* "1k".."16k", "32k" for 32767 and 32768, or the plain byte count ("3000"). */
void netio_block_label(int block, char *out, size_t n);
/* "15.04 MByte/s": the unit is chosen from the bytes moved (binary units:
 * under 60 KiB Byte/s with no decimals, under 60 MiB KByte/s, under 6 GiB
 * MByte/s, both with two decimals, else GByte/s with three). */
void netio_format_rate(uint64_t bytes, double secs, char *out, size_t n);
/* (sent - received) x 100 / sent, an integer percent (0 when sent is 0). */
int netio_loss(uint64_t sent, uint64_t received);
/* A whole netio line for a result measured in both directions:
 * "Packet size  1k bytes:  15.04 MByte/s Tx,  9168.71 KByte/s Rx." and, with
 * loss known (UDP), "Packet size  8k bytes:  1.108 GByte/s (1%) Tx, ..." */
void netio_format_line(const struct netio_result *r, char *out, size_t n);
/* "2k", "32k", "4096" -> bytes (k is 1024; "32k" is 32768). Checks the
 * range 1k..32k; the message says what was wrong (-WD_EFAIL) or that the
 * text is no size at all (-WD_EUSAGE). */
int netio_parse_block(const char *s, int *block, struct wd_err *err);
/* Reads the text a netio client printed (1.3x lines with decimals, 1.2x lines
 * with integers, UDP lines with their loss, one or two spaces, CR LF or LF).
 * name is the file name for messages. Fails when no result line is there, a
 * result line is malformed, a block size appears twice, or the bytes are not
 * text. */
int netio_parse_listing(const char *text, size_t len, const char *name,
			struct netio_listing *out, struct wd_err *err);
/* The result for block in l, or NULL. */
struct netio_result *netio_find(struct netio_listing *l, int block);
const struct netio_result *netio_find_const(const struct netio_listing *l, int block);
/* The result for block in l, added when missing; NULL when l is full. */
struct netio_result *netio_find_or_add(struct netio_listing *l, int block);

/* --- control messages (netbench/netio_text.c) --- */

enum netio_cmd { NETIO_QUIT = 0, NETIO_C2S = 1, NETIO_S2C = 2, NETIO_RES = 3 };
/* 8 bytes: two big-endian uint32 {cmd, data}. */
void netio_put_ctl(unsigned char m[8], uint32_t cmd, uint32_t data);
void netio_get_ctl(const unsigned char m[8], uint32_t *cmd, uint32_t *data);

/* --- wire (netbench/netio.c, netio_tcp.c, netio_udp.c) --- */

struct netio_events {
	void *arg;
	/* A block size and direction ('T' client to server, 'R' back) starts. */
	void (*progress)(void *arg, int block, char dir);
	/* Client: both directions of a block size finished. */
	void (*result)(void *arg, const struct netio_result *r);
	/* A client came ("connected"), a note about it, or the client's banner. */
	void (*note)(void *arg, const char *msg);
};

struct netio_client_opts {
	const char *host;
	int port;              /* TCP port; UDP uses port + 1 for control and data */
	enum netio_proto proto;
	double seconds;        /* Tx length per block size */
	int block;             /* 0: every size of the protocol's list */
	const char *bind;      /* local address (NULL: any); UDP binds port + 1 on it */
};

/* Runs the whole test against a netio server. On any failure nothing of the
 * run is returned as finished (out->n may hold the sizes done so far). */
int netio_client_run(const struct netio_client_opts *o, const struct netio_events *ev,
		     struct netio_listing *out, struct wd_err *err);

struct netio_server {
	int tcp_fd;            /* the TCP test, on port */
	int ctl_fd;            /* the UDP test's control connections, TCP on port + 1 */
	int udp_fd;            /* the UDP test's datagrams, on port + 1 */
	int port;
	double seconds;        /* Rx (server to client) length per block size */
};

/* Listens on TCP port, TCP port + 1 and UDP port + 1 of bind_addr (NULL:
 * every address). */
int netio_server_open(struct netio_server *s, const char *bind_addr, int port,
		      double seconds, struct wd_err *err);
void netio_server_close(struct netio_server *s);
/* Waits for the next client (TCP or UDP, one at a time) and serves it until it
 * quits. 0: a finished run in *out, the client's address in peer. Any fault
 * of the client is an error naming the client; the server stays usable. */
int netio_server_serve_one(struct netio_server *s, const struct netio_events *ev,
			   struct netio_listing *out, char *peer, size_t peer_len,
			   struct wd_err *err);

#endif
