/* What activate, license and deactivate share: the report of a
 * subscription, as text or JSON (the trusted keys: session_keyring). */
#ifndef WD_SUBSCRIPTION_UI_H
#define WD_SUBSCRIPTION_UI_H

#include "os2/volume.h"
#include "license/entitlement.h"
#include "trust/keys.h"
#include "ui/ui.h"

/* The fields of a subscription report into the JSON object being written
 * (never the key text). */
void ui_sub_json(struct wd_ctx *ctx, enum sub_state st, const struct subscription *s,
		 int today);
/* The same as lines of text on stdout. */
void ui_sub_text(struct wd_ctx *ctx, enum sub_state st, const struct subscription *s,
		 int today);

#endif
