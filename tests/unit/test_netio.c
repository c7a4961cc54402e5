/* netio's lines, the import parser, and the protocol over loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netbench/netio.h"

static void rate_is(uint64_t bytes, double secs, const char *want)
{
	char out[64];
	netio_format_rate(bytes, secs, out, sizeof out);
	if (strcmp(out, want))
		fail_msg("%llu bytes in %g s: got \"%s\", wanted \"%s\"",
			 (unsigned long long)bytes, secs, out, want);
}

/* Each unit threshold of the total moved, with figures worked by hand. */
static void test_rate_units_at_each_threshold(void **state)
{
	(void)state;
	rate_is(61439, 1, "61439 Byte/s");             /* 60 KiB - 1: bytes, no decimals */
	rate_is(61440, 1, "60.00 KByte/s");            /* 60 KiB */
	rate_is(61440, 2, "30.00 KByte/s");            /* the unit follows bytes, not the rate */
	rate_is(62914559, 6, "10240.00 KByte/s");      /* 60 MiB - 1: 10239.9998 KiB/s */
	rate_is(62914560, 6, "10.00 MByte/s");         /* 60 MiB */
	rate_is(6442450943ULL, 6, "1024.00 MByte/s");  /* 6 GiB - 1 */
	rate_is(6442450944ULL, 6, "1.000 GByte/s");    /* 6 GiB: three decimals */
	rate_is(12884901888ULL, 4, "3.000 GByte/s");
	rate_is(1000, 3, "333 Byte/s");
	rate_is(0, 6, "0 Byte/s");
}

static void test_line_matches_netio_byte_for_byte(void **state)
{
	(void)state;
	/* 15.04 MiB/s and 9168.71 KiB/s for six seconds each. */
	struct netio_result r = {
		.block = 1024,
		.tx = {true, 0, 94617436, 6.0},
		.rx = {true, 0, 56332554, 6.0},
	};
	char line[NETIO_LINE_MAX];
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size  1k bytes:  15.04 MByte/s Tx,  9168.71 KByte/s Rx.");
	r.block = 32768;
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size 32k bytes:  15.04 MByte/s Tx,  9168.71 KByte/s Rx.");
	r.block = 32767;
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size 32k bytes:  15.04 MByte/s Tx,  9168.71 KByte/s Rx.");
	r.block = 16384;
	r.tx.bytes = 50000;
	r.tx.secs = 2;
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size 16k bytes:  25000 Byte/s Tx,  9168.71 KByte/s Rx.");
}

/* An imported rate is formatted from the rate itself: one too large for six
 * seconds of it to fit in 64 bits of bytes is still shown as read. */
static void test_line_of_huge_imported_rate(void **state)
{
	(void)state;
	const char *t = "Packet size 8k bytes: 3333333333322 MByte/s Tx, 2 Byte/s Rx.\n";
	struct netio_listing l;
	struct wd_err e = {0};
	assert_int_equal(netio_parse_listing(t, strlen(t), "x", &l, &e), 0);
	char line[NETIO_LINE_MAX];
	netio_format_line(&l.r[0], line, sizeof line);
	assert_string_equal(line, "Packet size  8k bytes:  3255208333.322 GByte/s Tx,  2 Byte/s Rx.");
}

