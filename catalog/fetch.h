/* Downloads, one URL at a time: into memory or onto the end of a partial
 * file (resumed with a Range request), never more bytes than the caller
 * declares. Every URL (file://, http, https) goes through libcurl, in the
 * transfer helper warpdrv-fetch (xfer/warpdrv_fetch.c) that catalog/
 * fetch_helper.c starts on the first transfer, with a connect time-out, a
 * low-speed limit and a total deadline so that a dead, stalled or dripping
 * server is abandoned; certificates are always checked, --cacert names a
 * private CA. Behaviour in docs/repository.md. */
#ifndef WD_FETCH_H
#define WD_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/fs.h"
#include "common/buf.h"
#include "common/err.h"

#define FETCH_CONNECT_TIMEOUT 15 /* seconds */
/* A transfer slower than this for that long is abandoned and the next mirror
 * tried: dnf's default (minrate 1000 B/s, timeout 30 s). A dead or dripping
 * server is left in about 30 s; a slow but real link (120 KiB/s) is a
 * hundred times faster than the limit. */
#define FETCH_SPEED_LIMIT 1000   /* bytes per second ... */
#define FETCH_SPEED_TIME 30      /* ... for this many seconds */
/* The whole transfer, however fast its bytes come: a server dripping a byte a
 * second passes the speed limit but not this. 64 MiB (a package's maximum)
 * takes under 10 minutes at 120 KiB/s. */
#define FETCH_MAX_TIME 600       /* seconds */

struct fetch_net {
	const char *cacert;   /* PEM file of a private CA; NULL: the system's */
	long connect_timeout; /* seconds; 0: FETCH_CONNECT_TIMEOUT */
	long speed_limit;     /* bytes per second; 0: FETCH_SPEED_LIMIT */
	long speed_time;      /* seconds; 0: FETCH_SPEED_TIME */
	long max_time;        /* seconds for one whole transfer; 0: FETCH_MAX_TIME */
	/* During a transfer: bytes held so far and expected (0: unknown). */
	void (*progress)(void *ud, const char *label, uint64_t done, uint64_t total);
	/* A transfer ended (ok or not): the front end may clear its bar. */
	void (*finished)(void *ud, const char *label, int r);
	/* One mirror failed and the next one is tried: for -v. */
	void (*note)(void *ud, const char *msg);
	void *ud;
};

/* HTTP Basic credentials (a subscription repository); sent over https only. */
struct fetch_auth {
	const char *user, *password;
};

/* Fetches url into out, refusing more than max bytes (exit 3: an endless
 * body). auth may be NULL. A 401 or 403 with credentials is WD_ELICENSE,
 * other failures WD_EFAIL; the message starts with the URL. */
int fetch_mem(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	      size_t max, const char *label, struct wd_buf *out, struct wd_err *err);

/* A conditional download (RFC 9110 validators): what an earlier download of
 * the URL answered is sent back (If-None-Match, else If-Modified-Since), and
 * a server that holds the same file answers 304 with no body. An ETag is
 * kept in preference to a Last-Modified; a Last-Modified is kept only when it
 * is at least a second older than the answer's Date (RFC 9110, 8.8.2.2: a
 * newer one is weak, and a file rewritten within that second would be
 * answered 304 and missed). */
struct fetch_cond {
	const char *etag, *last_modified; /* to send; NULL: not sent */
	char *new_etag, *new_last_modified; /* the answer's (malloc'd), NULL: none */
	char *new_date;                     /* the answer's Date, to judge its Last-Modified */
	bool not_modified;                  /* 304: out is empty, nothing changed */
};

/* fetch_mem, conditional when cond has validators to send; cond gets the
 * answer's validators. Free them with fetch_cond_free. */
int fetch_mem_if(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
		 size_t max, const char *label, struct fetch_cond *cond, struct wd_buf *out,
		 struct wd_err *err);
void fetch_cond_free(struct fetch_cond *cond);

/* The validators of earlier downloads, by URL, in a small text file (one
 * "URL\tETAG\tLAST-MODIFIED" line each, "-" for none) kept beside what
 * they were downloaded into. */
struct fetch_validator {
	char *url, *etag, *last_modified; /* etag, last_modified may be NULL */
};
struct fetch_validators {
	struct fetch_validator *v;
	size_t n;
	/* Notes the caller keeps beside them ("=KEY\tTEXT" lines), by key: what
	 * an unchanged update needs of the stored index (catalog/fetch_stored.h). */
	char **note_key, **note_text;
	size_t nnotes;
};
/* A missing file is an empty list; so is a damaged one (it is only a
 * cache: the next download is then a full one). */
void fetch_validators_read(const struct fs_root *fs, const char *path, struct fetch_validators *vs);
/* Written atomically (a new file renamed over the old one). */
int fetch_validators_write(const struct fs_root *fs, const char *path,
			   const struct fetch_validators *vs, struct wd_err *err);
const struct fetch_validator *fetch_validators_find(const struct fetch_validators *vs,
						    const char *url);
/* Replaces (or adds) the entry of url; both NULL removes it. */
void fetch_validators_set(struct fetch_validators *vs, const char *url, const char *etag,
			  const char *last_modified);
void fetch_validators_free(struct fetch_validators *vs);
/* The note kept under key, or NULL; set replaces it (text NULL removes it).
 * Neither key nor text may hold a tab or a newline (refused: not set). */
const char *fetch_validators_note(const struct fetch_validators *vs, const char *key);
void fetch_validators_set_note(struct fetch_validators *vs, const char *key, const char *text);

/* Brings the open file fd (path, for messages: a partial download the
 * caller opened with fs_open_inplace) up to size bytes from url: whatever it
 * already holds is kept and only the rest is asked for (Range: bytes=N-); a
 * server that ignores the range is read from the start again. A body that
 * would take the file past size is cut off and refused (WD_ETRUST). */
int fetch_file(const struct fetch_net *net, const char *url, const struct fetch_auth *auth,
	       int fd, const char *path, uint64_t size, const char *label, struct wd_err *err);

/* The transfer helper started (libcurl loads in it) and OpenSSL's one-time
 * set-up (trust/keys.h: key_crypto_ready) on a thread of its own, while the
 * caller does other work (update: the state database's open and the keys);
 * fetch_preload_end waits for the set-up. */
void fetch_preload(void);
void fetch_preload_end(void);

/* Whether url can name a repository, by libcurl's own URL parser (its URL
 * API, so that what is accepted here is what a transfer will read): the
 * scheme http, https or file; a host for http and https; no user name or
 * password in it (a subscription's credentials come from the activated key,
 * never from a URL that is stored and shown). -WD_EUSAGE with the reason
 * (the URL in it with any password hidden); -WD_EFAIL when the transfer helper
 * cannot be started. */
int fetch_url_check(const char *url, struct wd_err *err);
/* url with the user name and password of its authority (user:pass@) shown
 * as "***@"; a copy to free. */
char *fetch_url_redacted(const char *url);

#endif
