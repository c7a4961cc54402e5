/* Reads and verifies one subscription key N times: decode (forgiving reading,
 * check symbols), payload, Ed25519 signature against a keyring. Prints keys
 * verified per second and microseconds per key. Built by bench/subscription.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/file.h"
#include "license/subscription.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s KEYDIR KEYFILE N\n", argv[0]);
		return 2;
	}
	struct keyring kr = {0};
	struct wd_err e;
	struct wd_buf text = {0};
	if (keyring_add_dir(&kr, argv[1], &e) || wd_read_file(argv[2], 4096, &text, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	long n = atol(argv[3]);
	struct subscription s;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		if (sub_parse(text.p, text.len, &kr, &s, &e)) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%.0f keys verified per second (%.1f us a key, %ld keys)\n", n / sec,
	       sec / n * 1e6, n);
	wd_buf_free(&text);
	keyring_free(&kr);
	return 0;
}
