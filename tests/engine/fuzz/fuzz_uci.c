/* fuzz_uci: libFuzzer target for the UCI command loop.
 *
 * The input is split into lines and fed to a fresh responder; then any
 * search is stopped and everything freed. The first byte picks the
 * network: low bits 111 = the built-in net (searches really run, cut short
 * with the policy agent unless the input sets another; loading the net is
 * slow, hence one input in eight),
 * anything else = a missing weights file (fast; the no-network paths), and
 * then bit 3 set = background loading as the binary runs it (commands
 * queue behind a load, quit lets it go; at the end of an input without
 * quit the responder is drained as the binary does). The output callback
 * checks every line is non-empty, clean text (valid UTF-8, no control
 * character, so no newline either).
 *
 * uci.dict (passed with -dict=) holds the commands, go tokens, option
 * names and values, moves and FEN parts.
 *
 * Build and run (clang):
 *   CC=clang meson setup build-fuzz -Dfuzz=true && ninja -C build-fuzz
 *   meson test -C build-fuzz --suite fuzz          # engine/fuzz: 45 s
 * Built with -DCF_FUZZ_REPLAY instead, main() replays files or folders
 * given on the command line (the normal suite replays the seed corpus and
 * regressions/ that way). */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_text.h"

static void check_line(void *user, const char *line) {
  (void)user;
  if (!line[0] || !cf_uci_text_is_clean(line)) abort();
  /* And by hand, not trusting the cleaner under test: no control byte
   * (C0, DEL) at all, so no line can split or forge another. */
  for (const unsigned char *p = (const unsigned char *)line; *p; p++)
    if (*p < 0x20 || *p == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 65536) return 0;
  const bool built_in = (data[0] & 7) == 7;
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4,
                       .background_load = !built_in && (data[0] & 8)};
  cf_uci *u;
  if (cf_uci_create(&cfg, check_line, NULL, &u, NULL) != CF_OK) abort();
  if (!built_in) cf_uci_set_option(u, CF_OPT_WEIGHTS_FILE, "/nonexistent/fuzz.pb.gz", NULL);
  else cf_uci_set_option(u, CF_OPT_AGENT, "policy", NULL); /* one evaluation per go */
  /* Lines end at '\n' and are fed with their length, as the engine's
   * reader does (a line with a NUL byte is refused). */
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  bool quit = false;
  while (p < end && !quit) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl + 1 : end;
    quit = !cf_uci_feed_n(u, p, (size_t)(stop - p));
    p = stop;
  }
  if (!quit) cf_uci_drain(u);
  cf_uci_free(u);
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
  printf("replayed %d inputs\n", files);
  return rc || files == 0;
}
#endif
