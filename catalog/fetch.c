#include "catalog/fetch_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "fs/fs.h"
#include "xfer/proto.h"

/* One transfer: 0, a negative code, or XFER_FROM_START (the range was not
 * served). */
static int transfer(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		    struct fetch_sink *s, struct wd_err *err)
{
	if (auth && strncasecmp(url, "https://", 8))
		return wd_err_set(err, WD_EUSAGE, "%s: a subscription key is sent over https:// "
				  "only; use an https URL for this repository", url);
	return fetch_remote(net, url, auth, s, err);
}

int fetch_mem_if(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		 size_t max, const char *label, struct fetch_cond *cond, struct wd_buf *out,
		 struct wd_err *err)
{
	static const struct fetch_net none;
	wd_buf_reset(out);
	struct fetch_sink s = {.net = net ? net : &none, .label = label, .mem = out, .fd = -1,
			 .limit = max, .cond = cond};
	if (cond)
		cond->not_modified = false;
	int r = transfer(net, url, auth, &s, err);
	if (r)
		return r < 0 ? r : 0;
	/* 304 only answers a question asked; unasked, it is no file */
	if (cond && s.status == 304 && (cond->etag || cond->last_modified))
		cond->not_modified = true;
	else if (s.status == 304)
		return wd_err_set(err, WD_EFAIL, "%s: HTTP 304 to an unconditional request", url);
	wd_buf_reserve(out, 1);
	out->p[out->len] = '\0';
	return 0;
}

int fetch_mem(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	      size_t max, const char *label, struct wd_buf *out, struct wd_err *err)
{
	return fetch_mem_if(net, url, auth, max, label, NULL, out, err);
}

void fetch_cond_free(struct fetch_cond *cond)
{
	free(cond->new_etag);
	free(cond->new_last_modified);
	free(cond->new_date);
	cond->new_etag = cond->new_last_modified = cond->new_date = NULL;
}

void fetch_validators_read(const struct fs_root *fs, const char *path, struct fetch_validators *vs)
{
	memset(vs, 0, sizeof *vs);
	struct wd_buf b = {0};
	struct wd_err ignore;
	if (!fs || !*path || fs_read(fs, path, 1 << 20, &b, &ignore)) {
		wd_buf_free(&b);
		return;
	}
	for (char *line = b.p, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (line[0] == '=' && t1) { /* a note: =KEY\tTEXT */
			*t1 = '\0';
			fetch_validators_set_note(vs, line + 1, t1 + 1);
			continue;
		}
		if (!t2)
			continue;
		*t1 = *t2 = '\0';
		fetch_validators_set(vs, line, strcmp(t1 + 1, "-") ? t1 + 1 : NULL,
				     strcmp(t2 + 1, "-") ? t2 + 1 : NULL);
	}
	wd_buf_free(&b);
}

int fetch_validators_write(const struct fs_root *fs, const char *path,
			   const struct fetch_validators *vs, struct wd_err *err)
{
	struct wd_buf b = {0};
	for (size_t i = 0; i < vs->n; i++)
		wd_buf_addf(&b, "%s\t%s\t%s\n", vs->v[i].url, vs->v[i].etag ? vs->v[i].etag : "-",
			    vs->v[i].last_modified ? vs->v[i].last_modified : "-");
	for (size_t i = 0; i < vs->nnotes; i++)
		wd_buf_addf(&b, "=%s\t%s\n", vs->note_key[i], vs->note_text[i]);
	int r = fs_write_atomic(fs, path, b.p ? b.p : "", b.len, 0644, err);
	wd_buf_free(&b);
	return r;
}

const struct fetch_validator *fetch_validators_find(const struct fetch_validators *vs,
						    const char *url)
{
	for (size_t i = 0; i < vs->n; i++)
		if (!strcmp(vs->v[i].url, url))
			return &vs->v[i];
	return NULL;
}

