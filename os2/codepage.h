/* The code pages OS/2 text is written in: CONFIG.SYS, PROTOCOL.INI and NIF
 * files hold bytes of the volume's code page (CODEPAGE=850,437 in
 * CONFIG.SYS names it), never UTF-8. Output is UTF-8: this turns the one
 * into the other, and tells valid UTF-8 from bytes that are not. */
#ifndef WD_CODEPAGE_H
#define WD_CODEPAGE_H

#include <stddef.h>

#include "common/buf.h"
#include "os2/config_sys.h"

#define CODEPAGE_DEFAULT 850

struct codepage {
	int number;               /* 850 */
	unsigned short high[128]; /* the Unicode code point of bytes 0x80..0xff */
};

/* The table of code page number, or NULL when it is not one of these:
 * 437, 850, 852, 865, 866 (bytes below 0x80 are ASCII in each). */
const struct codepage *codepage_find(int number);
/* "437, 850, 852, 865, 866": for a message naming what is known. */
const char *codepage_names(void);

/* Appends p[0..n), bytes of code page cp, to out as UTF-8. */
void codepage_to_utf8(const struct codepage *cp, const char *p, size_t n, struct wd_buf *out);

/* The number of bytes of the one well-formed UTF-8 sequence at p[0..n)
 * (1 for ASCII; 2..4), or 0 when the bytes there are not one: a stray
 * continuation byte, an overlong form, a surrogate, above U+10FFFF, or cut
 * short. *cp gets its code point. */
size_t utf8_seq(const char *p, size_t n, unsigned *cp);
/* Appends the code point u as UTF-8. */
void utf8_put(struct wd_buf *out, unsigned u);

/* The code page a CONFIG.SYS selects: the first number of its CODEPAGE=
 * statement (CODEPAGE=850,437: 850), or 0 when it has none or it is not a
 * number. */
int codepage_of_config_sys(const struct config_sys *cs);

#endif
