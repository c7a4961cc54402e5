#define _GNU_SOURCE /* F_OFD_SETLK */
#include "catalog/repo.h"

#include "catalog/names.h"
#include "catalog/version.h"

#include "license/activation.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/date.h"
#include "common/file.h"
#include "common/hash.h"
#include "common/url.h"
#include "catalog/hoststate.h"
#include "state/subscriptions.h"

char *repo_url(const char *arg)
{
	if (strstr(arg, "://"))
		return wd_xstrdup(arg);
	struct wd_buf b = {0};
	wd_buf_adds(&b, "file://");
	char *abs = NULL;
	if (arg[0] != '/') {
		char cwd[4096];
		abs = wd_xasprintf("%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", arg);
	}
	for (const char *p = abs ? abs : arg; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~", c))
			wd_buf_addc(&b, (char)c);
		else
			wd_buf_addf(&b, "%%%02X", c);
	}
	free(abs);
	return (char *)wd_buf_cstr(&b);
}

char *repo_origin(const char *url)
{
	return wd_url_origin(url);
}

/* The key goes to the host named only (scheme, host and port: an http://
 * mirror of an https repository is another place). Over https only: a
 * repository row that says http:// (which 'repo add' refuses, so it came
 * from the volume) is refused by catalog/fetch.c before any connection. */
static bool key_may_go(const char *url, const char *host_of)
{
	return wd_url_same_place(url, host_of);
}

static char *join_url(const char *base, const char *name)
{
	size_t n = strlen(base);
	return wd_xasprintf("%s%s%s", base, n && base[n - 1] == '/' ? "" : "/", name);
}

void catalog_init(struct catalog *c, const struct fetch_net *net)
{
	memset(c, 0, sizeof *c);
	c->net = net;
}

static struct repo *add_repo(struct catalog *c, const char *url)
{
	c->repos = wd_xrealloc(c->repos, (c->n + 1) * sizeof *c->repos);
	struct repo *rp = &c->repos[c->n++];
	memset(rp, 0, sizeof *rp);
	rp->url = wd_xstrdup(url);
	rp->cat = c;
	return rp;
}

static int host_guard(void *ud, const char *url, const struct repo_index *idx,
		      struct wd_err *err)
{
	return repo_serial_guard(ud, url, idx, NULL, err);
}

int catalog_add_url(struct catalog *c, const char *url, const struct keyring *kr, int today,
		    const char *host, bool remember, struct wd_err *err)
{
	struct repo_index idx;
	size_t used;
	int r = repo_fetch_index(c->net, NULL, &url, 1, kr, today, host_guard, (void *)host, NULL,
				 &idx, &used, err);
	if (r)
		return r; /* idx was freed */
	if (remember && (r = host_seen_raise(host, idx.signer, url, idx.serial, idx.issued, err))) {
		index_free(&idx);
		return r;
	}
	add_repo(c, url)->idx = idx;
	return 0;
}

int catalog_add_bundled(struct catalog *c, const char *dir, const struct keyring *kr,
			struct wd_err *err)
{
	char *path = wd_path_join(dir, INDEX_NAME);
	struct wd_buf b = {0};
	struct repo_index idx;
	int r = wd_read_file(path, INDEX_MAX_BYTES, &b, err); /* host: the bundled repository, the program's own data */
	if (!r)
		r = index_read(b.p, b.len, kr, INDEX_NO_EXPIRY, path, &idx, err);
	if (!r) {
		char *u = repo_url(dir);
		struct repo *rp = add_repo(c, u);
		rp->dir = wd_xstrdup(dir);
		rp->idx = idx;
		free(u);
	}
	wd_buf_free(&b);
	free(path);
	return r;
}

struct repo *catalog_add_index(struct catalog *c, const char *name, const char *url,
			       char *const *mirrors, size_t nmirrors, bool subscription,
			       struct repo_index *idx)
{
	struct repo *rp = add_repo(c, url);
	rp->name = name ? wd_xstrdup(name) : NULL;
	rp->subscription = subscription;
	rp->mirrors = wd_xcalloc(nmirrors + 1, sizeof *rp->mirrors);
	for (size_t i = 0; i < nmirrors; i++)
		rp->mirrors[i] = wd_xstrdup(mirrors[i]);
	rp->nmirrors = nmirrors;
	rp->idx = *idx;
	memset(idx, 0, sizeof *idx);
	return rp;
}

