/* netio's lines, the import parser, and the protocol over loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	netio_block_label(3000, l, sizeof l);
	assert_string_equal(l, "3000");
	struct wd_err e = {0};
	int b = 0;
	assert_int_equal(netio_parse_block("32k", &b, &e), 0);
	assert_int_equal(b, 32767);
	assert_int_equal(netio_parse_block("4K", &b, &e), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(netio_parse_block("2000", &b, &e), 0);
	assert_int_equal(b, 2000);
	assert_int_equal(netio_parse_block("64k", &b, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "block size 64k is out of range"));
	assert_int_equal(netio_parse_block("1023", &b, &e), -WD_EFAIL);
	assert_int_equal(netio_parse_block("32768", &b, &e), -WD_EFAIL);
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
	assert_int_equal(l.r[1].block, 32767);
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
	struct netio_client_opts o = {"127.0.0.1", s.port, proto, 0.05, 0};
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
		assert_int_equal(l.r[i].block, netio_sizes[i]);
		assert_true(l.r[i].tx.set && l.r[i].rx.set);
		assert_true(l.r[i].rx.bytes > 0 && l.r[i].rx.bytes % (uint64_t)netio_sizes[i] == 0);
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
	struct netio_client_opts o = {"127.0.0.1", port, NETIO_TCP, 0.05, 0};
	struct netio_listing l;
	struct netio_events ev = {0};
	struct wd_err e = {0};
	assert_int_equal(netio_client_run(&o, &ev, &l, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "nothing listens on TCP port"));
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
