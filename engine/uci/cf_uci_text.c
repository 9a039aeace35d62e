/* cf_uci_text.c: clean protocol text (cf_uci_text.h). */
#include "engine/uci/cf_uci_text.h"

#include <ctype.h>
#include <string.h>

#include <stdint.h>

/* Length of the valid, printable UTF-8 character at s (1 to 4), or 0 when
 * the byte at s must be escaped (a control character, a C1 control, or not
 * the start of a valid sequence: RFC 3629's table of well-formed byte
 * sequences). */
static int clean_char(const unsigned char *s) {
  const unsigned c = s[0];
  if (c < 0x20 || c == 0x7f) return 0;
  if (c < 0x80) return 1;
  int n;
  unsigned lo = 0x80, hi = 0xbf; /* the allowed range of the second byte */
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    if (c == 0xc2) lo = 0xa0; /* C2 80..C2 9F are the C1 controls */
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0; /* overlong */
    if (c == 0xed) hi = 0x9f; /* surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90; /* overlong */
    if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
  } else {
    return 0; /* 80..C1 (continuation, overlong lead) and F5..FF */
  }
  if (s[1] < lo || s[1] > hi) return 0;
  for (int i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xbf) return 0;
  return n;
}

size_t cf_uci_text_clean(const char *in, char *out, size_t size) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)(in ? in : "");
  size_t at = 0;
  while (*s) {
    int n = clean_char(s);
    if (n > 0) {
      if (at + (size_t)n >= size) break;
      for (int i = 0; i < n; i++) out[at++] = (char)s[i];
      s += n;
    } else {
      if (at + 4 >= size) break;
      out[at++] = '\\';
      out[at++] = 'x';
      out[at++] = hex[*s >> 4];
      out[at++] = hex[*s & 15];
      s++;
    }
  }
  out[at] = 0;
  return at;
}

bool cf_uci_text_is_clean(const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    int n = clean_char(p);
    if (n == 0) return false;
    p += n;
  }
  return true;
}

char *cf_uci_trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}
