/* cf_policy_map.c: the 1858 policy order, generated from its rule on first
 * use (tests/policy_head compares it with data's
 * policy_index_1858.txt line by line). */
#include "policy_head/cf_policy_map.h"

#include <pthread.h>
#include <stdlib.h>

/* entries[i]: from, to and promotion of 1858 entry i;
 * by_attention[a]: 1858 index of attention slot a, or -1. */
typedef struct entry {
  unsigned char from, to, promo;
} entry;

static entry entries[CF_POLICY_1858];
static short by_attention[CF_POLICY_4288];
static pthread_once_t built = PTHREAD_ONCE_INIT; /* safe from any thread */

/* A queen or a knight on `from` reaches `to` on an empty board. */
static int reachable(int from, int to) {
  int df = abs(from % 8 - to % 8), dr = abs(from / 8 - to / 8);
  if (from == to) return 0;
  return df == 0 || dr == 0 || df == dr || (df == 1 && dr == 2) || (df == 2 && dr == 1);
}

static void build(void) {
  int n = 0;
  for (int a = 0; a < CF_POLICY_4288; a++) by_attention[a] = -1;
  for (int from = 0; from < 64; from++)
    for (int to = 0; to < 64; to++)
      if (reachable(from, to)) {
        entries[n] = (entry){(unsigned char)from, (unsigned char)to, CF_PROMO_NONE};
        by_attention[from * 64 + to] = (short)n++;
      }
  /* promotions from rank 7 to rank 8, straight or diagonal, q r b */
  for (int i = 0; i < 8; i++)
    for (int j = i - 1; j <= i + 1; j++) {
      if (j < 0 || j > 7) continue;
      for (int r = 0; r < 3; r++) {
        entries[n] = (entry){(unsigned char)(48 + i), (unsigned char)(56 + j),
                             (unsigned char)(CF_PROMO_QUEEN + r)};
        by_attention[4096 + i * 24 + j * 3 + r] = (short)n++;
      }
    }
}

int cf_policy_attention_index(int from, int to, cf_promo promo) {
  if (from < 0 || from > 63 || to < 0 || to > 63) return -1;
  if (promo == CF_PROMO_NONE || promo == CF_PROMO_KNIGHT) return from * 64 + to;
  if (from / 8 != 6 || to / 8 != 7 || promo > CF_PROMO_BISHOP) return -1;
  return 4096 + (from % 8) * 24 + (to % 8) * 3 + (promo - CF_PROMO_QUEEN);
}

int cf_policy_1858_of_attention(int attention_index) {
  pthread_once(&built, build);
  if (attention_index < 0 || attention_index >= CF_POLICY_4288) return -1;
  return by_attention[attention_index];
}

int cf_policy_index(int from, int to, cf_promo promo) {
  return cf_policy_1858_of_attention(cf_policy_attention_index(from, to, promo));
}

const char *cf_policy_index_uci(int i, char buf[6]) {
  pthread_once(&built, build);
  if (i < 0 || i >= CF_POLICY_1858) return NULL;
  entry e = entries[i];
  buf[0] = (char)('a' + e.from % 8);
  buf[1] = (char)('1' + e.from / 8);
  buf[2] = (char)('a' + e.to % 8);
  buf[3] = (char)('1' + e.to / 8);
  buf[4] = e.promo ? "\0qrbn"[e.promo] : '\0';
  buf[5] = '\0';
  return buf;
}