void catalog_set_auth(struct catalog *c, const struct subscription *sub, const char *text)
{
	free((char *)c->auth.user);
	free((char *)c->auth.password);
	c->auth.user = wd_xstrdup(sub->id);
	c->auth.password = wd_xstrdup(text);
	c->key = *sub;
}

bool repo_key_may_go(const struct subscription *sub, const struct repo_index *held,
		     const char *url)
{
	if (sub && sub_names_repo(sub, url))
		return true;
	for (size_t i = 0; held && i < held->nmirrors; i++)
		if (wd_url_same_place(url, held->mirrors[i]))
			return true;
	return false;
}

int repo_key_refused(const char *name, const char *url, struct wd_err *err)
{
	return wd_err_set(err, WD_ETRUST, "%s%s%s%s is a subscription repository that neither "
			  "the activated key nor a signed index names, so the key is not sent "
			  "there (the volume's list of repositories is anyone's to write); a key "
			  "issued for it names it (warpdrv-admin issue --repo URL)",
			  name ? "repository " : "", name ? name : "", name ? ": " : "", url);
}

/* The same over a catalog: the key's places and every signed index's
 * mirrors (sig: one more index, may be NULL). */
static bool catalog_key_may_go(const struct catalog *c, const struct repo_index *sig,
			       const char *url)
{
	if (repo_key_may_go(&c->key, sig, url))
		return true;
	for (size_t i = 0; i < c->n; i++)
		if (repo_key_may_go(NULL, &c->repos[i].idx, url))
			return true;
	return false;
}

void catalog_free(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct repo *rp = &c->repos[i];
		free(rp->url);
		free(rp->name);
		free(rp->dir);
		free(rp->stale);
		for (size_t k = 0; k < rp->nmirrors; k++)
			free(rp->mirrors[k]);
		free(rp->mirrors);
		index_free(&rp->idx);
	}
	free(c->repos);
	free((char *)c->auth.user);
	if (c->auth.password) /* the key text: not left in freed memory */
		memset((char *)c->auth.password, 0, strlen(c->auth.password));
	free((char *)c->auth.password);
	free(c->cache_dir);
	memset(c, 0, sizeof *c);
}

const struct index_entry *catalog_find(const struct catalog *c, const char *name,
				       const struct repo **from)
{
	const struct index_entry *best = NULL;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->repos[i].idx.npkgs; k++) {
			const struct index_entry *e = &c->repos[i].idx.pkgs[k];
			if (strcmp(e->name, name) || (best && version_cmp(e->version, best->version) <= 0))
				continue;
			best = e;
			if (from)
				*from = &c->repos[i];
		}
	return best;
}

const struct index_entry *catalog_find_version(const struct catalog *c, const char *name,
					       const char *version, const struct repo **from)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->repos[i].idx.npkgs; k++) {
			const struct index_entry *e = &c->repos[i].idx.pkgs[k];
			if (strcmp(e->name, name) || version_cmp(e->version, version))
				continue;
			if (from)
				*from = &c->repos[i];
			return e;
		}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? wd_xstrdup(s) : NULL;
}

bool catalog_stub(const struct repo *from, const struct index_entry *e, struct package *p)
{
	if (!e->choice)
		return false;
	memset(p, 0, sizeof *p);
	struct pkg_manifest *m = &p->m;
	m->format = 1;
	m->name = wd_xstrdup(e->name);
	m->version = wd_xstrdup(e->version);
	m->released = e->released;
	m->summary = wd_xstrdup(e->summary);
	m->kind = e->kind;
	m->entitlement = dup_or_null(e->entitlement);
	m->npci = e->npci;
	m->pci = wd_xcalloc(e->npci + 1, sizeof *m->pci);
	if (e->npci)
		memcpy(m->pci, e->pci, e->npci * sizeof *m->pci);
	m->driver = dup_or_null(e->driver);
	m->nif = dup_or_null(e->nif);
	m->driver_name = dup_or_null(e->driver_name);
	m->instance_drivername = dup_or_null(e->instance_drivername);
	m->instance_switch = dup_or_null(e->instance_switch);
	p->stub = e;
	p->stub_from = from;
	return true;
}

