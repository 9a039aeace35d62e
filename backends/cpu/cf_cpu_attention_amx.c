/* cf_cpu_attention_amx.c: the AMX attention's driver (cf_cpu_amx.h): the
 * check that this process may use the tiles, the joined tables built at
 * upload, and the (head, group of positions) tasks spread over the
 * instance's threads, each run by the AMX code (amx/cf_amx_attention.c).
 * Plain C: nothing here needs more than the target's baseline. */
#define _DEFAULT_SOURCE /* syscall */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backends/cpu/cf_cpu_amx.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

#if defined(CF_CPU_HAVE_AMX) && defined(__x86_64__) && defined(__linux__)
/* Linux hands out the tiles' 8 KB of state only on request
 * (Documentation/arch/x86/xstate.rst); a tile instruction before it is
 * SIGILL. */
enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };

static bool probe(void) {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_max(0, NULL) < 7 || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  if (!(ecx & bit_OSXSAVE)) return false;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const bool tile = edx & (1u << 24), bf16 = edx & (1u << 22), avx512f = ebx & bit_AVX512F;
  __cpuid_count(7, 1, eax, ebx, ecx, edx);
  const bool avx512_bf16 = eax & bit_AVX512BF16;
  if (!tile || !bf16 || !avx512f || !avx512_bf16) return false;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  /* XCR0: opmask, zmm halves and zmm16-31 (bits 5-7), tile config and
   * data (17, 18). */
  if ((lo & 0x600e0u) != 0x600e0u) return false;
  return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}

bool cf_amx_usable(void) {
  /* 0 unknown, 1 no, 2 yes; the probe's answer cannot change, so a race
   * between two first callers only probes twice. */
  static int known = 0;
  int k = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
  if (!k) {
    k = probe() ? 2 : 1;
    __atomic_store_n(&known, k, __ATOMIC_RELEASE);
  }
  return k == 2;
}
#else
bool cf_amx_usable(void) { return false; }
#endif

/* e[p][i*H + h] of an RPE weight; 0 past the depth. */
static float at(const float *data, int heads, int dh, int p, int i, int h) {
  return i < dh ? data[(size_t)p * dh * heads + (size_t)i * heads + h] : 0.0f;
}

static int disp(int q, int k) { return cf_cpu_query_base(q) - cf_cpu_key_off(k); }

bool cf_amx_table_build(cf_weight_role role, int heads, int dh, int h, const float *data,
                        uint16_t *out) {
  const int D = cf_amx_depth_pad(dh), nc = D / 32, nd = D / 16;
  const size_t n = cf_amx_table_elems(role, dh);
  float *x = malloc(n * sizeof *x);
  if (!x) return false;
  /* Every (query or key, block) pair writes its block; pairs that share a
   * block write the same values. */
  for (int a = 0; a < 64; a++)
    if (role == CF_WEIGHT_RPE_V) /* [block][db][key pair][depth][2] */
      for (int kc = 0; kc < 2; kc++) {
        float *dst = x + (size_t)cf_amx_v_block(a, kc) * nd * 512;
        for (int db = 0; db < nd; db++)
          for (int m = 0; m < 16; m++)
            for (int c = 0; c < 16; c++)
              for (int t = 0; t < 2; t++)
                *dst++ = at(data, heads, dh, disp(a, 32 * kc + 2 * m + t), 16 * db + c, h);
      }
    else /* [block][ch][depth pair][16 of the other side][2] */
      for (int bb = 0; bb < 4; bb++) {
        const bool q = role == CF_WEIGHT_RPE_Q;
        float *dst = x + (size_t)(q ? cf_amx_q_block(a, bb) : cf_amx_k_block(a, bb)) * nc * 512;
        for (int ch = 0; ch < nc; ch++)
          for (int m = 0; m < 16; m++)
            for (int j = 0; j < 16; j++)
              for (int t = 0; t < 2; t++) {
                const int other = 16 * bb + j, p = q ? disp(a, other) : disp(other, a);
                *dst++ = at(data, heads, dh, p, 32 * ch + 2 * m + t, h);
              }
      }
  /* The displacement table: [16 rank rows][nc][16 depth pairs][16][2] (q:
   * column j is file offset 14 - j; k: j), [8 rank-row pairs][nd][16
   * column pairs][16 depths][2] (v, columns as q's); rank row 15 and column
   * 15 zero. */
  float *y = x + cf_amx_joined_elems(role, dh);
  if (role == CF_WEIGHT_RPE_V)
    for (int c = 0; c < 8; c++)
      for (int db = 0; db < nd; db++)
        for (int m = 0; m < 16; m++)
          for (int col = 0; col < 16; col++)
            for (int t = 0; t < 2; t++) {
              const int i = 2 * m + t, dr = 2 * c + i / 16, j = i % 16;
              *y++ = dr < 15 && j < 15 ? at(data, heads, dh, 15 * dr + 14 - j, 16 * db + col, h)
                                       : 0.0f;
            }
  else
    for (int dr = 0; dr < 16; dr++)
      for (int ch = 0; ch < nc; ch++)
        for (int m = 0; m < 16; m++)
          for (int j = 0; j < 16; j++)
            for (int t = 0; t < 2; t++) {
              const int df = role == CF_WEIGHT_RPE_Q ? 14 - j : j;
              *y++ = dr < 15 && j < 15 ? at(data, heads, dh, 15 * dr + df, 32 * ch + 2 * m + t, h)
                                       : 0.0f;
            }
  cf_cpu_kernels_portable.to_bf16_row((int)n, x, out);
  free(x);
  return true;
}

