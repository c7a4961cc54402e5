/* Subscription keys: the text a customer pastes, what it says, who signed it.
 *
 * A key is 80 bytes (a 16-byte payload and its 64-byte Ed25519 signature by a
 * licence key) written as "WD-" and 26 groups of five base-32 characters. The
 * last two characters are check symbols over GF(32) that catch any single
 * mistyped character and tell which group holds it, before any signature is
 * checked. docs/subscription.md has the layout and the arithmetic. */
#ifndef WD_SUBSCRIPTION_H
#define WD_SUBSCRIPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "trust/keys.h"

#define SUB_PREFIX "WD"
#define SUB_GROUPS 26
#define SUB_GROUP_LEN 5
#define SUB_SYMBOLS (SUB_GROUPS * SUB_GROUP_LEN)          /* 130 */
#define SUB_TEXT_LEN (3 + SUB_SYMBOLS + SUB_GROUPS - 1)   /* 158: "WD-" and dashes */
#define SUB_PAYLOAD_LEN 16
#define SUB_BYTES (SUB_PAYLOAD_LEN + WD_SIG_LEN)          /* 80 */
#define SUB_ID_HEX 17                                     /* 16 hex digits and a NUL */
#define SUB_VERSION 1
#define SUB_REPOS_MAX 4   /* repositories a key may name */
#define SUB_URL_MAX 200   /* bytes of one */
#define SUB_INPUT_MAX 4096 /* pasted text, spaces and line breaks included */
#define SUB_FILE_MAX (64 * 1024) /* a key file read whole; larger is refused unread */

/* Entitlements are bits of a 16-bit mask; names are what users and the
 * package manifests say. */
#define SUB_ENT_MAX 16

struct subscription {
	unsigned version;
	uint16_t entitlements; /* bit mask, see sub_entitlement_name */
	uint32_t customer;
	int issued, expires;   /* days since 1970-01-01; the key covers up to expires */
	unsigned seats;        /* installations the customer paid for */
	unsigned char bytes[SUB_BYTES]; /* payload, then signature */
	char id[SUB_ID_HEX];   /* the key id: see sub_key_id */
	/* The vendor's repositories the key may be sent to as credentials
	 * (warpdrv-admin issue --repo URL): written after the key's symbols as
	 * "+URL", counted in payload byte 13 and covered by the signature. */
	unsigned nrepos;
	char repos[SUB_REPOS_MAX][SUB_URL_MAX + 1];
};

/* The name of entitlement bit i, or NULL when this build knows none. */
const char *sub_entitlement_name(unsigned bit);
/* "drivers,acpi" -> mask; an unknown name is a usage error naming it. */
int sub_entitlements_parse(const char *list, uint16_t *mask, struct wd_err *err);
/* The bit of one entitlement name, or -1. */
int sub_entitlement_bit(const char *name);
/* "drivers, acpi" (unknown bits as "bitN"); out gets a NUL-terminated string. */
void sub_entitlements_format(uint16_t mask, const char *sep, char *out, size_t size);

/* Fills s->bytes and s->id from the fields and a licence private key. */
int sub_sign(struct subscription *s, const struct wd_key *license_key, struct wd_err *err);
/* The canonical text of s->bytes: "WD-XXXXX-...". */
void sub_format(const struct subscription *s, char out[SUB_TEXT_LEN + 1]);

/* The key's whole text: sub_format's, then "+URL" for each repository it
 * names (appended to out). */
void sub_format_full(const struct subscription *s, struct wd_buf *out);
/* Whether the key names a repository at url's place (scheme, host, port). */
bool sub_names_repo(const struct subscription *s, const char *url);

/* Reads pasted text forgivingly (any case, spaces and line breaks ignored,
 * O read as 0, I and L as 1) into the 80 bytes. A mistyped character is
 * reported with its group; nothing here checks the signature. */
int sub_read_text(const char *text, size_t len, unsigned char bytes[SUB_BYTES],
		  struct wd_err *err);
/* Reads a key file (activate --file) of at most SUB_FILE_MAX bytes into
 * out; a larger one is a subscription refusal (WD_ELICENSE) like any other
 * text that is not a key, a missing or unreadable one WD_EFAIL. */
int sub_read_file(const char *path, struct wd_buf *out, struct wd_err *err);
/* Parses the payload of bytes into s (version, fields, key id). */
int sub_from_bytes(const unsigned char bytes[SUB_BYTES], struct subscription *s,
		   struct wd_err *err);
/* sub_read_text, then sub_from_bytes: a key whose signature is not checked yet. */
int sub_decode(const char *text, size_t len, struct subscription *s, struct wd_err *err);

/* Checks the signature against the keyring's trusted licence keys (never a
 * repository key). *signer (may be NULL) gets the fingerprint of the licence
 * key that verified. The refusal says whether a repository key or a revoked
 * licence key signed it, or no trusted licence key did. */
int sub_verify(const struct subscription *s, const struct keyring *kr, const char **signer,
	       struct wd_err *err);
/* sub_decode, then sub_verify. */
int sub_parse(const char *text, size_t len, const struct keyring *kr, struct subscription *s,
	      struct wd_err *err);

#endif
