#include "trust/keys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"

struct wd_key {
	EVP_PKEY *pkey;
	char fpr[WD_FPR_HEX];
};

/* OpenSSL's set-up before the first key: its clean-up at exit (freeing its
 * tables, a third of a millisecond, for a process that is ending) is not
 * registered, and its legacy table of cipher names is not filled: OpenSSL 3
 * copies it into its name map at the first algorithm fetch (0.4 ms of every
 * run that loads a key), and nothing warpdrv or libcurl's TLS calls looks a
 * cipher up by a legacy name (the providers' own names are all there;
 * EVP_get_cipherbyname finds none in such a process, so a private key
 * encrypted the old PEM way, DEK-Info, is not read: warpdrv-admin, which
 * reads the vendor's keys, keeps the table, key_crypto_legacy_names). The
 * legacy digest table stays unless key_crypto_quick came first: a
 * certificate's signature strength is judged through it (X509
 * verification's security level), which no warpdrv process does (TLS is the
 * transfer helper's, a process of its own: xfer/warpdrv_fetch.c). Once per
 * process, whichever thread comes first (fetch_preload's may). */
static uint64_t crypto_opts = OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_NO_ADD_ALL_CIPHERS;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_init_once(void)
{
	OPENSSL_init_crypto(crypto_opts, NULL);
}

static void crypto_init(void)
{
	pthread_once(&crypto_once, crypto_init_once);
}

void key_crypto_legacy_names(void)
{
	crypto_opts &= ~(uint64_t)OPENSSL_INIT_NO_ADD_ALL_CIPHERS;
}

void key_crypto_quick(void)
{
	/* neither the configuration file nor the error texts (a key load
	 * reports its own causes), nor the legacy digest names (0.76 M
	 * instructions of detect's 9.2 M: OpenSSL turns each into its name map
	 * with its object identifier at the first fetch) */
	crypto_opts |= OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS |
		       OPENSSL_INIT_NO_ADD_ALL_DIGESTS;
	crypto_init();
}

void key_crypto_ready(void)
{
	crypto_init();
	if (!(crypto_opts & OPENSSL_INIT_NO_LOAD_CONFIG))
		OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL);
}

static int ssl_err(struct wd_err *err, int code, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "";
	if (e)
		ERR_error_string_n(e, buf, sizeof buf);
	ERR_clear_error();
	return wd_err_set(err, code, "%s%s%s", what, *buf ? ": " : "", buf);
}

static int wrap(EVP_PKEY *pkey, struct wd_key **out, const char *path, struct wd_err *err)
{
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(pkey);
		return wd_err_set(err, WD_ETRUST, "%s: not an Ed25519 key", path);
	}
	unsigned char raw[32];
	size_t len = sizeof raw;
	if (EVP_PKEY_get_raw_public_key(pkey, raw, &len) != 1 || len != sizeof raw) {
		EVP_PKEY_free(pkey);
		return ssl_err(err, WD_ETRUST, path);
	}
	struct wd_key *k = wd_xcalloc(1, sizeof *k);
	k->pkey = pkey;
	wd_sha256_hex(raw, sizeof raw, k->fpr);
	*out = k;
	return 0;
}

static int write_pem(const char *path, EVP_PKEY *pkey, bool priv, struct wd_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, priv ? 0600 : 0644); /* host: keygen */
	if (fd < 0)
		return wd_err_set(err, WD_EFAIL, "%s: cannot create: %s", path, strerror(errno));
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
	}
	int ok = priv ? PEM_write_PrivateKey(f, pkey, NULL, NULL, 0, NULL, NULL)
		      : PEM_write_PUBKEY(f, pkey);
	if (fclose(f) != 0 || ok != 1)
		return ssl_err(err, WD_EFAIL, path);
	return 0;
}

int key_generate(const char *prefix, char fpr[WD_FPR_HEX], struct wd_err *err)
{
	crypto_init();
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pkey)
		return ssl_err(err, WD_EFAIL, "cannot generate an Ed25519 key");
	char *keyp = wd_xasprintf("%s.key", prefix), *pubp = wd_xasprintf("%s.pub", prefix);
	int r = write_pem(keyp, pkey, true, err);
	if (!r)
		r = write_pem(pubp, pkey, false, err);
	struct wd_key *k = NULL;
	if (!r)
		r = wrap(pkey, &k, keyp, err);
	else
		EVP_PKEY_free(pkey);
	if (!r) {
		memcpy(fpr, k->fpr, WD_FPR_HEX);
		key_free(k);
	}
	free(keyp);
	free(pubp);
	return r;
}