int catalog_unstub(const struct keyring *kr, struct package *p, struct wd_err *err)
{
	if (!p->stub)
		return 0;
	struct package real;
	int r = catalog_fetch(p->stub_from, p->stub, kr, &real, err);
	if (r)
		return r;
	if (strcmp(real.m.name, p->m.name) || strcmp(real.m.version, p->m.version) ||
	    real.m.kind != p->m.kind) {
		r = wd_err_set(err, WD_ETRUST, "%s: the package is %s %s, not the %s %s its index "
			       "lists", p->stub->file, real.m.name, real.m.version, p->m.name,
			       p->m.version);
		package_free(&real);
		return r;
	}
	package_free(p);
	*p = real;
	return 0;
}

/* The failures of one download across its mirrors, for the final message. */
struct failures {
	struct wd_buf text;
	int worst, count;
};

static void failed(struct failures *f, const struct fetch_net *net, const struct wd_err *e)
{
	wd_buf_addf(&f->text, "\n  %s", e->msg);
	f->count++;
	if (e->code > f->worst) /* subscription (4) over trust (3) over the rest */
		f->worst = e->code;
	if (net && net->note)
		net->note(net->ud, e->msg);
}

static int all_failed(struct failures *f, const char *what, struct wd_err *err)
{
	int r = wd_err_set(err, f->worst, "%s: all %d locations failed:%s", what, f->count,
			   wd_buf_cstr(&f->text));
	wd_buf_free(&f->text);
	return r;
}

/* One INDEX download, conditional when cond holds validators for u. */
static int fetch_index(const struct fetch_net *net, const struct fetch_auth *auth,
		       const char *u, struct repo_index_cond *cond, struct fetch_cond *fc,
		       struct wd_buf *b, struct wd_err *err)
{
	const struct fetch_validator *v =
		cond && cond->ask ? fetch_validators_find(cond->validators, u) : NULL;
	*fc = (struct fetch_cond){.etag = v ? v->etag : NULL,
				  .last_modified = v ? v->last_modified : NULL};
	int r = fetch_mem_if(net, u, auth, INDEX_MAX_BYTES, INDEX_NAME, cond ? fc : NULL, b, err);
	if (!r && cond && fc->not_modified)
		cond->unchanged = true;
	return r;
}

int repo_fetch_index(const struct fetch_net *net, const struct fetch_auth *auth,
		     const char *const *urls, size_t n, const struct keyring *kr, int today,
		     repo_serial_check check, void *ud, struct repo_index_cond *cond,
		     struct repo_index *idx, size_t *used, struct wd_err *err)
{
	struct failures f = {0};
	struct wd_buf b = {0};
	int r = -WD_EFAIL;
	if (cond)
		cond->unchanged = false;
	memset(idx, 0, sizeof *idx);
	for (size_t i = 0; r && i < n; i++) {
		char *u = join_url(urls[i], INDEX_NAME);
		struct fetch_cond fc;
		/* the credentials go to the repository's own host only: a mirror
		 * elsewhere (named by the volume's database) is asked without */
		const struct fetch_auth *a = auth && key_may_go(urls[i], urls[0]) ? auth : NULL;
		r = fetch_index(net, a, u, cond, &fc, &b, err);
		if (!r && cond && cond->unchanged) {
			*used = i;
			fetch_cond_free(&fc);
			free(u);
			break;
		}
		if (!r)
			r = index_read(b.p, b.len, kr, today, u, idx, err);
		if (!r && check && (r = check(ud, urls[0], idx, err)))
			index_free(idx);
		if (!r) { /* kept as signed, for the stored catalog */
			idx->text = b;
			memset(&b, 0, sizeof b);
		}
		/* validators of an index that checked out only: a refused one is
		 * asked for whole again, and refused again, until it changes */
		if (!r && cond)
			fetch_validators_set(cond->validators, u, fc.new_etag, fc.new_last_modified);
		fetch_cond_free(&fc);
		free(u);
		if (!r)
			*used = i;
		else if (n > 1)
			failed(&f, net, err);
	}
	wd_buf_free(&b);
	if (r && n > 1)
		return all_failed(&f, urls[0], err);
	wd_buf_free(&f.text);
	return r;
}

