/* warpdrv activate and deactivate: a subscription key made the volume's
 * current one, or ended, through the session (license/activation.h keeps
 * the rows). Activation is checked first and stored after the front end
 * has asked, when a key is replaced. */
#ifndef WD_ACTIVATE_H
#define WD_ACTIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "license/activation.h"
#include "session/session.h"

struct key_activation {
	struct subscription sub; /* the key, verified against the trusted keys */
	enum sub_state st;       /* its state on this volume */
	int today;
	char old_id[SUB_ID_HEX]; /* the activated key's id, or "" */
	bool same;               /* the key is the activated one already */
};

/* The key's text checked: parsed, verified, and refused when the volume's
 * state rules it out (a clock set back, or revoked). Writes nothing. */
int activate_check(struct session *s, const char *text, size_t len, struct key_activation *ka,
		   struct wd_err *err);
/* The checked key made the current one; the state folder and database are
 * made if there are none. */
int activate_store(struct session *s, const struct key_activation *ka, struct wd_err *err);
/* The current key ended ("deactivated"; it stays in the history); id gets
 * its id, or "" when none is activated. Under the session's dry run only
 * the id is read. */
int deactivate_key(struct session *s, char id[SUB_ID_HEX], struct wd_err *err);

#endif
