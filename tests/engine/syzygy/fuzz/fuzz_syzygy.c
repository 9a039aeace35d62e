/* fuzz_syzygy.c: libFuzzer target for damaged Syzygy table files.
 *
 * The first input byte picks a table name (the material the file claims),
 * the rest is the file. It is written into a directory of its own under
 * $CF_SYZYGY_WORK (or the current directory), checked on its own
 * (cf_syzygy_check_bytes) and loaded as a SyzygyPath (cf_syzygy_load): any
 * bytes must give a report, never a crash. A file the checks accept was
 * loaded; nothing is probed, since the format carries no checksum and the
 * prober trusts the compressed data of a file whose header and length
 * hold (cf_syzygy_file.h).
 *
 * Built with -DCF_FUZZ_REPLAY instead, main() replays the seed folder
 * given on the command line (the fast suite's regression run). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_file.h"

static const char *const kNames[] = {"KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvKP.rtbw",
                                     "KRvKP.rtbz", "KBNvK.rtbw", "KPvK.rtbz", "KQRBNPPvK.rtbw"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *name = kNames[data[0] % (sizeof kNames / sizeof kNames[0])];
  const uint8_t *body = data + 1;
  size_t len = size - 1;
  cf_syzygy_material mat;
  cf_syzygy_kind kind;
  if (cf_syzygy_parse_name(name, &mat, &kind, NULL) == CF_OK)
    (void)cf_syzygy_check_bytes(body, len < CF_SYZYGY_HEADER_BYTES ? len : CF_SYZYGY_HEADER_BYTES,
                                len, &mat, kind, NULL);
  const char *work = getenv("CF_SYZYGY_WORK");
  char dir[1024], path[1200];
  snprintf(dir, sizeof dir, "%s/fuzz-tables-%ld", work && *work ? work : ".", (long)getpid());
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (len) fwrite(body, 1, len, f);
  fclose(f);
  cf_syzygy_report report;
  cf_status st = cf_syzygy_load(dir, &report);
  /* A refusal always says why; an acceptance reports the table. */
  if (st == CF_OK ? report.wdl_tables != 1 : report.error_count == 0) abort();
  cf_syzygy_unload();
  remove(path);
  rmdir(dir);
  return 0;
}

#ifdef CF_FUZZ_REPLAY
int main(int argc, char **argv) {
  int replayed = 0;
  for (int i = 1; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      static uint8_t buf[1 << 16];
      FILE *f = fopen(path, "rb");
      if (!f) continue;
      size_t n = fread(buf, 1, sizeof buf, f);
      fclose(f);
      LLVMFuzzerTestOneInput(buf, n);
      replayed++;
    }
    if (d) closedir(d);
  }
  printf("replayed %d table files\n", replayed);
  return replayed == 0;
}
#endif