static bool is_local(const char *url)
{
	return !strncmp(url, "file://", 7);
}

static int check_bytes(const char *where, const char *p, size_t len,
		       const struct index_entry *e, struct wd_err *err)
{
	char hex[WD_SHA256_HEX];
	if (len != e->size)
		return wd_err_set(err, WD_ETRUST, "%s: %zu bytes; the index says %llu", where, len,
				  (unsigned long long)e->size);
	wd_sha256_hex(p, len, hex);
	if (strcmp(hex, e->sha256))
		return wd_err_set(err, WD_ETRUST, "%s: does not match the SHA-256 in the index "
				  "(damaged or altered)", where);
	return 0;
}

/* A cached package with the right size and hash: no network needed. */
static bool cached(const struct fs_root *fs, const char *path, const struct index_entry *e,
		   struct wd_buf *b)
{
	struct wd_err ignore;
	return fs_is_file(fs, path) && !fs_read(fs, path, PACKAGE_MAX_BYTES, b, &ignore) &&
	       !check_bytes(path, b->p, b->len, e, &ignore);
}

int catalog_part_lock(int fd)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	return fcntl(fd, F_OFD_SETLK, &fl);
}

/* The partial download opened in place and locked (catalog_part_lock) for as
 * long as it is open: another warpdrv downloading it, or cleaning the cache,
 * holds it. One that `clean` unlinked between the open and the lock is
 * opened afresh. */
static int open_part(const struct fs_root *fs, const char *part, struct wd_err *err)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd = fs_open_inplace(fs, part, 0644, NULL, err);
		if (fd < 0)
			return fd;
		if (catalog_part_lock(fd)) {
			close(fd);
			return wd_err_set(err, WD_EFAIL, "%s: another warpdrv is downloading it, or "
					  "cleaning the cache, now; try again when it has finished", part);
		}
		struct stat st;
		if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		close(fd); /* removed meanwhile */
	}
	return wd_err_set(err, WD_EFAIL, "%s: removed again and again while it was opened", part);
}

/* Downloads into path.part (resuming what is there), checks it, renames it
 * to path. A resumed file that fails the hash may hold another download's
 * start: it is thrown away and fetched once more from the beginning. */
static int via_cache(const struct repo *from, const char *u, const struct fetch_auth *auth,
		     const char *path, const struct index_entry *e, struct wd_buf *b,
		     struct wd_err *err)
{
	const struct fs_root *fs = from->cat->cache_fs;
	char *part = wd_xasprintf("%s.part", path);
	int r = 0, fd = -1;
	for (int round = 0; round < 2; round++) {
		struct stat st;
		bool resumed = fs_lstat(fs, part, &st) == 0 && st.st_size > 0;
		/* resumed in place: a plain file with one link, or refused; held
		 * open (and so locked) until it is renamed or thrown away */
		if ((fd = open_part(fs, part, err)) < 0) {
			r = fd;
			break;
		}
		r = fetch_file(from->cat->net, u, auth, fd, part, e->size, e->file, err);
		if (!r && !(r = fs_read(fs, part, PACKAGE_MAX_BYTES, b, err)))
			r = check_bytes(u, b->p, b->len, e, err);
		if (r == -WD_ETRUST) {
			struct wd_err ignore;
			fs_unlink(fs, part, &ignore);
		}
		if (r != -WD_ETRUST || !resumed)
			break;
		close(fd);
		fd = -1;
	}
	if (!r)
		r = fs_rename(fs, part, path, err);
	if (fd >= 0)
		close(fd);
	free(part);
	return r;
}

