/* The signed-text splitter. Any bytes as a signed text must be refused with a
 * trust error naming the input (the fuzzer cannot sign); any bytes signed
 * here must verify, give back their own length as the body, and stop
 * verifying once a byte of the body changes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trust/signed.h"
#include "fuzz_tmp.h"

static struct keyring kr;
static struct wd_key *key;

static void setup(void)
{
	char *prefix = wd_path_join(fz_tmp(), "repo");
	char *pub = wd_xasprintf("%s.pub", prefix), *priv = wd_xasprintf("%s.key", prefix);
	char fpr[WD_FPR_HEX];
	struct wd_err err;
	if (key_generate(prefix, fpr, &err) || key_load_private(priv, &key, &err) ||
	    keyring_add_key(&kr, pub, KEY_ROLE_REPO, &err))
		abort();
	free(prefix);
	free(pub);
	free(priv);
}

static void must_refuse(const char *text, size_t len)
{
	size_t body;
	struct wd_err err;
	int r = signed_verify(text, len, &kr, "fuzz", &body, NULL, &err);
	if (r != -WD_ETRUST || strncmp(err.msg, "fuzz: ", 6))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!key)
		setup();
	must_refuse((const char *)data, size);

	struct wd_buf b = {0};
	struct wd_err err;
	wd_buf_add(&b, data, size);
	if (signed_append(&b, key, &err))
		abort();
	size_t body = 0, want = size + (size && data[size - 1] != '\n');
	char fpr[WD_FPR_HEX];
	if (signed_verify(b.p, b.len, &kr, "fuzz", &body, fpr, &err) || body != want ||
	    memcmp(b.p, data, size) || strcmp(fpr, key_fingerprint(key)))
		abort();
	if (body) {
		b.p[size ? data[0] % body : 0] ^= 1;
		must_refuse(b.p, b.len);
	}
	wd_buf_free(&b);
	return 0;
}
