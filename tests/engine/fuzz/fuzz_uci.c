/* fuzz_uci: libFuzzer target for the UCI command loop.
 *
 * The input is split into lines and fed to a responder; then any search
 * is stopped and the responder reset (cf_uci_reset) for the next input.
 * Responders are kept across inputs, one per network and loading mode, so
 * an input does not pay for creating one, its threads' first start and a
 * network load; each input starts from the same state (the reset, the
 * setup below, an isready), so it does the same alone in a fresh process
 * as after others, and a finding reproduces from its file. One input in
 * eight (bits 4-6 of the first byte all set) gets a fresh responder,
 * created and freed around it without the isready, as before reuse: its
 * commands load the network (and with background loading queue behind
 * the load).
 *
 * The first byte's low bits pick the network (pick_net): tiny.pb.gz beside
 * this file (a random net of 1 layer, d 4, 1 head, dff 4) on the `fuzz`
 * backend (fuzz_backend.h: the ref backend with cheap deterministic
 * linear, attention and matmul; half the inputs), the same net on the ref
 * backend (a quarter), or a missing weights file (the no-network paths; a
 * quarter). Kept engines search in the feeding call (inline_search),
 * fresh ones on the search thread. Searches are bounded: every go line is fed with " nodes 4"
 * appended unless it already ends its search within 4 visits (a later
 * nodes overrides an earlier one, so a timed, depth or infinite search
 * still parses and runs as asked, only shorter); a held search ends with
 * the next command, and the reset stops any at the end of the input. The
 * NN cache is set to 1,000 entries (the default 2,000,000 is cleared for
 * every search: most of an input's time), and an input that asks for more
 * than 2 threads or a cache above 20,000 entries is not run (return -1:
 * not kept in the corpus): it would measure the machine's memory and
 * thread start-up, not the code. The input may still pick `<built in>` or
 * another backend (rare and slower). Bit 3 of the first byte = background
 * loading as the binary runs it (commands queue behind a load, quit lets
 * it go; at the end of an input without quit the responder is drained as
 * the binary does). The output callback checks every line is non-empty,
 * clean text (valid UTF-8, no control character, so no newline either).
 *
 * uci.dict (passed with -dict=) holds the commands, go tokens, option
 * names and values, moves and FEN parts.
 *
 * Build and run (clang):
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   meson test -C build-fuzz --suite fuzz          # engine/fuzz: 45 s
 * A long run and the corpus minimization: docs/FUZZING.md.
 * Built with -DCF_FUZZ_REPLAY instead, main() replays files or folders
 * given on the command line (the normal suite replays the seed corpus and
 * regressions/ that way). */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chess/cf_fen.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_go.h"
#include "engine/uci/cf_uci_text.h"
#include "fuzz_backend.h"

/* Not instrumented for coverage (clang's fuzz build): it runs on every line
 * written and compares bytes with fixed classes, nothing an input steers. */
#if defined(__clang__)
#define NOT_COVERED __attribute__((no_sanitize("coverage")))
#else
#define NOT_COVERED
#endif

