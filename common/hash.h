/* SHA-256 through OpenSSL's EVP interface. */
#ifndef WD_HASH_H
#define WD_HASH_H

#include <stddef.h>

#include "common/err.h"

#define WD_SHA256_LEN 32
#define WD_SHA256_HEX (2 * WD_SHA256_LEN + 1)

struct wd_sha256; /* an incremental hash */

struct wd_sha256 *wd_sha256_new(void);
void wd_sha256_update(struct wd_sha256 *h, const void *p, size_t n);
void wd_sha256_final(struct wd_sha256 *h, unsigned char out[WD_SHA256_LEN]);
void wd_sha256_free(struct wd_sha256 *h);

void wd_sha256(const void *p, size_t n, unsigned char out[WD_SHA256_LEN]);
void wd_hex(const unsigned char *p, size_t n, char *out); /* out: 2n+1 bytes */
void wd_sha256_hex(const void *p, size_t n, char out[WD_SHA256_HEX]);
/* Hashes a file; out is lowercase hex. */
/* The SHA-256 of what is left to read from fd (left open). */
int wd_sha256_fd(int fd, const char *path, char out[WD_SHA256_HEX], struct wd_err *err);
int wd_sha256_file(const char *path, char out[WD_SHA256_HEX], struct wd_err *err);

#endif