static char *cache_path(const struct repo *from, const struct index_entry *e)
{
	const struct catalog *c = from->cat;
	return c->cache_dir && !from->dir && !is_local(from->url)
		       ? wd_path_join(c->cache_dir, e->file) : NULL;
}

bool catalog_would_download(const struct repo *from, const struct index_entry *e)
{
	if (from->dir || is_local(from->url))
		return false;
	char *path = cache_path(from, e);
	struct wd_buf b = {0};
	bool have = path && cached(from->cat->cache_fs, path, e, &b);
	wd_buf_free(&b);
	free(path);
	return !have;
}

/* Where a package is fetched from: the repository's URL, the mirrors the
 * volume's database names, then those its signed index names (not listed
 * already), each with the credentials it may be sent. */
struct places {
	char **url;
	bool *auth;
	size_t n;
};

static bool listed(const struct places *pl, const char *url)
{
	for (size_t i = 0; i < pl->n; i++)
		if (!strcmp(pl->url[i], url))
			return true;
	return false;
}

static void place_add(struct places *pl, const char *url)
{
	if (listed(pl, url))
		return;
	pl->url = wd_xrealloc(pl->url, (pl->n + 1) * sizeof *pl->url);
	pl->auth = wd_xrealloc(pl->auth, (pl->n + 1) * sizeof *pl->auth);
	pl->url[pl->n] = wd_xstrdup(url);
	pl->auth[pl->n++] = false;
}

static void places_free(struct places *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->url[i]);
	free(pl->url);
	free(pl->auth);
}

/* A subscription repository's key goes to its own host, and to the hosts of
 * the mirrors its signed index lists (signed: an index checked in this run;
 * the stored catalog does not keep them). A mirror only the volume's
 * database names is still tried, without the key. */
static void places_auth(struct places *pl, const struct repo *from, const struct repo_index *sig)
{
	for (size_t i = 0; from->subscription && i < pl->n; i++)
		pl->auth[i] = catalog_key_may_go(from->cat, sig, pl->url[i]);
}

static void places_of(const struct repo *from, struct places *pl)
{
	memset(pl, 0, sizeof *pl);
	place_add(pl, from->url);
	for (size_t i = 0; i < from->nmirrors; i++)
		place_add(pl, from->mirrors[i]);
	for (size_t i = 0; i < from->idx.nmirrors; i++)
		place_add(pl, from->idx.mirrors[i]);
	places_auth(pl, from, &from->idx);
}

/* The signed mirror list of a subscription repository whose index came
 * from the stored catalog: its index fetched again from its own host (with
 * the key) and checked, once the package could not be had there. */
static void signed_again(const struct repo *from, const struct keyring *kr,
			 struct repo_index *sig)
{
	memset(sig, 0, sizeof *sig);
	int today;
	size_t used;
	struct wd_err ignore;
	const char *u = from->url;
	const struct fetch_auth *a =
		catalog_key_may_go(from->cat, NULL, u) ? &from->cat->auth : NULL;
	if (!kr || wd_today(&today, &ignore) ||
	    repo_fetch_index(from->cat->net, a, &u, 1, kr, today, NULL, NULL, NULL, sig, &used,
			     &ignore))
		memset(sig, 0, sizeof *sig);
}