/* An Ed25519 public key in PEM is a fixed 44-byte SubjectPublicKeyInfo: this
 * DER prefix, then the 32 raw bytes. Reading that shape directly spares
 * OpenSSL's generic decoder lookup, the slowest part of starting up; any
 * other shape goes to PEM_read_PUBKEY. NULL when not that shape. */
static EVP_PKEY *fast_ed25519_pub(const char *path)
{
	static const unsigned char spki[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
					       0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
	static const char begin[] = "-----BEGIN PUBLIC KEY-----", end[] = "-----END PUBLIC KEY-----";
	struct wd_buf b = {0};
	struct wd_err ignore;
	EVP_PKEY *pkey = NULL;
	if (wd_read_file(path, 4096, &b, &ignore) || !b.p) /* host: a key folder of the program or --keys */
		goto out;
	const char *s = strstr(b.p, begin), *e = s ? strstr(s, end) : NULL;
	if (!s || !e)
		goto out;
	s += sizeof begin - 1;
	unsigned char b64[128], der[96];
	int n = 0, pad = 0;
	for (; s < e; s++) {
		if (*s == '\r' || *s == '\n' || *s == ' ')
			continue;
		if (n == (int)sizeof b64)
			goto out;
		pad += *s == '=';
		b64[n++] = (unsigned char)*s;
	}
	if (n != 60 || pad != 1)
		goto out;
	if (EVP_DecodeBlock(der, b64, n) != 45 || memcmp(der, spki, sizeof spki))
		goto out;
	pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, der + sizeof spki, 32);
out:
	wd_buf_free(&b);
	return pkey;
}

/* A PEM key file is a few hundred bytes; a BOM in front (a key file saved
 * by a Windows editor) is skipped, since OpenSSL's PEM reader would not find
 * the BEGIN line behind it. */
#define KEY_FILE_MAX (64 * 1024)

static int load(const char *path, bool priv, struct wd_key **out, struct wd_err *err)
{
	crypto_init();
	EVP_PKEY *fast = priv ? NULL : fast_ed25519_pub(path);
	if (fast)
		return wrap(fast, out, path, err);
	struct wd_buf b = {0};
	if (wd_read_file(path, KEY_FILE_MAX, &b, err)) { /* host: the program's keys or --keys */
		wd_buf_free(&b);
		/* the message names the file and the cause */
		return wd_err_recode(err, WD_ETRUST);
	}
	size_t skip = b.len >= 3 && !memcmp(b.p, "\xEF\xBB\xBF", 3) ? 3 : 0;
	BIO *bio = BIO_new_mem_buf(b.p + skip, (int)(b.len - skip));
	EVP_PKEY *pkey = !bio ? NULL
		       : priv ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
			      : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	wd_buf_free(&b);
	if (!pkey) {
		ERR_clear_error();
		return wd_err_set(err, WD_ETRUST, "%s: not a PEM %s key", path,
				  priv ? "private" : "public");
	}
	return wrap(pkey, out, path, err);
}

int key_load_private(const char *path, struct wd_key **out, struct wd_err *err)
{
	return load(path, true, out, err);
}

int key_load_public(const char *path, struct wd_key **out, struct wd_err *err)
{
	return load(path, false, out, err);
}