void fetch_validators_set(struct fetch_validators *vs, const char *url, const char *etag,
			  const char *last_modified)
{
	struct fetch_validator *v = (struct fetch_validator *)fetch_validators_find(vs, url);
	if (v) {
		free(v->etag);
		free(v->last_modified);
	} else if (etag || last_modified) {
		vs->v = wd_xrealloc(vs->v, (vs->n + 1) * sizeof *vs->v);
		v = &vs->v[vs->n++];
		v->url = wd_xstrdup(url);
	} else {
		return;
	}
	v->etag = etag ? wd_xstrdup(etag) : NULL;
	v->last_modified = last_modified ? wd_xstrdup(last_modified) : NULL;
	if (!etag && !last_modified) { /* removed: the last entry takes its place */
		free(v->url);
		*v = vs->v[--vs->n];
	}
}

void fetch_validators_free(struct fetch_validators *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].url);
		free(vs->v[i].etag);
		free(vs->v[i].last_modified);
	}
	free(vs->v);
	for (size_t i = 0; i < vs->nnotes; i++) {
		free(vs->note_key[i]);
		free(vs->note_text[i]);
	}
	free(vs->note_key);
	free(vs->note_text);
	memset(vs, 0, sizeof *vs);
}

const char *fetch_validators_note(const struct fetch_validators *vs, const char *key)
{
	for (size_t i = 0; i < vs->nnotes; i++)
		if (!strcmp(vs->note_key[i], key))
			return vs->note_text[i];
	return NULL;
}

void fetch_validators_set_note(struct fetch_validators *vs, const char *key, const char *text)
{
	if (strpbrk(key, "\t\n") || (text && strpbrk(text, "\t\n")))
		return;
	size_t i = 0;
	while (i < vs->nnotes && strcmp(vs->note_key[i], key))
		i++;
	if (i < vs->nnotes) {
		free(vs->note_text[i]);
		if (text) {
			vs->note_text[i] = wd_xstrdup(text);
			return;
		}
		free(vs->note_key[i]);
		vs->nnotes--;
		vs->note_key[i] = vs->note_key[vs->nnotes];
		vs->note_text[i] = vs->note_text[vs->nnotes];
		return;
	}
	if (!text)
		return;
	vs->note_key = wd_xrealloc(vs->note_key, (vs->nnotes + 1) * sizeof *vs->note_key);
	vs->note_text = wd_xrealloc(vs->note_text, (vs->nnotes + 1) * sizeof *vs->note_text);
	vs->note_key[vs->nnotes] = wd_xstrdup(key);
	vs->note_text[vs->nnotes++] = wd_xstrdup(text);
}

int fetch_file(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       int fd, const char *path, uint64_t size, const char *label, struct wd_err *err)
{
	static const struct fetch_net none;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	uint64_t have = (uint64_t)st.st_size;
	if (have > size && ftruncate(fd, 0) == 0)
		have = 0;
	if (lseek(fd, (off_t)have, SEEK_SET) < 0) {
		r = wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* Two rounds at most: the second when the server ignored the range. */
	for (int round = 0; have < size && round < 2; round++) {
		struct fetch_sink s = {.net = net ? net : &none, .label = label, .fd = fd,
				 .start = have, .have = have, .limit = size, .total = size};
		if ((r = transfer(net, url, auth, &s, err)) < 0)
			break;
		have = s.have;
		if (r != XFER_FROM_START)
			break;
		r = 0;
		if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
			r = wd_err_set(err, WD_EFAIL, "%s: %s", path, strerror(errno));
			break;
		}
		have = 0;
	}
	/* The server ended its body cleanly short of the size the signed index
	 * gives: what it serves is not the package (exit 3), and resuming it
	 * again would only repeat this. */
	if (!r && have < size)
		r = wd_err_set(err, WD_ETRUST, "%s: the server's file ends after %llu bytes; the "
			       "index says %llu (a truncated or replaced file)", url,
			       (unsigned long long)have, (unsigned long long)size);
out:
	return r;
}
