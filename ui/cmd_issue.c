/* warpdrv-admin issue: sign a subscription key with a licence key and print it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/date.h"
#include "trust/keys.h"
#include "license/subscription.h"
#include "ui/commands.h"

struct issue_opts {
	const char *key, *customer, *ents, *expires, *issued, *seats;
};

static int parse_opts(struct wd_ctx *ctx, int argc, char **argv, struct issue_opts *o)
{
	static const char *names[] = {"--key", "--customer", "--entitlements", "--expires"};
	const struct issue_args *a = UI_ARGS(ctx, struct issue_args);
	*o = (struct issue_opts){a->key, a->customer, a->entitlements, a->expires, a->issued,
				 a->seats};
	const char *const required[] = {o->key, o->customer, o->ents, o->expires};
	if (argc > 0)
		return ui_usage(ctx, "issue: unexpected argument '%s'", argv[0]);
	for (int k = 0; k < 4; k++)
		if (!required[k])
			return ui_usage(ctx, "issue: %s is required", names[k]);
	return 0;
}

static int number(struct wd_ctx *ctx, const char *opt, const char *s, unsigned long max,
		  unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < 1 || v > max)
		return ui_usage(ctx, "issue: %s %s: expected a number from 1 to %lu", opt, s, max);
	*out = v;
	return 0;
}

static int date(struct wd_ctx *ctx, const char *opt, const char *s, int *out)
{
	if (!wd_date_parse(s, out))
		return ui_usage(ctx, "issue: %s %s: expected a date as YYYY-MM-DD", opt, s);
	return 0;
}

static int fields(struct wd_ctx *ctx, const struct issue_opts *o, struct subscription *s)
{
	unsigned long customer, seats = 1;
	struct wd_err err;
	int rc = number(ctx, "--customer", o->customer, 0xffffffffUL, &customer);
	if (!rc && o->seats)
		rc = number(ctx, "--seats", o->seats, 0xffff, &seats);
	if (!rc)
		rc = date(ctx, "--expires", o->expires, &s->expires);
	if (!rc && o->issued)
		rc = date(ctx, "--issued", o->issued, &s->issued);
	else if (!rc && wd_today(&s->issued, &err))
		rc = ui_fail(ctx, -WD_EUSAGE, &err);
	if (!rc && sub_entitlements_parse(o->ents, &s->entitlements, &err))
		rc = ui_usage(ctx, "issue: --entitlements: %s", err.msg);
	if (!rc && s->expires < s->issued)
		rc = ui_usage(ctx, "issue: --expires %s is before the issue date", o->expires);
	s->customer = (uint32_t)customer;
	s->seats = (unsigned)seats;
	return rc;
}

/* The key (text), or under --dry-run what it would hold and not the key. */
static void report(struct wd_ctx *ctx, const struct subscription *s, const char *text)
{
	char issued[WD_DATE_LEN], expires[WD_DATE_LEN], ents[128];
	wd_date_format(s->issued, issued);
	wd_date_format(s->expires, expires);
	if (!ctx->json) {
		if (ctx->dry_run) {
			sub_entitlements_format(s->entitlements, ", ", ents, sizeof ents);
			ui_say(ctx, "Would issue key id %s for customer %lu: %s, %s to %s, %u "
			       "installation%s (--dry-run: the key is not printed).\n", s->id,
			       (unsigned long)s->customer, ents, issued, expires, s->seats,
			       s->seats == 1 ? "" : "s");
			return;
		}
		printf("%s\n", text);
		if (!ctx->quiet)
			fprintf(stderr, "key id %s\n", s->id);
		return;
	}
	sub_entitlements_format(s->entitlements, ",", ents, sizeof ents);
	json_obj_begin(&ctx->j, NULL);
	if (ctx->dry_run)
		json_null(&ctx->j, "key");
	else
		json_str(&ctx->j, "key", text);
	json_str(&ctx->j, "key_id", s->id);
	json_int(&ctx->j, "customer", s->customer);
	json_arr_begin(&ctx->j, "entitlements");
	for (char *save = NULL, *t = strtok_r(ents, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_str(&ctx->j, NULL, t);
	json_arr_end(&ctx->j);
	json_str(&ctx->j, "issued", issued);
	json_str(&ctx->j, "expires", expires);
	json_int(&ctx->j, "seats", s->seats);
	json_bool(&ctx->j, "dry_run", ctx->dry_run);
	json_obj_end(&ctx->j);
	json_finish(&ctx->j);
}

int cmd_issue(struct wd_ctx *ctx, int argc, char **argv)
{
	struct issue_opts o = {0};
	struct subscription s = {0};
	int rc = parse_opts(ctx, argc, argv, &o);
	if (!rc)
		rc = fields(ctx, &o, &s);
	if (rc)
		return rc;
	const struct wd_optlist *rl = &UI_ARGS(ctx, struct issue_args)->repo;
	const char *const *repos = rl->v;
	int nrepos = rl->n;
	if (nrepos > SUB_REPOS_MAX)
		return ui_usage(ctx, "issue: --repo: at most %d repositories", SUB_REPOS_MAX);
	for (int i = 0; i < nrepos; i++) {
		if (strncmp(repos[i], "https://", 8) || strlen(repos[i]) > SUB_URL_MAX ||
		    strpbrk(repos[i], "+ \t\r\n"))
			return ui_usage(ctx, "issue: --repo %s: an https:// URL of at most %d "
					"characters, without '+' or blanks", repos[i], SUB_URL_MAX);
		snprintf(s.repos[i], sizeof s.repos[i], "%s", repos[i]);
	}
	s.nrepos = (unsigned)nrepos;
	struct wd_key *k;
	struct wd_err err;
	int r = key_load_private(o.key, &k, &err);
	if (!r) {
		r = sub_sign(&s, k, &err);
		key_free(k);
	}
	if (r)
		return ui_fail(ctx, r, &err);
	struct wd_buf text = {0};
	sub_format_full(&s, &text);
	report(ctx, &s, wd_buf_cstr(&text));
	wd_buf_free(&text);
	return 0;
}

const struct wd_opt cmd_issue_opts[] = {
	WD_OPT_STRING(struct issue_args, key, "key", 0, "FILE",
		      "the licence private key that signs the subscription key"),
	WD_OPT_STRING(struct issue_args, customer, "customer", 0, "N", "the customer number"),
	WD_OPT_STRING(struct issue_args, entitlements, "entitlements", 0, "LIST",
		      "what it entitles, such as drivers,acpi"),
	WD_OPT_STRING(struct issue_args, expires, "expires", 0, "YYYY-MM-DD", "the expiry"),
	WD_OPT_STRING(struct issue_args, issued, "issued", 0, "YYYY-MM-DD",
		      "the day of issue (default today)"),
	WD_OPT_STRING(struct issue_args, seats, "seats", 0, "N", "installations (default 1)"),
	WD_OPT_REPEAT(struct issue_args, repo, "repo", 0, "URL",
		      "a subscription repository the key may be sent to (https; repeatable)"),
	{0},
};
