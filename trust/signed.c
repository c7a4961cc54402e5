#include "trust/signed.h"

#include <ctype.h>
#include <string.h>

int signed_append(struct wd_buf *b, const struct wd_key *key, struct wd_err *err)
{
	if (b->len && b->p[b->len - 1] != '\n')
		wd_buf_addc(b, '\n');
	unsigned char sig[WD_SIG_LEN];
	int r = key_sign(key, b->p, b->len, sig, err);
	if (r)
		return r;
	char hex[2 * WD_SIG_LEN + 1];
	wd_hex(sig, WD_SIG_LEN, hex);
	wd_buf_addf(b, "signature %s %s\n", key_fingerprint(key), hex);
	return 0;
}

static int unhex(const char *s, size_t n, unsigned char *out)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			int c = s[2 * i + k];
			if (c >= '0' && c <= '9')
				v = v * 16 + (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (unsigned)(c - 'a' + 10);
			else
				return -1;
		}
		out[i] = (unsigned char)v;
	}
	return 0;
}

int signed_verify(const char *text, size_t len, const struct keyring *kr, const char *where,
		  size_t *body_len, char fpr[WD_FPR_HEX], struct wd_err *err)
{
	/* the last line, ignoring one final newline */
	size_t end = len && text[len - 1] == '\n' ? len - 1 : len;
	size_t start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	static const char tag[] = "signature ";
	size_t taglen = sizeof tag - 1, fl = WD_FPR_HEX - 1, sl = 2 * WD_SIG_LEN;
	if (end - start < taglen || memcmp(text + start, tag, taglen))
		return wd_err_set(err, WD_ETRUST, "%s: not signed (no signature line at the end)",
				  where);
	const char *f = text + start + taglen;
	unsigned char sig[WD_SIG_LEN];
	if (end - start != taglen + fl + 1 + sl || f[fl] != ' ' || unhex(f + fl + 1, WD_SIG_LEN, sig))
		return wd_err_set(err, WD_ETRUST, "%s: the signature line is malformed", where);
	char who[WD_FPR_HEX];
	memcpy(who, f, fl);
	who[fl] = '\0';
	for (size_t i = 0; i < fl; i++)
		if (!isxdigit((unsigned char)who[i]))
			return wd_err_set(err, WD_ETRUST, "%s: the signature line is malformed", where);
	if (keyring_is_revoked(kr, who))
		return wd_err_set(err, WD_ETRUST, "%s: signed by revoked key %s", where, who);
	const struct wd_key *k = keyring_find(kr, who, KEY_ROLE_REPO);
	if (!k)
		return wd_err_set(err, WD_ETRUST, "%s: signed by unknown key %s; to trust its "
				  "public key, copy it into /etc/warpdrv/keys/repo/ (or give --keys DIR "
				  "with it as DIR/repo/NAME.pub)", where, who);
	if (!key_verify(k, text, start, sig))
		return wd_err_set(err, WD_ETRUST, "%s: bad signature (the signed text was changed "
				  "or the signature is corrupt)", where);
	*body_len = start;
	if (fpr)
		memcpy(fpr, who, WD_FPR_HEX);
	return 0;
}
