/* cf_attacks.c: builds the leaper, line and magic slider tables. */
#include "chess/cf_attacks.h"

#include <assert.h>
#include <stddef.h>

#include "chess/cf_tables_build.h"

cf_attack_tables cf_attacks;

/* Rook tables: sum over squares of 2^(relevant bits) = 102400 entries;
 * bishops: 5248. Shared arrays indexed through each cf_magic's table pointer. */
#define ROOK_TABLE_SIZE 102400
#define BISHOP_TABLE_SIZE 5248
static cf_bb rook_table[ROOK_TABLE_SIZE];
static cf_bb bishop_table[BISHOP_TABLE_SIZE];

static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static int on_board(int file, int rank) { return file >= 0 && file < 8 && rank >= 0 && rank < 8; }

cf_bb cf_attacks_slow(int s, cf_bb occupied, int bishop) {
  const int(*dirs)[2] = bishop ? bishop_dirs : rook_dirs;
  cf_bb attacks = 0;
  for (int d = 0; d < 4; d++) {
    int f = cf_square_file(s) + dirs[d][0], r = cf_square_rank(s) + dirs[d][1];
    for (; on_board(f, r); f += dirs[d][0], r += dirs[d][1]) {
      attacks |= cf_bb_of(cf_square(f, r));
      if (cf_bb_has(occupied, cf_square(f, r))) break;
    }
  }
  return attacks;
}

static cf_bb leaper(int s, const int (*steps)[2], int n) {
  cf_bb b = 0;
  for (int i = 0; i < n; i++) {
    int f = cf_square_file(s) + steps[i][0], r = cf_square_rank(s) + steps[i][1];
    if (on_board(f, r)) b |= cf_bb_of(cf_square(f, r));
  }
  return b;
}

