/* A text file as a list of lines that keep their original bytes.
 * CONFIG.SYS, PROTOCOL.INI and NIF files are edited by hand on OS/2 with
 * editors that leave CR LF, LF, a final Ctrl-Z or no final newline; a model
 * that rebuilt lines from parsed fields would rewrite all of that. Here each
 * line keeps its bytes, line ending included, so writing an untouched file
 * gives back exactly what was read, and an edit changes only its own line.
 * The lines read point into one copy of the file (no allocation per line);
 * an edited line gets its own. A line's bytes are not NUL-terminated: use
 * its length. */
#ifndef WD_TEXTLINES_H
#define WD_TEXTLINES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

struct tl_line {
	char *p;    /* the line's bytes, its line ending included */
	size_t len; /* all of them */
	size_t eol; /* how many of them are the ending: 0, 1 (LF) or 2 (CR LF) */
	bool own;   /* p is its own allocation (an edited line), else in block */
};

struct textlines {
	struct tl_line *v;
	size_t n, cap;
	char *block;     /* the bytes parsed: one allocation for every line read */
	char *tail;      /* Ctrl-Z bytes after the last line (old editors' end mark) */
	size_t tail_len;
};

/* Splits bytes into lines at each LF; never fails. */
void tl_parse(struct textlines *t, const char *p, size_t n);
void tl_free(struct textlines *t);
/* Appends the file's bytes to out. */
void tl_write(const struct textlines *t, struct wd_buf *out);

/* Line i's text without its ending. */
struct wd_sv tl_text(const struct textlines *t, size_t i);
/* The ending a new line gets: CR LF when any line has one or the file has
 * no line ending at all yet (a new file), else LF. */
const char *tl_newline(const struct textlines *t);
/* Counts the lines ending in LF without CR. */
size_t tl_count_lf_only(const struct textlines *t, size_t *first);

/* True when text can be one line: no LF, and no CR at its end. */
bool tl_one_line(const char *text, size_t len);

/* Edits. text is one line without its ending (refused with -1 when
 * tl_one_line says no: it would split the line or change its ending). Inserting at n appends; the line before
 * it gains the file's ending when it had none, since two lines cannot share
 * one. Replace keeps the line's own ending. */
int tl_insert(struct textlines *t, size_t at, const char *text, size_t len);
int tl_replace(struct textlines *t, size_t i, const char *text, size_t len);
void tl_delete(struct textlines *t, size_t i);
/* Frees line i's bytes when they are its own (tl_delete and the like). */
void tl_line_free(struct tl_line *l);
/* The lines whose gone[i] is true go, in one pass; how many. */
size_t tl_delete_marked(struct textlines *t, const bool *gone);
/* Lines [from, to) go, in one move of the rest. */
void tl_delete_range(struct textlines *t, size_t from, size_t to);
/* n lines at at, at + 1, ...: what n calls of tl_insert would do, in one
 * move of the rest. -1 with nothing changed when one cannot be a line. */
int tl_insert_many(struct textlines *t, size_t at, const char *const *text, const size_t *len,
		   size_t n);

/* INI-style lines (PROTOCOL.INI, NIF): ';' in column one is a comment,
 * "[name]" a section header (name trimmed), "key = value" a keyword (both
 * trimmed); anything else is INI_OTHER and is kept but means nothing. */
enum ini_kind { INI_BLANK, INI_COMMENT, INI_HEADER, INI_KEY, INI_OTHER };
enum ini_kind tl_ini_line(struct wd_sv text, struct wd_sv *a, struct wd_sv *b);

/* Case-insensitive (ASCII) comparison of two views. */
bool tl_sv_ieq(struct wd_sv a, struct wd_sv b);
#endif
