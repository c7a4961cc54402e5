/* warpdrv-admin keygen / pack / index / verify: the vendor's side of the
 * repository. */
#include <stdlib.h>
#include <string.h>

#include "catalog/index_build.h"
#include "catalog/package.h"
#include "trust/signed.h"
#include "common/date.h"
#include "common/file.h"
#include "ui/commands.h"

int cmd_admin_keygen(struct wd_ctx *ctx, int argc, char **argv)
{
	const char *out = UI_ARGS(ctx, struct keygen_args)->out;
	if (argc > 0)
		return ui_usage(ctx, "keygen: unexpected argument '%s'", argv[0]);
	if (!out)
		return ui_usage(ctx, "keygen: --out PREFIX is required");
	struct wd_err err = {0};
	char fpr[WD_FPR_HEX];
	if (ctx->dry_run) {
		/* the folder the pair would go to must be there, as for a real run */
		char *dir = wd_dirname(out);
		bool there = wd_is_dir(dir); /* host: the vendor's output */
		int r = there ? 0 : wd_err_set(&err, WD_EFAIL, "%s.key: cannot create: no folder %s",
					       out, dir);
		free(dir);
		if (r)
			return ui_fail(ctx, r, &err);
	} else {
		int r = key_generate(out, fpr, &err);
		if (r)
			return ui_fail(ctx, r, &err);
	}
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		if (ctx->dry_run)
			json_null(&ctx->j, "fingerprint");
		else
			json_str(&ctx->j, "fingerprint", fpr);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (ctx->dry_run) {
		ui_say(ctx, "Would write %s.key and %s.pub (--dry-run: nothing written).\n", out, out);
	} else {
		printf("%s\n", fpr);
		ui_say(ctx, "Wrote %s.key (private: keep it secret) and %s.pub.\n", out, out);
	}
	return 0;
}

static int load_key(const char *path, struct wd_key **k, struct wd_err *err)
{
	return key_load_private(path, k, err);
}

int cmd_admin_pack(struct wd_ctx *ctx, int argc, char **argv)
{
	const struct pack_args *a = UI_ARGS(ctx, struct pack_args);
	const char *recipe = NULL, *keyp = a->key, *out = a->out, *vendor = a->vendor_files;
	for (int i = 0; i < argc; i++) {
		if (recipe)
			return ui_usage(ctx, "pack: unexpected argument '%s'", argv[i]);
		recipe = argv[i];
	}
	if (!recipe || !keyp || !out)
		return ui_usage(ctx, "pack: usage: pack RECIPE_DIR --key KEY --out FILE.wdp");
	struct wd_err err = {0};
	struct wd_key *k;
	struct wd_buf wdp = {0};
	struct pkg_manifest m;
	int r = load_key(keyp, &k, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	r = package_pack(recipe, vendor, k, &wdp, &m, &err);
	char *dest = NULL;
	if (!r) {
		/* --out FOLDER: the package's own file name inside it */
		char *name = package_file_name(&m);
		dest = wd_is_dir(out) ? wd_path_join(out, name) : wd_xstrdup(out); /* host: the vendor's output */
		free(name);
		out = dest;
		if (!ctx->dry_run)
			r = wd_write_atomic(out, wdp.p, wdp.len, 0644, &err); /* host: the vendor's output */
	}
	if (!r) {
		ui_say(ctx, "%s %s %s (%s, %zu bytes) into %s%s.\n",
		       ctx->dry_run ? "Would pack" : "Packed", m.name, m.version, ui_count(m.nfiles, "file"),
		       wdp.len, out,
		       ctx->dry_run ? " (--dry-run: nothing written)" : "");
		if (ctx->json) {
			json_obj_begin(&ctx->j, NULL);
			json_str(&ctx->j, "name", m.name);
			json_str(&ctx->j, "version", m.version);
			json_str(&ctx->j, "file", out);
			json_int(&ctx->j, "size", (long long)wdp.len);
			json_bool(&ctx->j, "dry_run", ctx->dry_run);
			json_obj_end(&ctx->j);
			json_finish(&ctx->j);
		}
	}
	if (dest)
		manifest_free(&m);
	free(dest);
	wd_buf_free(&wdp);
	key_free(k);
	return r ? ui_fail(ctx, r, &err) : 0;
}

/* The public key beside a private one: PREFIX.key -> PREFIX.pub. */
static int own_keyring(const char *keyp, struct keyring *kr, struct wd_err *err)
{
	size_t n = strlen(keyp);
	char *pub = n > 4 && !strcmp(keyp + n - 4, ".key")
			    ? wd_xasprintf("%.*s.pub", (int)(n - 4), keyp)
			    : wd_xasprintf("%s.pub", keyp);
	int r = keyring_add_key(kr, pub, KEY_ROLE_REPO, err);
	if (r)
		wd_err_prefix(err, "the public key beside %s", keyp);
	free(pub);
	return r;
}

struct index_opts {
	const char *dir, *keyp, *serial, *expires;
	const char *revoke[64];
	int nrevoke;
	const char *mirror[INDEX_MAX_MIRRORS];
	int nmirror;
};

static int index_args(struct wd_ctx *ctx, int argc, char **argv, struct index_opts *o)
{
	const struct index_args *a = UI_ARGS(ctx, struct index_args);
	o->keyp = a->key;
	o->serial = a->serial;
	o->expires = a->expires;
	if (a->mirror.n > INDEX_MAX_MIRRORS)
		return ui_usage(ctx, "index: at most %d --mirror options", INDEX_MAX_MIRRORS);
	o->nmirror = a->mirror.n;
	for (int i = 0; i < a->mirror.n; i++)
		o->mirror[i] = a->mirror.v[i];
	if (a->revoke.n > 64)
		return ui_usage(ctx, "index: at most 64 --revoke options");
	o->nrevoke = a->revoke.n;
	for (int i = 0; i < a->revoke.n; i++)
		o->revoke[i] = a->revoke.v[i];
	for (int i = 0; i < argc; i++) {
		if (o->dir)
			return ui_usage(ctx, "index: unexpected argument '%s'", argv[i]);
		o->dir = argv[i];
	}
	if (!o->dir || !o->keyp)
		return ui_usage(ctx, "index: usage: index REPO_DIR --key KEY [--serial N] "
				"[--expires DATE|Nd] [--revoke KEYID]... [--mirror URL]...");
	for (int i = 0; i < o->nmirror; i++)
		if (!index_valid_mirror(o->mirror[i], strlen(o->mirror[i])))
			return ui_usage(ctx, "--mirror %s: expected an http:// or https:// URL with a "
					"host and no user part", o->mirror[i]);
	for (int i = 0; i < o->nrevoke; i++)
		if (!index_valid_keyid(o->revoke[i], strlen(o->revoke[i])))
			return ui_usage(ctx, "--revoke %s: a key id is letters, digits and ._:-",
					o->revoke[i]);
	return 0;
}

/* The index's date: SOURCE_DATE_EPOCH (seconds since 1970, the convention of
 * reproducible builds) when set, else today. */
static int issued_day(int *days, struct wd_err *err)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (!sde || !*sde)
		return wd_today(days, err);
	char *end;
	unsigned long long t = strtoull(sde, &end, 10);
	if (*end || *sde == '-' || t / 86400 > 2932896) /* 9999-12-31 */
		return wd_err_set(err, WD_EUSAGE, "SOURCE_DATE_EPOCH=%s: expected the seconds since "
				  "1970-01-01 (a whole number), or unset it", sde);
	*days = (int)(t / 86400);
	return 0;
}

