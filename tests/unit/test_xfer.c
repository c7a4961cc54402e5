/* xfer/proto.h: the messages between warpdrv and its transfer helper go
 * through a socket pair whole, with a descriptor; a message that does not
 * parse is refused whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xfer/proto.h"

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static void test_a_request_goes_whole_with_its_descriptor(void **state)
{
	(void)state;
	int sv[2], p[2];
	pair(sv);
	assert_int_equal(pipe(p), 0);
	struct xfer_msg m, got;
	xfer_msg_init(&m, XFER_FETCH);
	m.str[XS_URL] = "https://example.org/r/INDEX";
	m.str[XS_USER] = "sub-1";
	m.str[XS_PASSWORD] = "";
	xfer_set_num(&m, XN_LIMIT, 64 << 20);
	xfer_set_num(&m, XN_START, 0);
	xfer_set_num(&m, XN_CODE, -3);
	assert_int_equal(xfer_send(sv[0], &m, p[1]), 0);
	assert_int_equal(xfer_recv(sv[1], &got), 1);
	assert_int_equal(got.type, XFER_FETCH);
	assert_string_equal(got.str[XS_URL], m.str[XS_URL]);
	assert_string_equal(got.str[XS_USER], "sub-1");
	assert_string_equal(got.str[XS_PASSWORD], "");
	assert_null(got.str[XS_CACERT]);
	assert_true(got.has_num[XN_LIMIT] && got.has_num[XN_START]);
	assert_false(got.has_num[XN_TOTAL]);
	assert_int_equal(got.num[XN_LIMIT], 64 << 20);
	assert_int_equal(got.num[XN_CODE], -3);
	/* the descriptor that came is the pipe's write end */
	assert_true(got.fd >= 0);
	assert_int_equal(write(got.fd, "x", 1), 1);
	char c = 0;
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'x');
	close(got.fd);
	close(p[0]);
	close(p[1]);
	/* the other end closed: 0 */
	close(sv[0]);
	assert_int_equal(xfer_recv(sv[1], &got), 0);
	close(sv[1]);
}

/* A message built by hand: type, then the raw field bytes. */
static size_t raw(unsigned char *b, char type, const void *fields, size_t n)
{
	b[0] = (unsigned char)type;
	memcpy(b + 1, fields, n);
	return n + 1;
}

static void test_a_message_that_does_not_parse_is_refused_whole(void **state)
{
	(void)state;
	unsigned char b[64];
	struct xfer_msg m;
	/* a good one: the URL "ab" */
	static const unsigned char url[] = {1, 2, 0, 0, 0, 'a', 'b'};
	assert_true(xfer_decode(b, raw(b, XFER_CHECK, url, sizeof url), &m));
	assert_string_equal(m.str[XS_URL], "ab");
	/* no known type */
	assert_false(xfer_decode(b, raw(b, 'Z', url, sizeof url), &m));
	assert_false(xfer_decode(b, 0, &m));
	/* cut short: in the length, in the string, in a number */
	for (size_t cut = 1; cut < sizeof url; cut++)
		assert_false(xfer_decode(b, raw(b, XFER_CHECK, url, cut), &m));
	static const unsigned char num[] = {0x40, 1, 2, 3, 4, 5, 6, 7};
	assert_false(xfer_decode(b, raw(b, XFER_RESULT, num, sizeof num), &m));
	/* a field twice */
	unsigned char twice[2 * sizeof url];
	memcpy(twice, url, sizeof url);
	memcpy(twice + sizeof url, url, sizeof url);
	assert_false(xfer_decode(b, raw(b, XFER_CHECK, twice, sizeof twice), &m));
	/* a NUL in a string */
	static const unsigned char nul[] = {1, 2, 0, 0, 0, 'a', 0};
	assert_false(xfer_decode(b, raw(b, XFER_CHECK, nul, sizeof nul), &m));
	/* a tag of no field */
	static const unsigned char tag[] = {0x3f, 0, 0, 0, 0};
	assert_false(xfer_decode(b, raw(b, XFER_CHECK, tag, sizeof tag), &m));
	/* a length past the end */
	static const unsigned char len[] = {1, 0xff, 0xff, 0xff, 0xff, 'a'};
	assert_false(xfer_decode(b, raw(b, XFER_CHECK, len, sizeof len), &m));
}

static void test_a_refused_message_over_the_socket_closes_its_descriptor(void **state)
{
	(void)state;
	int sv[2], p[2];
	pair(sv);
	assert_int_equal(pipe(p), 0);
	/* a packet of no known type, sent with the pipe's write end */
	unsigned char bad[] = {'Z'};
	struct iovec iov = {bad, 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
			    .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &p[1], sizeof(int));
	assert_int_equal(sendmsg(sv[0], &mh, 0), 1);
	close(p[1]);
	struct xfer_msg m;
	errno = 0;
	assert_int_equal(xfer_recv(sv[1], &m), -1);
	assert_int_equal(errno, EBADMSG);
	/* every write end is closed: the pipe reads its end */
	char x;
	assert_int_equal(read(p[0], &x, 1), 0);
	close(p[0]);
	close(sv[0]);
	close(sv[1]);
}

static void test_a_message_too_long_is_not_sent(void **state)
{
	(void)state;
	int sv[2];
	pair(sv);
	char *big = malloc(XFER_MSG_MAX + 1);
	memset(big, 'a', XFER_MSG_MAX);
	big[XFER_MSG_MAX] = '\0';
	struct xfer_msg m;
	xfer_msg_init(&m, XFER_CHECK);
	m.str[XS_URL] = big;
	errno = 0;
	assert_int_equal(xfer_send(sv[0], &m, -1), -1);
	assert_int_equal(errno, EMSGSIZE);
	free(big);
	/* the other end gone: EPIPE, and no SIGPIPE */
	close(sv[1]);
	m.str[XS_URL] = "x";
	assert_int_equal(xfer_send(sv[0], &m, -1), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_request_goes_whole_with_its_descriptor),
		cmocka_unit_test(test_a_message_that_does_not_parse_is_refused_whole),
		cmocka_unit_test(test_a_refused_message_over_the_socket_closes_its_descriptor),
		cmocka_unit_test(test_a_message_too_long_is_not_sent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