void key_free(struct wd_key *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

const char *key_fingerprint(const struct wd_key *k)
{
	return k->fpr;
}

int key_sign(const struct wd_key *k, const void *msg, size_t len, unsigned char sig[WD_SIG_LEN],
	     struct wd_err *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t siglen = WD_SIG_LEN;
	int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
		 EVP_DigestSign(ctx, sig, &siglen, msg, len) == 1 && siglen == WD_SIG_LEN;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return ssl_err(err, WD_EFAIL, "cannot sign (is this a private key?)");
	return 0;
}

bool key_verify(const struct wd_key *k, const void *msg, size_t len,
		const unsigned char sig[WD_SIG_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool ok = ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
		  EVP_DigestVerify(ctx, sig, WD_SIG_LEN, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

const char *key_role_name(enum key_role role)
{
	return role == KEY_ROLE_REPO ? "repo" : "license";
}

int keyring_add_key(struct keyring *kr, const char *pub_path, enum key_role role,
		    struct wd_err *err)
{
	struct wd_key *k;
	int r = key_load_public(pub_path, &k, err);
	if (r)
		return r;
	for (size_t i = 0; i < kr->n; i++)
		if (kr->keys[i].role == role && !strcmp(kr->keys[i].key->fpr, k->fpr)) {
			key_free(k);
			return 0;
		}
	kr->keys = wd_xrealloc(kr->keys, (kr->n + 1) * sizeof *kr->keys);
	kr->keys[kr->n].key = k;
	kr->keys[kr->n].role = role;
	kr->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_role_dir(struct keyring *kr, const char *dir, enum key_role role,
			struct wd_err *err)
{
	char *sub = wd_path_join(dir, key_role_name(role));
	DIR *d = opendir(sub); /* host: the program's key folder or --keys, never the volume's */
	if (!d) {
		free(sub);
		return 0;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".pub")) {
			names = wd_xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = wd_xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		char *p = wd_path_join(sub, names[i]);
		if (!r)
			r = keyring_add_key(kr, p, role, err);
		free(p);
		free(names[i]);
	}
	free(names);
	free(sub);
	return r;
}

static int add_revoked(struct keyring *kr, const char *dir, struct wd_err *err)
{
	char *path = wd_path_join(dir, "revoked");
	struct wd_buf b = {0};
	int r = 0;
	if (wd_exists(path)) { /* host: a key folder of the program or --keys */
		r = wd_read_file(path, 1 << 20, &b, err); /* host: the same */
		/* Lines are read as C strings: a NUL would silently end the list
		 * early and leave the keys after it trusted. */
		const char *nul = r || !b.len ? NULL : memchr(b.p, '\0', b.len);
		if (nul) {
			size_t line = 1;
			for (const char *c = b.p; c < nul; c++)
				line += *c == '\n';
			r = wd_err_set(err, WD_ETRUST, "%s line %zu: holds a NUL byte, so the list of "
				       "revoked keys is damaged; restore it", path, line);
		}
		for (char *line = b.p, *next; !r && line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			struct wd_sv v = wd_sv_trim(wd_sv_cstr(line));
			if (v.n && v.p[v.n - 1] == '\r')
				v = wd_sv_trim(wd_sv_make(v.p, v.n - 1));
			if (!v.n || v.p[0] == '#')
				continue;
			char *fpr = wd_sv_dup(v);
			keyring_revoke(kr, fpr);
			free(fpr);
		}
	}
	wd_buf_free(&b);
	free(path);
	return r;
}

int keyring_add_dir(struct keyring *kr, const char *dir, struct wd_err *err)
{
	int r = add_role_dir(kr, dir, KEY_ROLE_REPO, err);
	if (!r)
		r = add_role_dir(kr, dir, KEY_ROLE_LICENSE, err);
	if (!r)
		r = add_revoked(kr, dir, err);
	return r;
}

void keyring_revoke(struct keyring *kr, const char *fpr)
{
	if (keyring_is_revoked(kr, fpr))
		return;
	kr->revoked = wd_xrealloc(kr->revoked, (kr->nrevoked + 1) * sizeof *kr->revoked);
	kr->revoked[kr->nrevoked++] = wd_xstrdup(fpr);
}

bool keyring_is_revoked(const struct keyring *kr, const char *fpr)
{
	for (size_t i = 0; i < kr->nrevoked; i++)
		if (!strcasecmp(kr->revoked[i], fpr))
			return true;
	return false;
}

const struct wd_key *keyring_find(const struct keyring *kr, const char *fpr, enum key_role role)
{
	if (keyring_is_revoked(kr, fpr))
		return NULL;
	for (size_t i = 0; i < kr->n; i++)
		if (kr->keys[i].role == role && !strcasecmp(kr->keys[i].key->fpr, fpr))
			return kr->keys[i].key;
	return NULL;
}

void keyring_free(struct keyring *kr)
{
	for (size_t i = 0; i < kr->n; i++)
		key_free(kr->keys[i].key);
	free(kr->keys);
	for (size_t i = 0; i < kr->nrevoked; i++)
		free(kr->revoked[i]);
	free(kr->revoked);
	memset(kr, 0, sizeof *kr);
}
