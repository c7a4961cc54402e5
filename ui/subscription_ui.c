#include "ui/subscription_ui.h"

#include <stdlib.h>

#include "common/date.h"
#include "common/file.h"

static void ents_json(struct json *j, uint16_t mask)
{
	json_arr_begin(j, "entitlements");
	for (unsigned i = 0; i < SUB_ENT_MAX; i++) {
		if (!(mask & (1u << i)))
			continue;
		char name[8];
		const char *n = sub_entitlement_name(i);
		if (!n) {
			snprintf(name, sizeof name, "bit%u", i);
			n = name;
		}
		json_str(j, NULL, n);
	}
	json_arr_end(j);
}

void ui_sub_json(struct wd_ctx *ctx, enum sub_state st, const struct subscription *s,
		 int today)
{
	struct json *j = &ctx->j;
	json_str(j, "state", sub_state_name(st));
	if (!s) {
		json_null(j, "customer");
		json_arr_begin(j, "entitlements");
		json_arr_end(j);
		json_null(j, "issued");
		json_null(j, "expires");
		json_null(j, "days_left");
		json_null(j, "seats");
		json_null(j, "key_id");
		return;
	}
	char issued[WD_DATE_LEN], expires[WD_DATE_LEN];
	wd_date_format(s->issued, issued);
	wd_date_format(s->expires, expires);
	json_int(j, "customer", s->customer);
	ents_json(j, s->entitlements);
	json_str(j, "issued", issued);
	json_str(j, "expires", expires);
	json_int(j, "days_left", s->expires >= today ? s->expires - today : 0);
	json_int(j, "seats", s->seats);
	json_str(j, "key_id", s->id);
}

void ui_sub_text(struct wd_ctx *ctx, enum sub_state st, const struct subscription *s,
		 int today)
{
	const char *col = st == SUB_ACTIVE ? "green" : st == SUB_NONE ? "dim" : "red";
	ui_say(ctx, "Subscription:  %s%s%s\n", ui_color(ctx, col), sub_state_name(st),
	       ui_color(ctx, "reset"));
	if (!s)
		return;
	char issued[WD_DATE_LEN], expires[WD_DATE_LEN], ents[128];
	wd_date_format(s->issued, issued);
	wd_date_format(s->expires, expires);
	sub_entitlements_format(s->entitlements, ", ", ents, sizeof ents);
	ui_say(ctx, "Customer:      %lu\n", (unsigned long)s->customer);
	ui_say(ctx, "Entitlements:  %s\n", ents[0] ? ents : "none");
	ui_say(ctx, "Issued:        %s\n", issued);
	if (s->expires >= today)
		ui_say(ctx, "Expires:       %s (%d day%s left)\n", expires, s->expires - today,
		       s->expires - today == 1 ? "" : "s");
	else
		ui_say(ctx, "Expired:       %s (covers packages released up to then)\n", expires);
	ui_say(ctx, "Seats:         %u\n", s->seats);
	ui_say(ctx, "Key id:        %s\n", s->id);
}