/* The serial: --serial, else one more than the index already in the folder. */
static int next_serial(const struct index_opts *o, const char *path, uint64_t *serial,
		       struct wd_err *err)
{
	if (o->serial) {
		char *end;
		*serial = strtoull(o->serial, &end, 10);
		if (!*o->serial || *end)
			return wd_err_set(err, WD_EUSAGE, "--serial %s: expected a number", o->serial);
		return 0;
	}
	*serial = index_next_serial(path);
	return 0;
}

int cmd_admin_index(struct wd_ctx *ctx, int argc, char **argv)
{
	struct index_opts o = {0};
	int r = index_args(ctx, argc, argv, &o);
	if (r)
		return r;
	struct wd_err err = {0};
	struct repo_index idx = {0};
	struct keyring kr = {0};
	struct wd_key *k = NULL;
	struct wd_buf out = {0};
	char *path = wd_path_join(o.dir, INDEX_NAME);
	if ((r = issued_day(&idx.issued, &err)) || (r = load_key(o.keyp, &k, &err)) ||
	    (r = own_keyring(o.keyp, &kr, &err)) ||
	    (ctx->keys && (r = keyring_add_dir(&kr, ctx->keys, &err))) || (r = next_serial(&o, path, &idx.serial, &err)))
		goto out;
	/* days, not a year: the expiry bounds how long a frozen mirror or a
	 * volume's old catalog can hold an update back (docs/repository.md) */
	idx.expires = idx.issued + INDEX_EXPIRES_DAYS;
	char *end = NULL;
	long days = o.expires ? strtol(o.expires, &end, 10) : 0;
	if (o.expires && end && end != o.expires && !strcmp(end, "d") && days >= 0 && days <= 36500)
		idx.expires = idx.issued + (int)days;
	else if (o.expires && !wd_date_parse(o.expires, &idx.expires)) {
		r = wd_err_set(&err, WD_EUSAGE, "--expires %s: expected YYYY-MM-DD or a number of "
			       "days, such as 7d", o.expires);
		goto out;
	}
	if (idx.expires < idx.issued) {
		r = wd_err_set(&err, WD_EUSAGE, "--expires %s is before today", o.expires);
		goto out;
	}
	for (int i = 0; i < o.nrevoke; i++) {
		idx.revoked = wd_xrealloc(idx.revoked, (idx.nrevoked + 1) * sizeof *idx.revoked);
		idx.revoked[idx.nrevoked++] = wd_xstrdup(o.revoke[i]);
	}
	for (int i = 0; i < o.nmirror; i++) {
		idx.mirrors = wd_xrealloc(idx.mirrors, (idx.nmirrors + 1) * sizeof *idx.mirrors);
		idx.mirrors[idx.nmirrors++] = wd_xstrdup(o.mirror[i]);
	}
	if ((r = index_build(o.dir, &kr, &idx, &err)))
		goto out;
	index_write(&idx, &out);
	if ((r = signed_append(&out, k, &err)) ||
	    (!ctx->dry_run &&
	     (r = wd_write_atomic(path, out.p, out.len, 0644, &err)))) /* host: the vendor's repository */
		goto out;
	ui_say(ctx, "%s %s: serial %llu, %s, %s%s.\n", ctx->dry_run ? "Would write" : "Wrote", path,
	       (unsigned long long)idx.serial, ui_count(idx.npkgs, "package"),
	       ui_count(idx.nrevoked, "revoked key"), ctx->dry_run ? " (--dry-run: nothing written)" : "");
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "index", path);
		json_int(&ctx->j, "serial", (long long)idx.serial);
		json_int(&ctx->j, "package_count", (long long)idx.npkgs);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