#if defined(CF_CPU_HAVE_AMX)
static int thread_num(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* The (position, head) tasks against the displacement tables, spread over
 * the instance's threads; `bytes` of scratch a thread. */
static void positions(cf_cpu_ctx *c, const cf_attention_args *a, const cf_bweight *const w[3],
                      size_t bytes) {
  const int tasks = a->heads * a->batch, nt = c->threads < tasks ? c->threads : tasks;
  char *scratch = c->amx_scratch;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int i = 0; i < tasks; i++) {
    /* Head-major: consecutive tasks of a thread share a head's tables. */
    const int h = i / a->batch, b = i % a->batch;
    const uint16_t *t[3];
    for (int s = 0; s < 3; s++)
      t[s] = w[s] ? w[s]->table_amx + (size_t)h * cf_amx_table_elems(w[s]->role, a->depth) +
                        cf_amx_joined_elems(w[s]->role, a->depth)
                  : NULL;
    cf_amx_attention_position(a, h, b, b + 1 < a->batch, t[0], t[1], t[2],
                              scratch + (size_t)thread_num() * bytes);
  }
}
#endif

bool cf_cpu_attention_amx(cf_cpu_ctx *c, const cf_attention_args *a) {
#if defined(CF_CPU_HAVE_AMX)
  const cf_bweight *w[3] = {a->rpe_q, a->rpe_k, a->rpe_v};
  if (a->depth > CF_AMX_MAX_DEPTH) return false; /* before the scratch, sized by depth */
  /* The scratch, a few hundred KB a thread, kept between calls and sized
   * for both task shapes, so that the warm-up pass at batch 1 (cf_net_warm)
   * leaves nothing to allocate at the first batch that runs groups. */
  const size_t group_bytes = cf_amx_scratch_bytes(a->depth),
               position_bytes = cf_amx_position_scratch_bytes(a->depth),
               bytes = group_bytes > position_bytes ? group_bytes : position_bytes,
               need = bytes * (size_t)c->threads;
  if (c->amx_scratch_bytes < need) {
    free(c->amx_scratch);
    c->amx_scratch = aligned_alloc(64, need);
    c->amx_scratch_bytes = c->amx_scratch ? need : 0;
  }
  if (!c->amx_scratch) return false; /* the cores */
  for (int i = 0; i < 3; i++)
    if (w[i] && (!w[i]->table_amx || w[i]->heads != a->heads)) return false;
  if (a->batch < CF_AMX_GROUP) { /* one position a task (cf_cpu_amx.h) */
    positions(c, a, w, bytes);
    return true;
  }
  const int groups = (a->batch + CF_AMX_GROUP - 1) / CF_AMX_GROUP, tasks = a->heads * groups;
  const int nt = c->threads < tasks ? c->threads : tasks;
  char *scratch = c->amx_scratch;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int i = 0; i < tasks; i++) {
    /* Head-major: consecutive tasks of a thread share a head's tables. */
    const int h = i / groups, g = i % groups, b0 = g * CF_AMX_GROUP;
    const int n = a->batch - b0 < CF_AMX_GROUP ? a->batch - b0 : CF_AMX_GROUP;
    const uint16_t *t[3];
    for (int s = 0; s < 3; s++)
      t[s] = w[s] ? w[s]->table_amx + (size_t)h * cf_amx_table_elems(w[s]->role, a->depth)
                  : NULL;
    cf_amx_attention_group(a, h, b0, n, t[0], t[1], t[2], scratch + (size_t)thread_num() * bytes);
  }
  return true;
#else
  (void)c, (void)a;
  return false;
#endif
}