static int download(const struct repo *from, const struct index_entry *e,
		    const struct keyring *kr, struct wd_buf *b, struct wd_err *err)
{
	const struct catalog *c = from->cat;
	const struct fetch_auth *auth = from->subscription ? &c->auth : NULL;
	if (!names_file_ok(wd_sv_cstr(e->file))) /* it becomes a path below */
		return wd_err_set(err, WD_ETRUST, "package %s: file '%s' is not " NAMES_FILE_RULE,
				  e->name, e->file);
	if (auth && !auth->user)
		return wd_err_set(err, WD_ELICENSE, "%s is a subscription repository: activate a "
				  "subscription key first ('warpdrv activate KEY')", from->url);
	if (from->dir) { /* the bundled repository: the program's own files */
		char *own = wd_path_join(from->dir, e->file);
		int r = wd_read_file(own, PACKAGE_MAX_BYTES, b, err); /* host: the program's own data */
		if (!r)
			r = check_bytes(own, b->p, b->len, e, err);
		free(own);
		return r;
	}
	char *path = cache_path(from, e);
	if (path && cached(c->cache_fs, path, e, b)) {
		free(path);
		return 0;
	}
	if (c->no_download && !is_local(from->url)) {
		free(path);
		return wd_err_set(err, WD_EFAIL, "%s %s: not downloaded (--dry-run downloads "
				  "nothing; it is %llu bytes from %s)", e->name, e->version,
				  (unsigned long long)e->size, from->name ? from->name : from->url);
	}
	struct failures f = {0};
	int r = path ? fs_mkdirs(c->cache_fs, c->cache_dir, err) : 0;
	if (r) {
		free(path);
		return r;
	}
	struct places pl;
	places_of(from, &pl);
	bool any = false;
	for (size_t i = 0; i < pl.n; i++)
		any |= pl.auth[i];
	if (from->subscription && !any) { /* nowhere signed data names: the key stays */
		places_free(&pl);
		free(path);
		return repo_key_refused(from->name, from->url, err);
	}
	struct repo_index sig = {0};
	bool asked = from->idx.nmirrors > 0 || !from->subscription;
	r = -WD_EFAIL;
	for (size_t i = 0; r && i < pl.n; i++) {
		const struct fetch_auth *a = pl.auth[i] ? auth : NULL;
		char *u = join_url(pl.url[i], e->file);
		if (path)
			r = via_cache(from, u, a, path, e, b, err);
		else if (!(r = fetch_mem(c->net, u, a, e->size, e->file, b, err)))
			r = check_bytes(u, b->p, b->len, e, err);
		free(u);
		if (r)
			failed(&f, pl.n > 1 ? c->net : NULL, err);
		if (r && !asked) { /* which mirrors may have the key? */
			asked = true;
			signed_again(from, kr, &sig);
			for (size_t k = 0; k < sig.nmirrors; k++)
				place_add(&pl, sig.mirrors[k]);
			places_auth(&pl, from, &sig);
		}
	}
	size_t tried = pl.n;
	places_free(&pl);
	index_free(&sig);
	free(path);
	if (r && tried > 1)
		return all_failed(&f, e->file, err);
	wd_buf_free(&f.text);
	return r;
}

int catalog_fetch(const struct repo *from, const struct index_entry *e, const struct keyring *kr,
		  struct package *p, struct wd_err *err)
{
	struct wd_buf b = {0};
	int r = download(from, e, kr, &b, err);
	if (!r)
		r = package_read(b.p, b.len, kr, e->file, p, err);
	if (!r && (strcmp(p->m.name, e->name) || strcmp(p->m.version, e->version))) {
		r = wd_err_set(err, WD_ETRUST, "%s: holds %s %s; the index says %s %s", e->file,
			       p->m.name, p->m.version, e->name, e->version);
		package_free(p);
	}
	wd_buf_free(&b);
	return r;
}
int repo_serial_guard(const char *host, const char *url, const struct repo_index *idx,
		      const struct repo_index *held, struct wd_err *err)
{
	struct host_seen seen;
	int r = host_seen_get(host, idx->signer, url, &seen, err);
	if (r)
		return r;
	if (held && !strcmp(held->signer, idx->signer) && held->serial > seen.serial)
		seen.serial = held->serial;
	if (idx->serial < seen.serial)
		return wd_err_set(err, WD_ETRUST, "%s: index serial %llu is older than serial %llu "
				  "already seen (a replayed old index?); refusing it", url,
				  (unsigned long long)idx->serial, (unsigned long long)seen.serial);
	return 0;
}

int catalog_remember(struct db *db, const struct catalog *c, struct wd_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < c->n; i++) {
		const struct repo *rp = &c->repos[i];
		r = activation_note_date(db, rp->idx.issued, err);
		/* A revocation sticks: an index that no longer lists a key does
		 * not bring it back. */
		for (size_t k = 0; !r && k < rp->idx.nrevoked; k++)
			r = revoked_keys_add(db, rp->idx.revoked[k], rp->url, err);
	}
	return r;
}
