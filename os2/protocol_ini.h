/* PROTOCOL.INI (NDIS 2) as a list of lines that keep their bytes
 * (installer/textlines.h) with an index of its sections, kept right by every
 * edit, and hash indexes of section names and DriverNames built when first
 * asked for (so a lookup costs the same in a file of 100 000 sections). Sections are numbered in file order from 0; line indexes start at 0.
 * New lines follow the file's own layout: its indent, its " = ", its blank
 * line after headers and between sections, its quoting of Bindings. */
#ifndef WD_PROTOCOL_INI_H
#define WD_PROTOCOL_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "os2/textlines.h"

struct pi_section {
	char *name;    /* as written between the brackets, trimmed */
	size_t header; /* line of "[name]" */
	size_t end;    /* one past its last line: the next header or the end */
};

struct pi_index;

struct protocol_ini {
	struct textlines t;
	struct pi_section *sec;
	size_t nsec;
	struct pi_index *ix; /* the lookup indexes; private to protocol_ini.c */
};

/* A Bindings value split into slots. An empty slot ("Bindings = ,IBMEAN_nif")
 * is an empty string: a slot's position is the NetBIOS adapter number. */
struct pi_bindings {
	char **slot;
	size_t n;
	bool quoted; /* written "A_nif","B_nif" */
};

void protocol_ini_parse(struct protocol_ini *pi, const char *p, size_t n);
void protocol_ini_free(struct protocol_ini *pi);
void protocol_ini_write(const struct protocol_ini *pi, struct wd_buf *out);

/* Sections and keywords; names compare without case. -1 when absent. */
long pi_section(const struct protocol_ini *pi, const char *name);
/* The first section at or after `from` whose DriverName is drivername. */
long pi_section_by_driver(const struct protocol_ini *pi, size_t from, const char *drivername);
/* The first section whose DriverName is dn (any bytes, compared without
 * case), or -1. */
long pi_first_with_driver(const struct protocol_ini *pi, struct wd_sv dn);
long pi_key_line(const struct protocol_ini *pi, size_t s, const char *key);
bool pi_get(const struct protocol_ini *pi, size_t s, const char *key, struct wd_sv *val);
/* Line i read as "key = value"; false for anything else. */
bool pi_line_key(const struct protocol_ini *pi, size_t i, struct wd_sv *key, struct wd_sv *val);

/* Edits: 0, or -1 for text that would break the file (a line break
 * anywhere, a ']' in a section name, a '=' in a keyword) or a bad index. */
/* Sets key in section s: its value is replaced where it stands, or a new
 * line goes after the section's last keyword. */
int pi_set(struct protocol_ini *pi, size_t s, const char *key, const char *value);
int pi_unset(struct protocol_ini *pi, size_t s, const char *key);
/* Removes, in one pass, each keyword line of section s (DriverName's too)
 * for which drop says true, as pi_unset of each would; drop sees them in
 * file order. How many went. */
size_t pi_drop_keys(struct protocol_ini *pi, size_t s,
		    bool (*drop)(void *ud, struct wd_sv key, struct wd_sv value), void *ud);
/* Adds, in one pass, each keyword section s does not have yet (a key
 * named twice goes in once, at its first value), where and as pi_set would
 * put it. 0, or -1
 * with nothing changed when a key or value could not be held. */
int pi_add_keys(struct protocol_ini *pi, size_t s, const char *const *keys,
		const char *const *values, size_t n);
/* Renames keyword key of section s where it stands, keeping the line's
 * layout; value NULL keeps its value. -1 when the keyword is not there. */
int pi_rename_key(struct protocol_ini *pi, size_t s, const char *key, const char *name,
		  const char *value);
/* Adds an empty section after section `after` (-1: at the end of the file)
 * and returns its index (>= 0), or -1. Fill it with pi_set. */
long pi_add_section(struct protocol_ini *pi, const char *name, long after);
int pi_remove_section(struct protocol_ini *pi, size_t s);
/* Renames section s; Bindings and [IBMLXCFG] entries are left to the caller
 * (pi_rebind, pi_lxcfg_*), which knows whether they should follow. */
int pi_rename_section(struct protocol_ini *pi, size_t s, const char *name);

/* Bindings of section s; false when it has none. Free with pi_bindings_free. */
bool pi_bindings_get(const struct protocol_ini *pi, size_t s, struct pi_bindings *b);
void pi_bindings_free(struct pi_bindings *b);
/* Adds name in the first empty slot, else at the end. */
int pi_bind_add(struct protocol_ini *pi, size_t s, const char *name);
/* Replaces old with new where it stands; how many were replaced (0..). */
int pi_bind_replace(struct protocol_ini *pi, size_t s, const char *old, const char *name);
/* Removes name. Slots after it keep their positions: a removed slot in the
 * middle stays as an empty slot; empty slots at the end go; a Bindings left
 * with no slot at all is deleted. How many were removed (0..). */
int pi_bind_remove(struct protocol_ini *pi, size_t s, const char *name);
/* pi_bind_replace in every section; how many bindings changed. */
int pi_rebind(struct protocol_ini *pi, const char *old, const char *name);

/* What, for each name in turn, pi_bind_remove in every section,
 * pi_lxcfg_remove and pi_remove_section of the first section of that name
 * would do, in one pass over the file. */
void pi_drop_sections(struct protocol_ini *pi, char *const *names, size_t n);

/* [IBMLXCFG] entries ("E1000_nif = E1000.NIF"). Set creates the section
 * after [PROT_MAN] (or at the top) when the file has none. */
int pi_lxcfg_set(struct protocol_ini *pi, const char *name, const char *nif);
int pi_lxcfg_remove(struct protocol_ini *pi, const char *name);

#endif
