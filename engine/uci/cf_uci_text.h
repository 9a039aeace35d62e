/* cf_uci_text.h: clean protocol text. Every line the UCI responder writes
 * goes through cf_uci_text_clean, so text taken from the input (an unknown
 * command, an option's value, a FEN, a file name) or from a file (a
 * network's license field) can never put raw control characters or invalid
 * UTF-8 on the GUI's channel.
 *
 * The rule, chosen to keep what was sent visible and the output plain
 * ASCII-safe: each byte that is a control character (0x00-0x1F, 0x7F), a
 * byte of a C1 control character (U+0080-U+009F, written C2 80..C2 9F), or
 * a byte that is not part of a valid UTF-8 sequence (a stray continuation
 * byte, a truncated sequence, an overlong form, a surrogate, a code point
 * above U+10FFFF, the bytes F5-FF) is written as the four characters \xNN
 * (lower-case hex). Valid UTF-8 text, including non-ASCII letters, passes
 * unchanged, and so does a backslash (file names stay readable), so the
 * escaping is for showing, not a reversible encoding. */
#ifndef CF_UCI_TEXT_H
#define CF_UCI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The longest text an option's value (and a part of one) may have, with
 * its NUL: what the option parsers' buffers hold. */
#define CF_UCI_VALUE_MAX 1024

/* Writes the clean form of in (a NUL-terminated string) to out, at most
 * size - 1 bytes plus the terminating NUL (size > 0). What does not fit is
 * left out whole: never half an escape or half a UTF-8 character. Returns
 * the length written. */
size_t cf_uci_text_clean(const char *in, char *out, size_t size);

/* Whether s is clean already: valid UTF-8 with no control character (C0,
 * DEL or C1). An empty string is clean. */
bool cf_uci_text_is_clean(const char *s);

/* s without its leading and trailing white space (cut in place). */
char *cf_uci_trim(char *s);

#endif /* CF_UCI_TEXT_H */