NOT_COVERED static void check_line(void *user, const char *line) {
  (void)user;
  if (!line[0] || !cf_uci_text_is_clean(line)) abort();
  /* And by hand, not trusting the cleaner under test: no control byte
   * (C0, DEL) at all, so no line can split or forge another. */
  for (const unsigned char *p = (const unsigned char *)line; *p; p++)
    if (*p < 0x20 || *p == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
enum { GO_NODE_CAP = 4 };

/* Whether line (len bytes, no newline) is a go command that may search
 * past GO_NODE_CAP visits: its command word (after leading space, up to
 * the next, as the engine splits it) is go, and the engine's own parse of
 * the rest (cf_uci_go_parse) gives no nodes within 1..GO_NODE_CAP (0
 * means no limit). */
static bool go_needs_cap(const char *line, size_t len) {
  if (memchr(line, 0, len)) return false; /* a NUL: the engine refuses the line */
  char *buf = malloc(len + 1);
  if (!buf) abort();
  memcpy(buf, line, len);
  buf[len] = 0;
  char *w = buf;
  while (isspace((unsigned char)*w)) w++;
  const bool go = strncmp(w, "go", 2) == 0 && (!w[2] || isspace((unsigned char)w[2]));
  long nodes = 0;
  if (go) {
    static cf_uci_go parsed; /* large: searchmoves */
    cf_position start;
    char warn[256];
    cf_position_startpos(&start);
    cf_uci_go_parse(w[2] ? w + 3 : "", &start, &parsed, warn, sizeof warn);
    nodes = parsed.nodes;
  }
  free(buf);
  return go && !(nodes >= 1 && nodes <= GO_NODE_CAP);
}

/* Feeds one line as read (with its newline, if any), capping a go (of any
 * length: an inline search that no cap bounds would never end). */
static bool feed_line(cf_uci *u, const char *line, size_t len) {
  size_t body = len && line[len - 1] == '\n' ? len - 1 : len;
  if (!go_needs_cap(line, body)) return cf_uci_feed_n(u, line, len);
  static const char cap[] = " nodes 4\n";
  _Static_assert(GO_NODE_CAP == 4, "the cap's text");
  char *capped = malloc(body + sizeof cap);
  if (!capped) abort();
  memcpy(capped, line, body);
  memcpy(capped + body, cap, sizeof cap);
  const bool go_on = cf_uci_feed_n(u, capped, body + sizeof cap - 1);
  free(capped);
  return go_on;
}

/* Whether a setoption line asks for more of a resource than a fuzz input
 * may use: Threads above 2, NNCacheSize above 20000 (names in any case;
 * a value that does not parse is the engine's to refuse). */
static bool asks_too_much(const char *line, size_t len) {
  char low[256];
  if (len >= sizeof low) len = sizeof low - 1;
  for (size_t i = 0; i < len; i++) low[i] = (char)tolower((unsigned char)line[i]);
  low[len] = 0;
  if (!strstr(low, "setoption")) return false;
  long cap;
  if (strstr(low, "threads")) cap = 2;
  else if (strstr(low, "nncachesize")) cap = 20000;
  else return false;
  const char *v = strstr(low, " value ");
  return v && strtol(v + 7, NULL, 10) > cap;
}

#ifndef CF_FUZZ_TINY_NET
#error "CF_FUZZ_TINY_NET: the path of tests/engine/fuzz/tiny.pb.gz (meson passes it)"
#endif

/* What the first byte's low bits pick: the tiny net on the fuzz backend
 * (fuzz_backend.h: cheap deterministic ops; 00 and 10, so the committed
 * inputs, most of which start with a 0 byte, run on it), on the ref
 * backend (01: real arithmetic, several times slower), or no network (11:
 * a missing weights file). */
typedef enum { NET_REF, NET_FUZZ, NET_NONE, NET_KINDS } net_kind;

static net_kind pick_net(uint8_t first) {
  static const net_kind by_bits[4] = {NET_FUZZ, NET_REF, NET_FUZZ, NET_NONE};
  return by_bits[first & 3];
}

/* The setup every input runs on: the network picked, and the small NN
 * cache. */
static void setup(cf_uci *u, net_kind net, bool fresh) {
  const char *weights = net == NET_NONE ? "/nonexistent/fuzz.pb.gz" : CF_FUZZ_TINY_NET;
  /* Backend auto asks every backend's probe at each isready and go (the
   * cuda one globs /dev): a kept engine without a net names ref; fresh
   * ones keep auto. */
  const char *backend = net == NET_FUZZ ? CF_FUZZ_BACKEND : net == NET_REF || !fresh ? "ref" : NULL;
  if (cf_uci_set_option(u, CF_OPT_WEIGHTS_FILE, weights, NULL) != CF_OK ||
      (backend && cf_uci_set_option(u, CF_OPT_BACKEND, backend, NULL) != CF_OK) ||
      cf_uci_set_option(u, CF_OPT_SEARCH(nn_cache_size), "1000", NULL) != CF_OK)
    abort();
}

/* The kept engines, [network][background loading], made on first use.
 * Each input starts from the same state: the state cf_uci_reset leaves
 * (every option at its default, the start position, a new tree, cache and
 * clock), setup, and with a network an isready, which loads it only the
 * first time (a net an input changed is loaded back here, by the next
 * input). So an input does the same alone in a fresh process as after any
 * others (but for the load's own lines). */
static cf_uci *kept[NET_KINDS][2];

/* Kept engines search inline (cf_uci_config.inline_search: in the feeding
 * call, so an input runs the same way every time and pays no thread
 * hand-over per go, which was a tenth of the target's time); fresh ones
 * use the search thread as the binary does, so stop, ponderhit and
 * isready during a running search stay covered. */
static cf_uci *new_engine(bool background, bool inline_search) {
  static bool registered;
  if (!registered) registered = cf_fuzz_backend_register() != NULL;
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4, .background_load = background,
                       .inline_search = inline_search};
  cf_uci *u;
  if (cf_uci_create(&cfg, check_line, NULL, &u, NULL) != CF_OK) abort();
  return u;
}

static cf_uci *kept_engine(net_kind net, bool background) {
  cf_uci **slot = &kept[net][background];
  if (!*slot) *slot = new_engine(background, true); /* reset at the end of every input */
  setup(*slot, net, false);
  if (net != NET_NONE) {
    cf_uci_feed(*slot, "isready");
    cf_uci_drain(*slot);
  }
  return *slot;
}

#ifdef CF_FUZZ_REPLAY
static void free_kept(void) {
  for (int n = 0; n < NET_KINDS; n++)
    for (int b = 0; b < 2; b++) {
      cf_uci_free(kept[n][b]);
      kept[n][b] = NULL;
    }
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 65536) return 0;
  for (const char *p = (const char *)data + 1, *end = (const char *)data + size; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    if (asks_too_much(p, (size_t)(stop - p))) return -1;
    p = stop + 1;
  }
  const net_kind net = pick_net(data[0]);
  const bool background = data[0] & 8;
  /* One input in eight gets an engine of its own, created and freed
   * around it with no isready first (its own commands load the net, and
   * with background loading queue behind the load). */
  const bool fresh = (data[0] & 0x70) == 0x70;
  cf_uci *u = fresh ? new_engine(background, false) : kept_engine(net, background);
  if (fresh) setup(u, net, true);
  /* Lines end at '\n' and are fed with their length, as the engine's
   * reader does (a line with a NUL byte is refused). */
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  bool quit = false;
  while (p < end && !quit) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl + 1 : end;
    quit = !feed_line(u, p, (size_t)(stop - p));
    p = stop;
  }
  if (!quit) cf_uci_drain(u);
  if (fresh) {
    cf_uci_free(u);
  } else if (cf_uci_reset(u, NULL) != CF_OK) {
    /* Nothing of this input may stay running or allocated. */
    abort();
  }
  return 0;
}

#ifdef CF_FUZZ_REPLAY
static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  static uint8_t buf[65536];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  return 0;
}

int main(int argc, char **argv) {
  int files = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {
      rc |= replay_file(argv[i]);
      files++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      rc |= replay_file(path);
      files++;
    }
    if (d) closedir(d);
  }
  free_kept();
  printf("replayed %d inputs\n", files);
  return rc || files == 0;
}
#endif
