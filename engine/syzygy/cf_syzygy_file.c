/* cf_syzygy_file.c: a table file's name, and its header checked against it.
 *
 * Header layout (the Syzygy format as Fathom and Stockfish read it): four
 * magic bytes; a byte whose high nibble is the piece count and whose low
 * bits say "both sides to move stored" (1, WDL tables of unequal material)
 * and "has pawns" (2); then, per sub-table (one, or four for the pawn
 * files a-d), one order byte (two when both sides have pawns) and one byte
 * per piece holding the piece's code in the low nibble and, for the other
 * side to move, in the high nibble. Codes are 1..6 for the white pawn..king
 * and 9..14 for black's, the same numbering as chess/'s cf_piece. */
#include "engine/syzygy/cf_syzygy_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/syzygy/cf_syzygy.h"

static const uint8_t kMagic[2][4] = {{0x71, 0xE8, 0x23, 0x5D}, {0xD7, 0x66, 0x0C, 0xA5}};
static const char kLetters[] = "PNBRQK"; /* index = piece type, as chess/ numbers them */

int cf_syzygy_is_table_name(const char *name) {
  size_t n = strlen(name);
  return n > 5 && (strcmp(name + n - 5, ".rtbw") == 0 || strcmp(name + n - 5, ".rtbz") == 0);
}

static int letter_type(char c) {
  const char *p = c ? strchr(kLetters, c) : NULL;
  return p ? (int)(p - kLetters) : -1;
}

cf_status cf_syzygy_parse_name(const char *name, cf_syzygy_material *mat, cf_syzygy_kind *kind,
                               cf_error *err) {
  memset(mat, 0, sizeof *mat);
  if (!cf_syzygy_is_table_name(name))
    return cf_error_set(err, CF_ERR_FORMAT, "'%s' is not a table file (.rtbw or .rtbz)", name);
  size_t stem = strlen(name) - 5;
  *kind = name[stem + 4] == 'w' ? CF_SYZYGY_WDL : CF_SYZYGY_DTZ;
  int side = 0, last_type = CF_KING + 1, seen_v = 0;
  for (size_t i = 0; i < stem; i++) {
    char c = name[i];
    if (c == 'v' && !seen_v) {
      seen_v = 1, side = 1, last_type = CF_KING + 1;
      continue;
    }
    int type = letter_type(c);
    /* Each side is its king, then its pieces strongest first (KQRvK). */
    int first = (i == 0) || (name[i - 1] == 'v');
    if (type < 0 || (first != (type == CF_KING)) || type > last_type)
      return cf_error_set(err, CF_ERR_FORMAT, "'%s' is not a Syzygy table name", name);
    last_type = type;
    mat->count[side][type]++;
    mat->pieces++;
  }
  if (!seen_v || mat->count[0][CF_KING] != 1 || mat->count[1][CF_KING] != 1)
    return cf_error_set(err, CF_ERR_FORMAT, "'%s' is not a Syzygy table name", name);
  if (mat->pieces > CF_SYZYGY_MAX_PIECES)
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "'%s' has %d pieces; the prober reads at most %d",
                        name, mat->pieces, CF_SYZYGY_MAX_PIECES);
  mat->has_pawns = mat->count[0][CF_PAWN] + mat->count[1][CF_PAWN] > 0;
  return CF_OK;
}

/* Whether the codes in `nibbles` are the pieces of mat, as named or with the
 * colours swapped. */
static int codes_match(const uint8_t *codes, int n, const cf_syzygy_material *mat) {
  int seen[16] = {0};
  for (int i = 0; i < n; i++) seen[codes[i] & 15]++;
  for (int swap = 0; swap < 2; swap++) {
    int ok = 1;
    for (int side = 0; side < 2 && ok; side++)
      for (int type = 0; type < 6 && ok; type++)
        ok = seen[((side ^ swap) << 3) | (type + 1)] == mat->count[side][type];
    if (ok) return 1;
  }
  return 0;
}

cf_status cf_syzygy_check_bytes(const uint8_t *head, size_t len, uint64_t file_size,
                                const cf_syzygy_material *mat, cf_syzygy_kind kind, cf_error *err) {
  if (file_size == 0) return cf_error_set(err, CF_ERR_FORMAT, "empty file");
  if (len < 4 || memcmp(head, kMagic[kind], 4) != 0)
    return cf_error_set(err, CF_ERR_FORMAT, "not a Syzygy %s table (wrong magic number)",
                        kind == CF_SYZYGY_WDL ? "WDL" : "DTZ");
  if (file_size % 64 != 16)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "truncated or padded: %llu bytes, where a complete table has 64 k + 16",
                        (unsigned long long)file_size);
  int sides_differ = memcmp(mat->count[0], mat->count[1], sizeof mat->count[0]) != 0;
  if (len < 5 || (head[4] >> 4) != mat->pieces || ((head[4] >> 1) & 1) != mat->has_pawns ||
      (kind == CF_SYZYGY_WDL && (head[4] & 1) != sides_differ))
    return cf_error_set(err, CF_ERR_FORMAT, "corrupted header: its flags do not match the material");
  int both_pawns = mat->count[0][CF_PAWN] > 0 && mat->count[1][CF_PAWN] > 0;
  int tables = mat->has_pawns ? 4 : 1, order_bytes = 1 + both_pawns;
  size_t at = 5;
  for (int t = 0; t < tables; t++) {
    if (at + (size_t)(order_bytes + mat->pieces) > len)
      return cf_error_set(err, CF_ERR_FORMAT, "corrupted header: cut short");
    uint8_t low[CF_SYZYGY_MAX_PIECES], high[CF_SYZYGY_MAX_PIECES];
    for (int i = 0; i < mat->pieces; i++) {
      low[i] = head[at + (size_t)order_bytes + (size_t)i] & 15;
      high[i] = head[at + (size_t)order_bytes + (size_t)i] >> 4;
    }
    if (!codes_match(low, mat->pieces, mat) ||
        (kind == CF_SYZYGY_WDL && sides_differ && !codes_match(high, mat->pieces, mat)))
      return cf_error_set(err, CF_ERR_FORMAT, "corrupted header: its pieces do not match the name");
    at += (size_t)(order_bytes + mat->pieces);
  }
  return CF_OK;
}

cf_status cf_syzygy_check_file(const char *path, const char *name, cf_syzygy_material *mat,
                               cf_syzygy_kind *kind, cf_error *err) {
  cf_status st = cf_syzygy_parse_name(name, mat, kind, err);
  if (st != CF_OK) return st;
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  struct stat sb;
  uint8_t head[CF_SYZYGY_HEADER_BYTES];
  size_t got = 0;
  if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    fclose(f);
    return cf_error_set(err, CF_ERR_IO, "cannot read '%s': not a regular file", path);
  }
  got = fread(head, 1, sizeof head, f);
  int read_failed = ferror(f);
  fclose(f);
  if (read_failed) return cf_error_set(err, CF_ERR_IO, "cannot read '%s'", path);
  st = cf_syzygy_check_bytes(head, got, (uint64_t)sb.st_size, mat, *kind, err);
  if (st != CF_OK) cf_error_prefix(err, "table '%s'", path);
  return st;
}