static void build_leapers(void) {
  static const int knight_steps[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                         {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  static const int king_steps[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1},
                                       {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  static const int white_pawn_steps[2][2] = {{-1, 1}, {1, 1}};
  static const int black_pawn_steps[2][2] = {{-1, -1}, {1, -1}};
  for (int s = 0; s < 64; s++) {
    cf_attacks.knight[s] = leaper(s, knight_steps, 8);
    cf_attacks.king[s] = leaper(s, king_steps, 8);
    cf_attacks.pawn[CF_WHITE][s] = leaper(s, white_pawn_steps, 2);
    cf_attacks.pawn[CF_BLACK][s] = leaper(s, black_pawn_steps, 2);
  }
}

static void build_lines(void) {
  for (int a = 0; a < 64; a++) {
    for (int bishop = 0; bishop <= 1; bishop++) {
      cf_bb rays = cf_attacks_slow(a, 0, bishop);
      for (int b = 0; b < 64; b++) {
        if (!cf_bb_has(rays, b)) continue;
        /* The full line is what both squares see on an empty board along the
         * shared direction, plus themselves. */
        cf_attacks.line[a][b] =
            (cf_attacks_slow(a, 0, bishop) & cf_attacks_slow(b, 0, bishop)) | cf_bb_of(a) | cf_bb_of(b);
        cf_attacks.between[a][b] =
            cf_attacks_slow(a, cf_bb_of(b), bishop) & cf_attacks_slow(b, cf_bb_of(a), bishop);
      }
    }
  }
}

/* xorshift64*: a fixed seed makes the magics, and so the tables, identical
 * on every run, which keeps any bug reproducible. */
static uint64_t rng_next(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1DULL;
}

/* Relevant blockers: the rays from s without the board edge beyond them
 * (a piece on the edge blocks nothing further). */
static cf_bb relevant_mask(int s, int bishop) {
  cf_bb edges = ((CF_BB_RANK(0) | CF_BB_RANK(7)) & ~CF_BB_RANK(cf_square_rank(s))) |
                ((CF_BB_FILE(0) | CF_BB_FILE(7)) & ~CF_BB_FILE(cf_square_file(s)));
  return cf_attacks_slow(s, 0, bishop) & ~edges;
}

/* Magics found once by search_magic below (seed 0x9E3779B97F4A7C15, squares
 * in order, rook then bishop) and stored, because the search costs ~230 ms
 * per process (over 1 s under ASan) and every test binary starts one. Each
 * is verified while its table is filled; a failure falls back to the search,
 * so a wrong entry here costs time, never correctness. */
static const cf_bb rook_magics[64] = {
    0x1080004008801020ULL, 0x0840092002C03000ULL, 0x1900200010400900ULL,
    0x0880100008000480ULL, 0x4200100420080200ULL, 0x8100020100080400ULL,
    0x0200040110886200ULL, 0x0200008040220411ULL, 0x0404800084400220ULL,
    0x0000401000402000ULL, 0x0086001081220440ULL, 0x0408800800100280ULL,
    0x000A001201040820ULL, 0x8848800200840080ULL, 0x4001000100040200ULL,
    0x0442000102105084ULL, 0x9080010020804100ULL, 0x0040404000201009ULL,
    0x0000808010002009ULL, 0x2200090021D00100ULL, 0x0008008008040080ULL,
    0x0004004002010040ULL, 0x0011040008015042ULL, 0x00000A0001768104ULL,
    0x0000800080204009ULL, 0x2010004140002001ULL, 0x9800200280100080ULL,
    0x1000100080080080ULL, 0x0050500500080100ULL, 0x0000020080040080ULL,
    0x0C10010400420810ULL, 0x1040008200005104ULL, 0x01808240088004A0ULL,
    0x0882804004802000ULL, 0x0880402001001100ULL, 0x2000210409001000ULL,
    0x2000480131001500ULL, 0x0000800400800200ULL, 0x000002380C001003ULL,
    0x4600084882000431ULL, 0x0080002000504000ULL, 0x0300500020004002ULL,
    0x0040408200220011ULL, 0x0010040008004040ULL, 0x0000080004008080ULL,
    0x0010040002008080ULL, 0x2012004881020004ULL, 0x8300842444820011ULL,
    0x0088403882010200ULL, 0x0820400080210100ULL, 0x0110910040A00300ULL,
    0x0801100280080480ULL, 0x0242009008200600ULL, 0x1002000489500200ULL,
    0x0040800200010080ULL, 0x0091800041000080ULL, 0x0000209300488001ULL,
    0x04C1002414824001ULL, 0x020020000B001041ULL, 0x7000100004200901ULL,
    0x8002002004100802ULL, 0x30010002084C0007ULL, 0x0888221800813004ULL,
    0x4000002840840112ULL,
};
static const cf_bb bishop_magics[64] = {
    0x20C0090901061081ULL, 0x0024040094030104ULL, 0x8210810200290200ULL,
    0x0011040484620000ULL, 0x0081104002221000ULL, 0x0009012011001350ULL,
    0x0081010802400380ULL, 0x0000420210010408ULL, 0x0008105002280050ULL,
    0x0001028484040044ULL, 0x2A00880810408804ULL, 0x7020022282000100ULL,
    0x0084040420100A50ULL, 0x000401010840E000ULL, 0x2020020210420888ULL,
    0x0008084202012010ULL, 0x2010400810018800ULL, 0x0445122008020840ULL,
    0x0804100808002008ULL, 0x0008002104110100ULL, 0x0061005820080800ULL,
    0x2001000200820100ULL, 0x480C210084010800ULL, 0x3004442500480420ULL,
    0x1010102240048100ULL, 0x00182009084220A3ULL, 0x8803090A10004205ULL,
    0x0208080040202020ULL, 0x000C044084010040ULL, 0x00A1010002004106ULL,
    0x6008210020640202ULL, 0x1600902112860801ULL, 0x00042008C1220200ULL,
    0x010C042002440140ULL, 0x5022080200040820ULL, 0x0402004042940100ULL,
    0x0860108400008020ULL, 0x000C080022021000ULL, 0x0264080652822100ULL,
    0x4005031221010401ULL, 0x0004502410008400ULL, 0x000500B010A20400ULL,
    0x0415094050080800ULL, 0x080000201800A104ULL, 0x4022A80304000110ULL,
    0x4012140802028020ULL, 0x40200104010100A0ULL, 0x12810806008B0C41ULL,
    0x0020441008080000ULL, 0x2002120084045420ULL, 0x0704020062080002ULL,
    0x0000001084040001ULL, 0x0322200891240200ULL, 0xF040200210024800ULL,
    0x0140824832008042ULL, 0x000210020A004602ULL, 0x0083042805141020ULL,
    0x002C12009A011000ULL, 0x0041A00044140400ULL, 0x00004004020A0202ULL,
    0x0000140010020210ULL, 0x2864160811012200ULL, 0x2060080841082A17ULL,
    0xA010041108003100ULL,
};

/* Every blocker subset of the mask and the attacks it leaves, for one square. */
typedef struct subsets {
  int n;
  cf_bb occupancy[4096], reference[4096];
} subsets;

/* Fills the slice through `magic`; 0 when two subsets with different
 * attacks collide. The epoch array avoids clearing the slice between tries. */
static int try_magic(const cf_magic *m, cf_bb magic, const subsets *sub, cf_bb *slice) {
  static unsigned epoch_of[4096];
  static unsigned epoch;
  epoch++;
  for (int i = 0; i < sub->n; i++) {
    unsigned idx = (unsigned)((sub->occupancy[i] * magic) >> m->shift);
    if (epoch_of[idx] != epoch) {
      epoch_of[idx] = epoch;
      slice[idx] = sub->reference[i];
    } else if (slice[idx] != sub->reference[i]) {
      return 0;
    }
  }
  return 1;
}

/* Random search: sparse candidates (AND of three draws) succeed far more
 * often than dense ones. */
static cf_bb search_magic(const cf_magic *m, const subsets *sub, cf_bb *slice, uint64_t *rng) {
  for (;;) {
    cf_bb magic = rng_next(rng) & rng_next(rng) & rng_next(rng);
    if (cf_bb_count((m->mask * magic) >> 56) < 6) continue; /* cannot spread the bits */
    if (try_magic(m, magic, sub, slice)) return magic;
  }
}

static void build_magic(int s, int bishop, cf_bb *slice, uint64_t *rng) {
  static subsets sub;
  cf_magic *m = bishop ? &cf_attacks.bishop[s] : &cf_attacks.rook[s];
  m->mask = relevant_mask(s, bishop);
  m->shift = 64u - (unsigned)cf_bb_count(m->mask);
  m->table = slice;
  sub.n = 0;
  cf_bb subset = 0;
  do { /* Carry-Rippler walk over every subset of the mask. */
    sub.occupancy[sub.n] = subset;
    sub.reference[sub.n] = cf_attacks_slow(s, subset, bishop);
    sub.n++;
    subset = (subset - m->mask) & m->mask;
  } while (subset);
  cf_bb stored = bishop ? bishop_magics[s] : rook_magics[s];
  m->magic = try_magic(m, stored, &sub, slice) ? stored : search_magic(m, &sub, slice, rng);
}

static void build_sliders(void) {
  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  cf_bb *next_rook = rook_table, *next_bishop = bishop_table;
  for (int s = 0; s < 64; s++) {
    build_magic(s, 0, next_rook, &rng);
    next_rook += (size_t)1 << (64 - cf_attacks.rook[s].shift);
    build_magic(s, 1, next_bishop, &rng);
    next_bishop += (size_t)1 << (64 - cf_attacks.bishop[s].shift);
  }
  /* The slices exactly tile the arrays; anything else is a bug in the sizes. */
  assert(next_rook == rook_table + ROOK_TABLE_SIZE);
  assert(next_bishop == bishop_table + BISHOP_TABLE_SIZE);
  (void)next_rook;
  (void)next_bishop;
}

void cf_attacks_build(void) {
  build_leapers();
  build_lines();
  build_sliders();
}
