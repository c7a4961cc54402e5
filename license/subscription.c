#include "license/subscription.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"
#include "common/hash.h"
#include "common/url.h"

/* Crockford's base 32: digits and letters without I, L, O (look-alikes of 1
 * and 0) and U. */
static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* Signatures are over this context and the payload, so no other signed
 * bytes of warpdrv (an index, a package) can pass for a key. */
static const char sign_context[] = "warpdrv subscription key\n";

static const char *const ent_names[SUB_ENT_MAX] = {"drivers", "acpi"};

const char *sub_entitlement_name(unsigned bit)
{
	return bit < SUB_ENT_MAX ? ent_names[bit] : NULL;
}

int sub_entitlement_bit(const char *name)
{
	for (unsigned i = 0; i < SUB_ENT_MAX; i++)
		if (ent_names[i] && !strcasecmp(ent_names[i], name))
			return (int)i;
	return -1;
}

int sub_entitlements_parse(const char *list, uint16_t *mask, struct wd_err *err)
{
	*mask = 0;
	char *copy = wd_xstrdup(list), *save = NULL;
	int r = 0;
	for (char *t = strtok_r(copy, ", ", &save); t && !r; t = strtok_r(NULL, ", ", &save)) {
		int bit = sub_entitlement_bit(t);
		if (bit < 0)
			r = wd_err_set(err, WD_EUSAGE,
				       "unknown entitlement '%s' (known: drivers, acpi)", t);
		else
			*mask |= (uint16_t)(1u << bit);
	}
	free(copy);
	if (!r && !*mask)
		r = wd_err_set(err, WD_EUSAGE, "no entitlement given (known: drivers, acpi)");
	return r;
}

