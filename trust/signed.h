/* Signed texts: a manifest or an index whose last line is
 *     signature FINGERPRINT HEX-SIGNATURE
 * an Ed25519 signature, by the repository key with that fingerprint, over
 * every byte before that line. One scheme for both, so one check. */
#ifndef WD_SIGNED_H
#define WD_SIGNED_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "trust/keys.h"

/* Appends the signature line for the text already in b. */
int signed_append(struct wd_buf *b, const struct wd_key *key, struct wd_err *err);

/* Checks the signature line at the end of text against the trusted,
 * unrevoked repository keys. On success *body_len is the length of the signed
 * part and fpr (if not NULL) the signer. Every failure is WD_ETRUST with a
 * message starting with where. */
int signed_verify(const char *text, size_t len, const struct keyring *kr, const char *where,
		  size_t *body_len, char fpr[WD_FPR_HEX], struct wd_err *err);

#endif