out:
	free(path);
	wd_buf_free(&out);
	index_free(&idx);
	keyring_free(&kr);
	key_free(k);
	return r ? ui_fail(ctx, r, &err) : 0;
}

int cmd_admin_verify(struct wd_ctx *ctx, int argc, char **argv)
{
	const char *file = NULL, *keys = ctx->keys;
	for (int i = 0; i < argc; i++) { /* --keys DIR is the global option */
		if (file)
			return ui_usage(ctx, "verify: unexpected argument '%s'", argv[i]);
		file = argv[i];
	}
	if (!file || !keys)
		return ui_usage(ctx, "verify: usage: verify FILE --keys DIR");
	struct wd_err err = {0};
	struct keyring kr = {0};
	struct wd_buf b = {0};
	int today;
	int r = keyring_add_dir(&kr, keys, &err);
	if (!r)
		r = wd_read_file(file, PACKAGE_MAX_BYTES, &b, &err); /* host: a package named on the command line */
	if (!r)
		r = wd_today(&today, &err);
	if (!r && b.len >= 2 && (unsigned char)b.p[0] == 0x1f && (unsigned char)b.p[1] == 0x8b) {
		struct package p;
		if (!(r = package_read(b.p, b.len, &kr, file, &p, &err))) {
			ui_say(ctx, "%s: good package %s %s, %s, signed by %s\n", file, p.m.name,
			       p.m.version, ui_count(p.m.nfiles, "file"), p.signer);
			package_free(&p);
		}
	} else if (!r) {
		struct repo_index idx;
		if (!(r = index_read(b.p, b.len, &kr, today, file, &idx, &err))) {
			ui_say(ctx, "%s: good index, serial %llu, %s, signed by %s\n", file,
			       (unsigned long long)idx.serial, ui_count(idx.npkgs, "package"), idx.signer);
			index_free(&idx);
		}
	}
	if (!r && ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_str(&ctx->j, "file", file);
		json_bool(&ctx->j, "good", true);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	}
	wd_buf_free(&b);
	keyring_free(&kr);
	return r ? ui_fail(ctx, r, &err) : 0;
}

const struct wd_opt cmd_keygen_opts[] = {
	WD_OPT_STRING(struct keygen_args, out, "out", 0, "PREFIX", "write PREFIX.key and PREFIX.pub"),
	{0},
};

const struct wd_opt cmd_pack_opts[] = {
	WD_OPT_STRING(struct pack_args, key, "key", 0, "KEY",
		      "the repository private key that signs the package"),
	WD_OPT_STRING(struct pack_args, out, "out", 0, "FILE.wdp", "the package to write"),
	WD_OPT_STRING(struct pack_args, vendor_files, "vendor-files", 0, "DIR",
		      "pack files found in DIR instead of the recipe's stand-ins"),
	{0},
};

const struct wd_opt cmd_index_opts[] = {
	WD_OPT_STRING(struct index_args, key, "key", 0, "KEY",
		      "the repository private key that signs the index"),
	WD_OPT_STRING(struct index_args, serial, "serial", 0, "N",
		      "the serial (default: one more than the index there)"),
	WD_OPT_STRING(struct index_args, expires, "expires", 0, "DATE|Nd",
		      "the expiry: YYYY-MM-DD or N days from today (default 7d)"),
	WD_OPT_REPEAT(struct index_args, revoke, "revoke", 0, "KEYID",
		      "list a revoked subscription key (repeatable)"),
	WD_OPT_REPEAT(struct index_args, mirror, "mirror", 0, "URL",
		      "list a mirror of the repository (repeatable): a subscription "
		      "repository's key is sent only to its own host and these"),
	{0},
};