void sub_entitlements_format(uint16_t mask, const char *sep, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < SUB_ENT_MAX; i++) {
		if (!(mask & (1u << i)))
			continue;
		char unknown[8];
		const char *name = ent_names[i];
		if (!name) {
			snprintf(unknown, sizeof unknown, "bit%u", i);
			name = unknown;
		}
		int n = snprintf(out + used, size - used, "%s%s", used ? sep : "", name);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

/* GF(32) with the primitive polynomial x^5 + x^2 + 1: alpha = 2 has order 31. */
struct gf32 {
	unsigned char exp[62], log[32];
};

static void gf_init(struct gf32 *gf)
{
	unsigned x = 1;
	for (int i = 0; i < 31; i++) {
		gf->exp[i] = gf->exp[i + 31] = (unsigned char)x;
		gf->log[x] = (unsigned char)i;
		x <<= 1;
		if (x & 32)
			x ^= 0x25;
	}
	gf->log[0] = 0;
}

static unsigned gf_mul_exp(const struct gf32 *gf, unsigned v, unsigned e)
{
	return v ? gf->exp[gf->log[v] + e % 31] : 0;
}

/* The syndrome of 130 symbols. Data symbol j of group g (0-based) at place k
 * in its group has the column alpha^k * (1, alpha^g); the two check symbols
 * have (1, 0) and (0, 1). A single wrong symbol e at j gives e times its
 * column, whose ratio S1/S0 names the group. */
static void syndrome(const struct gf32 *gf, const unsigned char sym[SUB_SYMBOLS], unsigned s[2])
{
	s[0] = s[1] = 0;
	for (unsigned j = 0; j < SUB_SYMBOLS - 2; j++) {
		unsigned g = j / SUB_GROUP_LEN, k = j % SUB_GROUP_LEN;
		s[0] ^= gf_mul_exp(gf, sym[j], k);
		s[1] ^= gf_mul_exp(gf, sym[j], k + g);
	}
	s[0] ^= sym[SUB_SYMBOLS - 2];
	s[1] ^= sym[SUB_SYMBOLS - 1];
}

/* The 1-based group a nonzero syndrome points at, or 0 when it fits no single
 * mistyped character. */
static unsigned syndrome_group(const struct gf32 *gf, const unsigned s[2])
{
	if (!s[0] || !s[1])
		return SUB_GROUPS; /* one of the check symbols, in the last group */
	unsigned g = (gf->log[s[1]] + 31 - gf->log[s[0]]) % 31;
	return g < SUB_GROUPS ? g + 1 : 0;
}

static void bytes_to_symbols(const unsigned char *b, unsigned char sym[SUB_SYMBOLS])
{
	for (unsigned j = 0; j < SUB_SYMBOLS - 2; j++) {
		unsigned v = 0;
		for (unsigned i = 0; i < 5; i++) {
			unsigned bit = j * 5 + i;
			v = v << 1 | ((b[bit / 8] >> (7 - bit % 8)) & 1);
		}
		sym[j] = (unsigned char)v;
	}
}

static void symbols_to_bytes(const unsigned char sym[SUB_SYMBOLS], unsigned char *b)
{
	memset(b, 0, SUB_BYTES);
	for (unsigned j = 0; j < SUB_SYMBOLS - 2; j++)
		for (unsigned i = 0; i < 5; i++) {
			unsigned bit = j * 5 + i;
			if (sym[j] >> (4 - i) & 1)
				b[bit / 8] |= (unsigned char)(0x80 >> (bit % 8));
		}
}

void sub_format(const struct subscription *s, char out[SUB_TEXT_LEN + 1])
{
	struct gf32 gf;
	gf_init(&gf);
	unsigned char sym[SUB_SYMBOLS];
	bytes_to_symbols(s->bytes, sym);
	sym[SUB_SYMBOLS - 2] = sym[SUB_SYMBOLS - 1] = 0;
	unsigned syn[2];
	syndrome(&gf, sym, syn);
	sym[SUB_SYMBOLS - 2] = (unsigned char)syn[0];
	sym[SUB_SYMBOLS - 1] = (unsigned char)syn[1];
	char *p = out;
	memcpy(p, SUB_PREFIX, strlen(SUB_PREFIX));
	p += strlen(SUB_PREFIX);
	for (unsigned j = 0; j < SUB_SYMBOLS; j++) {
		if (j % SUB_GROUP_LEN == 0)
			*p++ = '-';
		*p++ = alphabet[sym[j]];
	}
	*p = '\0';
}

/* The value of a key character read forgivingly, or -1. */
static int char_value(int c)
{
	c = toupper(c);
	if (c == 'O')
		c = '0';
	else if (c == 'I' || c == 'L')
		c = '1';
	const char *p = c ? strchr(alphabet, c) : NULL;
	return p ? (int)(p - alphabet) : -1;
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void show_char(int c, char out[8])
{
	if (c > ' ' && c < 127)
		snprintf(out, 8, "'%c'", c);
	else
		snprintf(out, 8, "0x%02X", (unsigned)c & 0xff);
}

int sub_read_file(const char *path, struct wd_buf *out, struct wd_err *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SUB_FILE_MAX)
		return wd_err_set(err, WD_ELICENSE, "%s: %lld bytes, more than a key file holds "
				  "(at most %d; a subscription key has %d characters)", path,
				  (long long)st.st_size, SUB_FILE_MAX, SUB_TEXT_LEN);
	int r = wd_read_file(path, SUB_FILE_MAX, out, err); /* host: a key file named on the command line */
	if (r && out->len > SUB_FILE_MAX) /* grew while read, or not a regular file */
		r = wd_err_set(err, WD_ELICENSE, "%s: more than %d bytes, more than a key file "
			       "holds (a subscription key has %d characters)", path, SUB_FILE_MAX,
			       SUB_TEXT_LEN);
	return r;
}

/* The key without blanks, the prefix and its dash. A UTF-8 byte order mark
 * in front (Notepad saves one) is no part of the key. */
static int strip(const char *text, size_t len, struct wd_buf *body, struct wd_err *err)
{
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	if (len > SUB_INPUT_MAX)
		return wd_err_set(err, WD_ELICENSE,
				  "the text is %zu bytes long; a subscription key has %d characters",
				  len, SUB_TEXT_LEN);
	struct wd_buf all = {0};
	for (size_t i = 0; i < len; i++)
		if (!is_blank((unsigned char)text[i]))
			wd_buf_addc(&all, (char)toupper((unsigned char)text[i]));
	size_t plen = strlen(SUB_PREFIX);
	int r = 0;
	if (all.len == 0)
		r = wd_err_set(err, WD_ELICENSE, "the subscription key is empty");
	else if (all.len < plen || memcmp(all.p, SUB_PREFIX, plen) != 0)
		r = wd_err_set(err, WD_ELICENSE,
			       "this is not a warpdrv subscription key: a key starts with %s-",
			       SUB_PREFIX);
	if (!r) {
		size_t skip = plen;
		while (skip < all.len && all.p[skip] == '-')
			skip++;
		wd_buf_add(body, all.p + skip, all.len - skip);
	}
	wd_buf_free(&all);
	return r;
}

/* Checks the dash-separated groups: when the text has dashes, a group of the
 * wrong length is named; without dashes only the total counts. */
static int check_groups(const struct wd_buf *body, size_t nsym, struct wd_err *err)
{
	unsigned ngroups = 0, bad = 0;
	size_t badlen = 0, cur = 0;
	bool dashes = false;
	for (size_t i = 0; i <= body->len; i++) {
		if (i < body->len && body->p[i] != '-') {
			cur++;
			continue;
		}
		if (i < body->len)
			dashes = true;
		if (cur) {
			ngroups++;
			if (cur != SUB_GROUP_LEN && !bad) {
				bad = ngroups;
				badlen = cur;
			}
		}
		cur = 0;
	}
	if (dashes && ngroups == SUB_GROUPS && bad)
		return wd_err_set(err, WD_ELICENSE,
				  "group %u of %d has %zu characters, not %d: a character is %s there",
				  bad, SUB_GROUPS, badlen, SUB_GROUP_LEN,
				  badlen < SUB_GROUP_LEN ? "missing" : "doubled");
	if (nsym == SUB_SYMBOLS)
		return 0;
	if (dashes && ngroups != SUB_GROUPS)
		return wd_err_set(err, WD_ELICENSE,
				  "the key has %u groups, not %d: %s", ngroups, SUB_GROUPS,
				  ngroups < SUB_GROUPS ? "part of it is missing" : "it is too long");
	return wd_err_set(err, WD_ELICENSE,
			  "the key has %zu characters after %s-, not %d (%d groups of %d): %s",
			  nsym, SUB_PREFIX, SUB_SYMBOLS, SUB_GROUPS, SUB_GROUP_LEN,
			  nsym < SUB_SYMBOLS ? "part of it is missing" : "it is too long");
}

/* The 1-based group of symbol i, counting dash-separated groups when the
 * text has dashes (so a misplaced dash does not shift the blame). */
static unsigned group_of(const struct wd_buf *body, size_t pos, size_t sym_index)
{
	unsigned g = 1;
	bool dashes = memchr(body->p, '-', body->len) != NULL;
	if (!dashes)
		return (unsigned)(sym_index / SUB_GROUP_LEN) + 1;
	for (size_t i = 0; i < pos; i++)
		if (body->p[i] == '-' && i > 0 && body->p[i - 1] != '-')
			g++;
	return g;
}

int sub_read_text(const char *text, size_t len, unsigned char bytes[SUB_BYTES],
		  struct wd_err *err)
{
	struct wd_buf body = {0};
	int r = strip(text, len, &body, err);
	unsigned char sym[SUB_SYMBOLS];
	size_t n = 0;
	for (size_t i = 0; !r && i < body.len; i++) {
		if (body.p[i] == '-')
			continue;
		int v = char_value((unsigned char)body.p[i]);
		if (v < 0) {
			char shown[8];
			show_char((unsigned char)body.p[i], shown);
			r = wd_err_set(err, WD_ELICENSE,
				       "group %u of %d holds %s, which is not a key character "
				       "(keys use digits and letters other than I, L, O and U): "
				       "compare it with the key you were given",
				       group_of(&body, i, n), SUB_GROUPS, shown);
		} else if (n < SUB_SYMBOLS) {
			sym[n] = (unsigned char)v;
		}
		n++;
	}
	if (!r)
		r = check_groups(&body, n, err);
	wd_buf_free(&body);
	if (r)
		return r;
	struct gf32 gf;
	gf_init(&gf);
	unsigned syn[2];
	syndrome(&gf, sym, syn);
	if (syn[0] || syn[1]) {
		unsigned g = syndrome_group(&gf, syn);
		if (g)
			return wd_err_set(err, WD_ELICENSE,
					  "group %u of %d looks mistyped: compare it with the key "
					  "you were given", g, SUB_GROUPS);
		return wd_err_set(err, WD_ELICENSE,
				  "the key looks mistyped in more than one place: compare it "
				  "with the key you were given");
	}
	symbols_to_bytes(sym, bytes);
	return 0;
}

static unsigned get16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* The key id: the first 8 bytes of SHA-256 over payload and signature, in
 * hex. Short enough to read out, and what the revocation list names. */
static void key_id(const unsigned char bytes[SUB_BYTES], char id[SUB_ID_HEX])
{
	unsigned char h[WD_SHA256_LEN];
	wd_sha256(bytes, SUB_BYTES, h);
	wd_hex(h, 8, id);
}

int sub_from_bytes(const unsigned char bytes[SUB_BYTES], struct subscription *s,
		   struct wd_err *err)
{
	memset(s, 0, sizeof *s);
	const unsigned char *p = bytes;
	s->version = p[0];
	if (s->version != SUB_VERSION)
		return wd_err_set(err, WD_ELICENSE,
				  "the key has format version %u, which this warpdrv does not know "
				  "(it reads version %d): update warpdrv", s->version, SUB_VERSION);
	s->entitlements = (uint16_t)get16(p + 1);
	s->customer = (uint32_t)p[3] << 24 | (uint32_t)p[4] << 16 | (uint32_t)p[5] << 8 | p[6];
	s->issued = (int)get16(p + 7);
	s->expires = (int)get16(p + 9);
	s->seats = get16(p + 11);
	s->nrepos = p[13];
	if (p[13] > SUB_REPOS_MAX || p[14] || p[15] || !s->customer || !s->seats ||
	    s->expires < s->issued)
		return wd_err_set(err, WD_ELICENSE,
				  "the key's contents are malformed (version %u): it was not issued "
				  "by warpdrv-admin", s->version);
	memcpy(s->bytes, bytes, SUB_BYTES);
	key_id(bytes, s->id);
	return 0;
}

/* Where the "+https://" of the first repository starts (len: none). */
static size_t repos_start(const char *text, size_t len)
{
	static const char mark[] = "+https://";
	for (size_t i = 0; i + sizeof mark - 1 <= len; i++)
		if (!memcmp(text + i, mark, sizeof mark - 1))
			return i;
	return len;
}

/* The "+https://..." parts after the key's symbols: as many as payload
 * byte 13 says, each a URL of at most SUB_URL_MAX bytes (blanks around
 * them are no part of them). */
static int read_repos(const char *t, size_t n, struct subscription *s, struct wd_err *err)
{
	unsigned k = 0;
	while (n) {
		/* t[0] is the '+' of "+https://" */
		t++, n--;
		size_t len = repos_start(t, n);
		size_t a = 0, b = len;
		while (a < b && is_blank((unsigned char)t[a]))
			a++;
		while (b > a && is_blank((unsigned char)t[b - 1]))
			b--;
		bool printable = true;
		for (size_t i = a; i < b; i++)
			printable &= t[i] > ' ' && t[i] < 0x7f;
		if (k >= SUB_REPOS_MAX || b - a > SUB_URL_MAX || b == a || !printable)
			return wd_err_set(err, WD_ELICENSE, "the repositories after the key (+URL) "
					  "are malformed: at most %d, each of 1 to %d printable "
					  "characters; paste the key as it was issued", SUB_REPOS_MAX,
					  SUB_URL_MAX);
		memcpy(s->repos[k], t + a, b - a);
		s->repos[k++][b - a] = '\0';
		t += len, n -= len;
	}
	if (k != s->nrepos)
		return wd_err_set(err, WD_ELICENSE, "the key names %u repositories (+URL after it), "
				  "and the text has %u: paste the whole key as it was issued",
				  s->nrepos, k);
	return 0;
}

int sub_decode(const char *text, size_t len, struct subscription *s, struct wd_err *err)
{
	size_t klen = repos_start(text, len);
	unsigned char bytes[SUB_BYTES];
	int r = sub_read_text(text, klen, bytes, err);
	if (!r)
		r = sub_from_bytes(bytes, s, err);
	if (!r)
		r = read_repos(text + klen, len - klen, s, err);
	return r;
}

void sub_format_full(const struct subscription *s, struct wd_buf *out)
{
	char text[SUB_TEXT_LEN + 1];
	sub_format(s, text);
	wd_buf_adds(out, text);
	for (unsigned i = 0; i < s->nrepos && i < SUB_REPOS_MAX; i++)
		wd_buf_addf(out, "+%s", s->repos[i]);
}

bool sub_names_repo(const struct subscription *s, const char *url)
{
	for (unsigned i = 0; i < s->nrepos && i < SUB_REPOS_MAX; i++)
		if (wd_url_same_place(s->repos[i], url))
			return true;
	return false;
}

/* What the signature covers: the context, the payload, and each repository
 * the key names, one a line. */
static void signed_message(const struct subscription *s, const unsigned char *payload,
			   struct wd_buf *msg)
{
	wd_buf_add(msg, sign_context, sizeof sign_context - 1);
	wd_buf_add(msg, payload, SUB_PAYLOAD_LEN);
	for (unsigned i = 0; i < payload[13] && i < SUB_REPOS_MAX; i++)
		wd_buf_addf(msg, "%s\n", s->repos[i]);
}

int sub_sign(struct subscription *s, const struct wd_key *license_key, struct wd_err *err)
{
	if (s->issued < 0 || s->expires > 0xffff || s->expires < s->issued)
		return wd_err_set(err, WD_EUSAGE,
				  "the dates must lie between 1970-01-01 and 2149-06-06, expiry "
				  "not before issue");
	if (!s->customer || !s->seats || s->seats > 0xffff)
		return wd_err_set(err, WD_EUSAGE,
				  "the customer number must be 1 or more and the seats 1 to 65535");
	if (s->nrepos > SUB_REPOS_MAX)
		return wd_err_set(err, WD_EUSAGE, "a key names at most %d repositories",
				  SUB_REPOS_MAX);
	unsigned char *p = s->bytes;
	memset(p, 0, SUB_BYTES);
	s->version = SUB_VERSION;
	p[0] = SUB_VERSION;
	put16(p + 1, s->entitlements);
	p[3] = (unsigned char)(s->customer >> 24);
	p[4] = (unsigned char)(s->customer >> 16);
	p[5] = (unsigned char)(s->customer >> 8);
	p[6] = (unsigned char)s->customer;
	put16(p + 7, (unsigned)s->issued);
	put16(p + 9, (unsigned)s->expires);
	put16(p + 11, s->seats);
	p[13] = (unsigned char)s->nrepos;
	struct wd_buf msg = {0};
	signed_message(s, p, &msg);
	int r = key_sign(license_key, msg.p, msg.len, p + SUB_PAYLOAD_LEN, err);
	wd_buf_free(&msg);
	if (!r)
		key_id(p, s->id);
	return r;
}

static const char *verified_by(const struct subscription *s, const struct keyring *kr,
			       enum key_role role, bool revoked)
{
	struct wd_buf msg = {0};
	signed_message(s, s->bytes, &msg);
	const char *fpr = NULL;
	for (size_t i = 0; !fpr && i < kr->n; i++) {
		const struct wd_key *k = kr->keys[i].key;
		if (kr->keys[i].role != role ||
		    keyring_is_revoked(kr, key_fingerprint(k)) != revoked)
			continue;
		if (key_verify(k, msg.p, msg.len, s->bytes + SUB_PAYLOAD_LEN))
			fpr = key_fingerprint(k);
	}
	wd_buf_free(&msg);
	return fpr;
}

int sub_verify(const struct subscription *s, const struct keyring *kr, const char **signer,
	       struct wd_err *err)
{
	const char *fpr = verified_by(s, kr, KEY_ROLE_LICENSE, false);
	if (signer)
		*signer = fpr;
	if (fpr)
		return 0;
	/* The refusal says why, which costs a few more verifications only on
	 * the way to an error. */
	if ((fpr = verified_by(s, kr, KEY_ROLE_LICENSE, true)))
		return wd_err_set(err, WD_ELICENSE,
				  "key %s was signed by licence key %.16s..., which is revoked: "
				  "ask the vendor for a new key", s->id, fpr);
	if ((fpr = verified_by(s, kr, KEY_ROLE_REPO, false)) ||
	    (fpr = verified_by(s, kr, KEY_ROLE_REPO, true)))
		return wd_err_set(err, WD_ELICENSE,
				  "key %s was signed by repository key %.16s..., not by a licence "
				  "key: a repository key cannot issue subscription keys (wrong role)",
				  s->id, fpr);
	size_t nlic = 0;
	for (size_t i = 0; i < kr->n; i++)
		nlic += kr->keys[i].role == KEY_ROLE_LICENSE;
	if (!nlic)
		return wd_err_set(err, WD_ELICENSE,
				  "no trusted licence key to check key %s against: a key folder "
				  "needs license/*.pub (see --keys DIR)", s->id);
	return wd_err_set(err, WD_ELICENSE,
			  "bad signature: no trusted licence key verified key %s (%zu tried); "
			  "it was issued by an untrusted licence key or altered", s->id, nlic);
}

int sub_parse(const char *text, size_t len, const struct keyring *kr, struct subscription *s,
	      struct wd_err *err)
{
	int r = sub_decode(text, len, s, err);
	return r ? r : sub_verify(s, kr, NULL, err);
}
