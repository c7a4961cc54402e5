/* Ed25519 keys, signatures and the trusted key folders (OpenSSL 3 EVP).
 * A key is named by its fingerprint: the SHA-256 of its 32-byte public key,
 * in lowercase hex. Key folders hold repo/NAME.pub and license/NAME.pub, and may
 * hold a file "revoked" with one fingerprint a line. */
#ifndef WD_KEYS_H
#define WD_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "common/hash.h"

#define WD_SIG_LEN 64
#define WD_FPR_HEX WD_SHA256_HEX

enum key_role { KEY_ROLE_REPO, KEY_ROLE_LICENSE };

struct wd_key; /* an Ed25519 key, private or public */

/* Writes PREFIX.key (private, PEM, 0600) and PREFIX.pub (public, PEM). */
int key_generate(const char *prefix, char fpr[WD_FPR_HEX], struct wd_err *err);
int key_load_private(const char *path, struct wd_key **out, struct wd_err *err);
int key_load_public(const char *path, struct wd_key **out, struct wd_err *err);
/* For a short command (detect), before any key is loaded: OpenSSL is set up
 * without reading the system's configuration file (about a millisecond;
 * what it sets is TLS policy, and an Ed25519 check does not depend on it)
 * and without its legacy digest names, which only a certificate chain's
 * check needs: TLS is the transfer helper's, never this process's
 * (xfer/warpdrv_fetch.c). */
void key_crypto_quick(void);
/* Before any key: OpenSSL keeps its legacy cipher names (trust/keys.c), as
 * a program that reads private keys needs for one encrypted the old PEM way
 * (DEK-Info: AES-256-CBC). warpdrv-admin asks for it. */
void key_crypto_legacy_names(void);
/* OpenSSL set up in full now (its configuration file, as the first key
 * load would). fetch_preload's thread calls it while the caller goes on;
 * any thread may call it, and a key load on another thread meanwhile waits
 * for it. The legacy cipher names are left out (trust/keys.c). */
void key_crypto_ready(void);
void key_free(struct wd_key *k);
const char *key_fingerprint(const struct wd_key *k);
int key_sign(const struct wd_key *k, const void *msg, size_t len, unsigned char sig[WD_SIG_LEN],
	     struct wd_err *err);
bool key_verify(const struct wd_key *k, const void *msg, size_t len,
		const unsigned char sig[WD_SIG_LEN]);

struct keyring {
	struct keyring_entry {
		struct wd_key *key;
		enum key_role role;
	} *keys;
	size_t n;
	char **revoked; /* fingerprints */
	size_t nrevoked;
};

/* Adds a key folder; a folder (or role folder) that does not exist adds nothing.
 * A .pub file that is not an Ed25519 public key is an error naming the file. */
int keyring_add_dir(struct keyring *kr, const char *dir, struct wd_err *err);
int keyring_add_key(struct keyring *kr, const char *pub_path, enum key_role role,
		    struct wd_err *err);
void keyring_revoke(struct keyring *kr, const char *fpr);
bool keyring_is_revoked(const struct keyring *kr, const char *fpr);
/* The trusted, unrevoked key with that fingerprint and role, or NULL. */
const struct wd_key *keyring_find(const struct keyring *kr, const char *fpr, enum key_role role);
void keyring_free(struct keyring *kr);
const char *key_role_name(enum key_role role);

#endif
