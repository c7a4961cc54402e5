/* The messages between warpdrv and its transfer helper, warpdrv-fetch
 * (xfer/warpdrv_fetch.c): the program that links libcurl and makes every
 * transfer, as apt's methods and git's remote helpers do, so that a command
 * that transfers nothing never loads libcurl and its thirty libraries, and
 * the code that reads the network holds no handle on the volume.
 *
 * The two ends share a socket pair of SOCK_SEQPACKET: one message is one
 * packet, at most XFER_MSG_MAX bytes. A message is its type (one byte) and
 * its fields, each a tag byte and then, for a string, a 4-byte length and
 * its bytes (no NUL among them), for a number 8 bytes; the byte order is
 * the host's (both ends are one machine). A request to fetch carries the
 * file descriptor the body is written to (SCM_RIGHTS). A message that does
 * not parse is refused whole. Behaviour in docs/repository.md. */
#ifndef WD_XFER_PROTO_H
#define WD_XFER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XFER_MSG_MAX 16384
/* The messages' version: warpdrv passes it to the helper it starts, which
 * refuses another (a helper left from another build beside the program). */
#define XFER_VERSION 1

enum xfer_type {
	XFER_FETCH = 'F',    /* warpdrv: fetch URL into the descriptor sent */
	XFER_CHECK = 'C',    /* warpdrv: may URL name a repository? */
	XFER_PROGRESS = 'P', /* helper: bytes held (XN_HAVE) of XN_TOTAL */
	XFER_RESULT = 'R',   /* helper: the request's end (XN_CODE, XS_MESSAGE) */
};

enum xfer_str {
	XS_URL,
	XS_USER,     /* HTTP Basic credentials (a subscription) */
	XS_PASSWORD,
	XS_CACERT,   /* a private CA's PEM file */
	XS_ETAG,     /* to send (request) or the answer's (result) */
	XS_LAST_MODIFIED,
	XS_MESSAGE,  /* the error's message (result); libcurl's reason (a check) */
	XS_SCHEME,   /* a check's result: the URL's parts, absent when it has none */
	XS_HOST,
	XS_N
};

enum xfer_num {
	XN_CONNECT_TIMEOUT, /* request: seconds (0: the default) */
	XN_SPEED_LIMIT,
	XN_SPEED_TIME,
	XN_MAX_TIME,
	XN_START,   /* request: bytes the file already holds (a Range from there) */
	XN_LIMIT,   /* request: the most bytes the file may hold */
	XN_TOTAL,   /* request: the file's known size (0: unknown); progress: expected */
	XN_CODE,    /* result: 0, XFER_FROM_START or a negated exit code */
	XN_STATUS,  /* result: the HTTP status (0 for a local file) */
	XN_HAVE,    /* result, progress: bytes the file holds */
	XN_CREDS,   /* a check's result: 1 when the URL holds a user or password */
	XN_PROGRESS, /* request: 1 when progress is wanted (at most 20 a second) */
	XN_N
};

/* A result's XN_CODE besides 0 and an error: the source ignored the range
 * asked for (or cannot serve it); the caller starts from byte 0. */
#define XFER_FROM_START 1

struct xfer_msg {
	char type;
	const char *str[XS_N]; /* NULL: absent */
	int64_t num[XN_N];     /* absent: 0 */
	bool has_num[XN_N];
	int fd;                /* the descriptor that came with it, or -1 */
	char store[XFER_MSG_MAX]; /* the strings of a parsed message */
};

void xfer_msg_init(struct xfer_msg *m, char type);
void xfer_set_num(struct xfer_msg *m, enum xfer_num k, int64_t v);

/* Encodes m into buf (cap bytes); the length, or 0 when it does not fit. */
size_t xfer_encode(const struct xfer_msg *m, unsigned char *buf, size_t cap);
/* Parses len bytes into m (its strings copied into m->store); false for a
 * message of no known type, a field of no known tag, a field twice, a string
 * with a NUL, or one cut short. m->fd is set to -1. */
bool xfer_decode(const unsigned char *buf, size_t len, struct xfer_msg *m);

/* Sends m (and fd when it is not -1) over the socket: 0, or -1 with errno
 * (EPIPE: the other end is gone; EMSGSIZE: too long). Never raises SIGPIPE. */
int xfer_send(int sock, const struct xfer_msg *m, int fd);
/* Receives one message: 1, 0 when the other end has closed, -1 with errno
 * (EBADMSG: a message that does not parse, or was cut to fit). A
 * descriptor that came with it is m->fd (close-on-exec), the caller's to
 * close; more than one, or one with a message that does not parse, is
 * closed here. */
int xfer_recv(int sock, struct xfer_msg *m);

#endif
