#include "common/hash.h"

#include "common/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wd_sha256 {
	EVP_MD_CTX *ctx;
};

/* SHA-256 fetched from its provider once per process: EVP_sha256() is
 * looked up again at each digest's start, and a package hashes each of its
 * files. Kept for the process (reachable, not a leak). */
static EVP_MD *fetched;
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;

static void fetch_sha256(void)
{
	fetched = EVP_MD_fetch(NULL, "SHA2-256", NULL);
}

static const EVP_MD *sha256_md(void)
{
	pthread_once(&fetch_once, fetch_sha256);
	return fetched ? fetched : EVP_sha256();
}

struct wd_sha256 *wd_sha256_new(void)
{
	struct wd_sha256 *h = malloc(sizeof *h);
	if (!h)
		wd_out_of_memory(); /* OpenSSL fails here only without memory */
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, sha256_md(), NULL) != 1)
		wd_out_of_memory();
	return h;
}

void wd_sha256_update(struct wd_sha256 *h, const void *p, size_t n)
{
	if (n && EVP_DigestUpdate(h->ctx, p, n) != 1)
		wd_out_of_memory();
}

void wd_sha256_final(struct wd_sha256 *h, unsigned char out[WD_SHA256_LEN])
{
	unsigned int len = 0;
	if (EVP_DigestFinal_ex(h->ctx, out, &len) != 1 || len != WD_SHA256_LEN)
		wd_out_of_memory();
}

void wd_sha256_free(struct wd_sha256 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

void wd_sha256(const void *p, size_t n, unsigned char out[WD_SHA256_LEN])
{
	unsigned int len = 0;
	if (EVP_Digest(p, n, out, &len, sha256_md(), NULL) != 1)
		wd_out_of_memory();
}

void wd_hex(const unsigned char *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

void wd_sha256_hex(const void *p, size_t n, char out[WD_SHA256_HEX])
{
	unsigned char md[WD_SHA256_LEN];
	wd_sha256(p, n, md);
	wd_hex(md, sizeof md, out);
}

int wd_sha256_fd(int fd, const char *path, char out[WD_SHA256_HEX], struct wd_err *err)
{
	struct wd_sha256 *h = wd_sha256_new();
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			wd_sha256_free(h);
			return wd_err_set(err, WD_EFAIL, "%s: cannot read: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		wd_sha256_update(h, buf, (size_t)n);
	}
	unsigned char md[WD_SHA256_LEN];
	wd_sha256_final(h, md);
	wd_sha256_free(h);
	wd_hex(md, sizeof md, out);
	return 0;
}

int wd_sha256_file(const char *path, char out[WD_SHA256_HEX], struct wd_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC); /* host: a file named by the caller */
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot open: %s", path, strerror(errno));
	int r = wd_sha256_fd(fd, path, out, err);
	close(fd);
	return r;
}