static void test_block_labels_and_sizes(void **state)
{
	(void)state;
	char l[16];
	netio_block_label(1024, l, sizeof l);
	assert_string_equal(l, "1k");
	netio_block_label(32767, l, sizeof l);
	assert_string_equal(l, "32k");
	netio_block_label(32768, l, sizeof l);
	assert_string_equal(l, "32k");
	assert_int_equal(netio_sizes[5], 32768);       /* TCP's last block */
	assert_int_equal(netio_udp_sizes[5], 32767);   /* UDP's last datagram */
	assert_int_equal(netio_proto_block(NETIO_UDP, 32768), 32767);
	assert_int_equal(netio_proto_block(NETIO_TCP, 32768), 32768);
	assert_int_equal(netio_block_row(32767), 32768);
	netio_block_label(3000, l, sizeof l);
	assert_string_equal(l, "3000");
	struct wd_err e = {0};
	int b = 0;
	assert_int_equal(netio_parse_block("32k", &b, &e), 0);
	assert_int_equal(b, 32768);
	assert_int_equal(netio_parse_block("32768", &b, &e), 0);
	assert_int_equal(b, 32768);
	assert_int_equal(netio_parse_block("4K", &b, &e), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(netio_parse_block("2000", &b, &e), 0);
	assert_int_equal(b, 2000);
	assert_int_equal(netio_parse_block("64k", &b, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "block size 64k is out of range"));
	assert_int_equal(netio_parse_block("1023", &b, &e), -WD_EFAIL);
	assert_int_equal(netio_parse_block("32769", &b, &e), -WD_EFAIL);
	assert_int_equal(netio_parse_block("big", &b, &e), -WD_EUSAGE);
	assert_non_null(strstr(e.msg, "'big' is not a block size"));
	assert_int_equal(netio_parse_block("9999999999k", &b, &e), -WD_EUSAGE);
	assert_int_equal(netio_parse_block("", &b, &e), -WD_EUSAGE);
}

static const char listing13[] =
	"NETIO - Network Throughput Benchmark\r\n"
	"\r\n"
	"TCP connection established.\r\n"
	"Packet size  1k bytes:  13.19 MByte/s Tx,  9183.80 KByte/s Rx.\r\n"
	"Packet size 32k bytes:  28.07 MByte/s Tx,  19.19 MByte/s Rx.\r\n"
	"Done.\r\n\x1a";

static void test_parse_listing_double_spaces_crlf(void **state)
{
	(void)state;
	struct netio_listing l;
	struct wd_err e = {0};
	assert_int_equal(netio_parse_listing(listing13, strlen(listing13), "guest.txt", &l, &e), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.proto, NETIO_TCP);
	assert_int_equal(l.r[0].block, 1024);
	assert_true(l.r[0].tx.set && l.r[0].rx.set);
	assert_true(l.r[0].tx.rate == 13.19 * 1048576);
	assert_true(l.r[0].rx.rate == 9183.80 * 1024);
	assert_int_equal(l.r[1].block, 32768);
	assert_true(l.r[1].rx.rate == 19.19 * 1048576);
}

static void test_parse_listing_single_spaces_and_integers(void **state)
{
	(void)state;
	const char *t = "    TCP connection established.\n"
			"    Packet size 16k bytes: 24.83 MByte/s Tx, 20.62 MByte/s Rx.\n"
			"Packet size  4k bytes:  9168 KByte/s Tx,  812 Byte/s Rx.\n"
			"Packet size  8k bytes:  1.250 GByte/s Tx,  2 GByte/s Rx.\n";
	struct netio_listing l;
	struct wd_err e = {0};
	assert_int_equal(netio_parse_listing(t, strlen(t), "x", &l, &e), 0);
	assert_int_equal(l.n, 3);
	assert_true(l.r[0].tx.rate == 24.83 * 1048576);
	assert_true(l.r[1].tx.rate == 9168.0 * 1024);
	assert_true(l.r[1].rx.rate == 812.0);
	assert_true(l.r[2].tx.rate == 1.25 * 1073741824.0);
	const char *u = "UDP connection established.\nPacket size 2k bytes: 1 MByte/s Tx, 2 MByte/s Rx.\n";
	assert_int_equal(netio_parse_listing(u, strlen(u), "x", &l, &e), 0);
	assert_int_equal(l.proto, NETIO_UDP);
}

static void parse_fails(const char *text, size_t len, const char *want)
{
	struct netio_listing l;
	struct wd_err e = {0};
	assert_int_equal(netio_parse_listing(text, len, "in.txt", &l, &e), -WD_EFAIL);
	if (!strstr(e.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
}

static void test_parse_listing_refusals(void **state)
{
	(void)state;
	const char *t;
	t = "DEVICE=C:\\IBMCOM\\PROTMAN.OS2\r\nBASEDEV=OS2DASD.DMD\r\n";
	parse_fails(t, strlen(t), "in.txt: no netio result lines");
	parse_fails("", 0, "no netio result lines");
	t = "Packet size 1k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx.\n"
	    "Packet size 2k bytes: fast Tx, slow Rx.\n";
	parse_fails(t, strlen(t), "in.txt line 2: not a netio result line");
	t = "Packet size 1k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx.\n"
	    "Packet size 1k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx.\n";
	parse_fails(t, strlen(t), "line 2: block size 1k appears a second time");
	t = "Packet size 64k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx.\n";
	parse_fails(t, strlen(t), "line 1: block size 64k is out of netio's range");
	t = "Packet size 1k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx. extra\n";
	parse_fails(t, strlen(t), "line 1: not a netio result line");
	t = "Packet size 1k bytes: 15.04 Mbit/s Tx, 9168.71 KByte/s Rx.\n";
	parse_fails(t, strlen(t), "line 1: not a netio result line");
	t = "Packet size 1k bytes: 15..04 MByte/s Tx, 9168.71 KByte/s Rx.\n";
	parse_fails(t, strlen(t), "line 1: not a netio result line");
	static const char bin[] = "Packet size 1k\0bytes";
	parse_fails(bin, sizeof bin - 1, "not text");
}

/* A port pair free on loopback for this test: tried until one opens. */
static void open_server(struct netio_server *s, double seconds)
{
	struct wd_err e = {0};
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int t = 0; t < 50; t++) {
		int port = 20000 + rand() % 30000;
		if (netio_server_open(s, "127.0.0.1", port, seconds, &e) == 0)
			return;
	}
	fail_msg("no free port: %s", e.msg);
}

/* The server serves one client in a child process; the parent is the client. */
static void loopback_run(enum netio_proto proto)
{
	struct netio_server s;
	open_server(&s, 0.05);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct netio_listing got;
		struct netio_events ev = {0};
		char peer[64];
		struct wd_err e = {0};
		int r = netio_server_serve_one(&s, &ev, &got, peer, sizeof peer, &e);
		_exit(r == 0 && got.n == NETIO_NSIZES && got.r[5].tx.bytes > 0 &&
		      got.r[5].rx.bytes > 0 ? 0 : 1);
	}
	/* Both ends of the UDP test bind the aux port: the client takes 127.0.0.2. */
	struct netio_client_opts o = {"127.0.0.1", s.port, proto, 0.05, 0,
				      proto == NETIO_UDP ? "127.0.0.2" : NULL};
	netio_server_close(&s);
	struct netio_listing l;
	struct netio_events ev = {0};
	struct wd_err e = {0};
	int r = netio_client_run(&o, &ev, &l, &e);
	int status;
	waitpid(pid, &status, 0);
	if (r)
		fail_msg("client: %s", e.msg);
	assert_int_equal(l.n, NETIO_NSIZES);
	for (int i = 0; i < NETIO_NSIZES; i++) {
		int bs = proto == NETIO_UDP ? netio_udp_sizes[i] : netio_sizes[i];
		assert_int_equal(l.r[i].block, bs);
		assert_true(l.r[i].tx.set && l.r[i].rx.set);
		assert_true(l.r[i].rx.bytes > 0 && l.r[i].rx.bytes % (uint64_t)bs == 0);
		assert_true(l.r[i].tx.has_loss == (proto == NETIO_UDP));
		assert_true(l.r[i].tx.secs >= 0.05 && l.r[i].rx.secs > 0);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_tcp_loopback_every_size(void **state)
{
	(void)state;
	loopback_run(NETIO_TCP);
}

static void test_udp_loopback_every_size(void **state)
{
	(void)state;
	loopback_run(NETIO_UDP);
}

static void test_client_names_a_closed_port(void **state)
{
	(void)state;
	struct netio_server s;
	open_server(&s, 0.05);
	int port = s.port;
	netio_server_close(&s); /* nothing listens there now */
	struct netio_client_opts o = {"127.0.0.1", port, NETIO_TCP, 0.05, 0, NULL};
	struct netio_listing l;
	struct netio_events ev = {0};
	struct wd_err e = {0};
	assert_int_equal(netio_client_run(&o, &ev, &l, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "nothing listens on TCP port"));
}


/* (sent - received) x 100 / sent, in whole percent, rounded down. */
static void test_loss_percentage(void **state)
{
	(void)state;
	assert_int_equal(netio_loss(100, 99), 1);
	assert_int_equal(netio_loss(100, 100), 0);
	assert_int_equal(netio_loss(3, 1), 66);
	assert_int_equal(netio_loss(1000, 0), 100);
	assert_int_equal(netio_loss(0, 0), 0);
	assert_int_equal(netio_loss(10, 12), 0); /* more than sent: nothing was lost */
}

/* A UDP result line of netio (docs/bench.md), with the loss after each rate. */
static void test_udp_line_with_loss(void **state)
{
	(void)state;
	/* 1.108 and 1.107 GiB/s for six seconds: over 6 GiB, so GByte/s. */
	struct netio_result r = {
		.block = 8192,
		.tx = {true, 0, 7138235106ULL, 6.0, true, 1},
		.rx = {true, 0, 7131792654ULL, 6.0, true, 0},
	};
	char line[NETIO_LINE_MAX];
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size  8k bytes:  1.108 GByte/s (1%) Tx,  1.107 GByte/s (0%) Rx.");
	r.block = 32767;
	r.tx.bytes = 61439; /* under 60 KiB: bytes, no decimals */
	r.tx.loss = 100;
	netio_format_line(&r, line, sizeof line);
	assert_string_equal(line, "Packet size 32k bytes:  10240 Byte/s (100%) Tx,  1.107 GByte/s (0%) Rx.");
}

static void test_parse_udp_listing_with_loss(void **state)
{
	(void)state;
	const char *t = "\r\nUDP connection established.\r\n"
			"Packet size  8k bytes:  1.108 GByte/s (1%) Tx,  1.107 GByte/s (0%) Rx.\r\n"
			"Packet size 32k bytes:  9168.71 KByte/s (37%) Tx,  812 Byte/s (100%) Rx.\r\n"
			"Done.\r\n";
	struct netio_listing l;
	struct wd_err e = {0};
	assert_int_equal(netio_parse_listing(t, strlen(t), "u.txt", &l, &e), 0);
	assert_int_equal(l.proto, NETIO_UDP);
	assert_int_equal(l.n, 2);
	assert_true(l.r[0].tx.has_loss && l.r[0].tx.loss == 1);
	assert_true(l.r[0].rx.has_loss && l.r[0].rx.loss == 0);
	assert_int_equal(l.r[1].block, 32767); /* a UDP listing's 32k */
	assert_int_equal(l.r[1].tx.loss, 37);
	assert_int_equal(l.r[1].rx.loss, 100);
	assert_true(l.r[1].rx.rate == 812.0);
	const char *bad = "Packet size 8k bytes: 1.108 GByte/s (101%) Tx, 1 GByte/s (0%) Rx.\n";
	parse_fails(bad, strlen(bad), "in.txt line 1: not a netio result line");
	bad = "Packet size 8k bytes: 1.108 GByte/s (x%) Tx, 1 GByte/s (0%) Rx.\n";
	parse_fails(bad, strlen(bad), "in.txt line 1: not a netio result line");
	/* More received than counted as sent: netio prints a negative Tx loss and
	 * an unsigned wrap for Rx; both read as no loss. */
	const char *odd = "Packet size 4k bytes:  1.108 GByte/s (-3%) Tx,  1.107 GByte/s "
			  "(184467440737095516%) Rx.\n";
	assert_int_equal(netio_parse_listing(odd, strlen(odd), "u.txt", &l, &e), 0);
	assert_true(l.r[0].tx.has_loss && l.r[0].tx.loss == 0);
	assert_true(l.r[0].rx.has_loss && l.r[0].rx.loss == 0);
}

static void test_control_message_bytes(void **state)
{
	(void)state;
	unsigned char m[8];
	netio_put_ctl(m, NETIO_C2S, 32767);
	static const unsigned char want[8] = {0, 0, 0, 1, 0, 0, 0x7f, 0xff};
	assert_memory_equal(m, want, 8);
	uint32_t cmd, data;
	netio_get_ctl(m, &cmd, &data);
	assert_int_equal(cmd, 1);
	assert_int_equal(data, 32767);
}

/* A scripted netio UDP server in a child: it checks each control message the
 * client sends, in order, and answers with chosen counts. */
static int read_ctl(int fd, uint32_t *cmd, uint32_t *data)
{
	unsigned char m[8];
	size_t got = 0;
	while (got < 8) {
		ssize_t n = recv(fd, m + got, 8 - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	netio_get_ctl(m, cmd, data);
	return 0;
}

static int send_ctl(int fd, uint32_t cmd, uint32_t data)
{
	unsigned char m[8];
	netio_put_ctl(m, cmd, data);
	return send(fd, m, 8, 0) == 8 ? 0 : -1;
}

static int scripted_server(int lfd, int ufd, int aux)
{
	int c = accept(lfd, NULL, NULL);
	uint32_t cmd, data;
	if (c < 0 || read_ctl(c, &cmd, &data) || cmd != 1 || data != 1024 || send_ctl(c, 1, 1024))
		return 10;
	if (read_ctl(c, &cmd, &data) || cmd != 3 || data != 0)
		return 11;
	unsigned char b[2048];
	unsigned got = 0;
	while (recv(ufd, b, sizeof b, MSG_DONTWAIT) == 1024)
		got++;
	if (got < 2 || send_ctl(c, 3, got / 2)) /* say half arrived */
		return 12;
	if (read_ctl(c, &cmd, &data) || cmd != 2 || data != 1024)
		return 13;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)aux)};
	inet_pton(AF_INET, "127.0.0.2", &to.sin_addr);
	memset(b, 0, sizeof b);
	for (int i = 0; i < 10; i++)
		sendto(ufd, b, 1024, 0, (struct sockaddr *)&to, sizeof to);
	if (send_ctl(c, 3, 20)) /* ten of twenty "sent" arrive: 50% lost */
		return 14;
	if (read_ctl(c, &cmd, &data) || cmd != 0 || data != 0)
		return 15;
	return 0;
}

static void test_udp_control_exchange(void **state)
{
	(void)state;
	struct netio_server s;
	open_server(&s, 0.05); /* only for its sockets on port + 1 */
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(scripted_server(s.ctl_fd, s.udp_fd, s.port + 1));
	struct netio_client_opts o = {"127.0.0.1", s.port, NETIO_UDP, 0.05, 1024, "127.0.0.2"};
	netio_server_close(&s);
	struct netio_listing l;
	struct netio_events ev = {0};
	struct wd_err e = {0};
	int r = netio_client_run(&o, &ev, &l, &e);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("the scripted server stopped at step %d; client: %s", WEXITSTATUS(status),
			 r ? e.msg : "ok");
	if (r)
		fail_msg("client: %s", e.msg);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.proto, NETIO_UDP);
	/* The child counts what reached its socket and says half of it came. */
	assert_true(l.r[0].tx.has_loss && l.r[0].tx.loss >= 49);
	assert_true(l.r[0].tx.bytes > 0 && l.r[0].tx.bytes % 1024 == 0);
	assert_int_equal(l.r[0].rx.bytes, 10 * 1024);
	assert_true(l.r[0].rx.has_loss);
	assert_int_equal(l.r[0].rx.loss, 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_units_at_each_threshold),
		cmocka_unit_test(test_line_matches_netio_byte_for_byte),
		cmocka_unit_test(test_block_labels_and_sizes),
		cmocka_unit_test(test_parse_listing_double_spaces_crlf),
		cmocka_unit_test(test_parse_listing_single_spaces_and_integers),
		cmocka_unit_test(test_parse_listing_refusals),
		cmocka_unit_test(test_line_of_huge_imported_rate),
		cmocka_unit_test(test_tcp_loopback_every_size),
		cmocka_unit_test(test_udp_loopback_every_size),
		cmocka_unit_test(test_client_names_a_closed_port),
		cmocka_unit_test(test_loss_percentage),
		cmocka_unit_test(test_udp_line_with_loss),
		cmocka_unit_test(test_parse_udp_listing_with_loss),
		cmocka_unit_test(test_control_message_bytes),
		cmocka_unit_test(test_udp_control_exchange),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
