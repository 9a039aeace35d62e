/* test_netconv_cli: the `netconv` binary itself (path in argv[1]): --help of
 * every subcommand, unknown commands, and `random` + `describe --json` on
 * the CF-6M preset (paper MACs 215,744,512). */
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>

#include "tests/cf_test.h"
#include "tests/netconv/nc_test_util.h"

static const char *exe;
static const char *gen_random_net; /* tests/weights' generator: legacy layouts */
static char *out; /* command output (heap: its size is no business of the checks) */
enum { OUT_SIZE = 1 << 16 };
static char dir[256];

/* Runs `exe args` through the shell; output (stdout + stderr) into out. */
static int run(char *dst, size_t size, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", exe, args);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = fread(dst, 1, size - 1, p);
  dst[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_help(cf_test *t) {
  const char *cmds[] = {"describe", "convert", "import", "export", "random"};
  for (int i = 0; i < 5; i++) {
    char args[64], want[64];
    snprintf(args, sizeof args, "%s --help", cmds[i]);
    snprintf(want, sizeof want, "usage: netconv %s", cmds[i]);
    CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
    CHECK_STR_CONTAINS(out, want);
  }
  CHECK_INT_EQ(run(out, OUT_SIZE, "--help"), 0);
  CHECK_STR_CONTAINS(out, "commands:");
  CHECK_INT_EQ(run(out, OUT_SIZE, "frobnicate"), 2);
  CHECK_STR_CONTAINS(out, "unknown command 'frobnicate'");
  CHECK_INT_EQ(run(out, OUT_SIZE, "describe --bogus"), 2);
  CHECK_STR_CONTAINS(out, "unknown flag '--bogus'");
  CHECK_INT_EQ(run(out, OUT_SIZE, ""), 2); /* no command: the list, on stderr */
  CHECK_STR_CONTAINS(out, "commands:");
  /* the built-in network is a NET like any file */
  CHECK_INT_EQ(run(out, OUT_SIZE, "describe --json '<built in>'"), 0);
  CHECK_STR_CONTAINS(out, "\"layers\":\t4");
}

/* `random FLAGS -o DIR/NAME` (its path in path), then `describe
 * [DESCRIBE] path` into out; both must succeed. */
static void random_described(cf_test *t, char *path, size_t size, const char *name,
                             const char *flags, const char *describe) {
  char args[2400];
  nc_test_path(path, size, dir, name);
  snprintf(args, sizeof args, "random %s -o '%s'", flags, path);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "describe %s '%s'", describe, path);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
}

static void test_random_describe(cf_test *t) {
  char args[2400], net[512];
  random_described(t, net, sizeof net, "cf6m.pb.gz", "--preset cf6m --seed 3 --encoding float16",
                   "--json");
  CHECK_STR_CONTAINS(out, "\"paper_macs\":\t215744512");
  CHECK_STR_CONTAINS(out, "\"layers\":\t8");
  CHECK_STR_CONTAINS(out, "\"FLOAT16\":");
  CHECK_STR_CONTAINS(out, "\"policy_heads\":\t[\"vanilla\", \"soft\"]");
  snprintf(args, sizeof args, "describe '%s'", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "RPE q yes, k yes, v yes");
  CHECK_STR_CONTAINS(out, "RMSNorm");
  CHECK_STR_CONTAINS(out, "215.7 M paper MACs");
  /* A shape of one's own; a bad one fails without a file. */
  char small[512];
  random_described(t, small, sizeof small, "small.pb.gz",
                   "--layers 2 --embedding 32 --heads 4 --dff 64 --rpe --rms --no-qkv-bias "
                   "--smolgen --embedding-style dense --input 4 --seed 9",
                   "--json");
  CHECK_STR_CONTAINS(out, "\"smolgen\":\ttrue");
  CHECK_STR_CONTAINS(out, "\"embedding\":\t\"dense\"");
  CHECK_STR_CONTAINS(out, "\"input_format\":\t4");
  /* Through safetensors and back in another encoding. */
  char st[512], back[512];
  nc_test_path(st, sizeof st, dir, "small.safetensors");
  nc_test_path(back, sizeof back, dir, "small-bf16.pb");
  snprintf(args, sizeof args, "export '%s' -o '%s'", small, st);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "import '%s' -o '%s' --encoding bfloat16 --no-gzip", st, back);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "describe --json '%s'", back);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "\"BFLOAT16\":");
  CHECK_STR_CONTAINS(out, "\"input_format\":\t4");
  CHECK_STR_CONTAINS(out, "\"smolgen\":\ttrue");
  /* The layout Lc0 runs: LayerNorm, q/k/v biases, the 176-input table. */
  char lc0_layout[512];
  random_described(t, lc0_layout, sizeof lc0_layout, "lc0-layout.pb.gz",
                   "--preset cf6m --no-rpe --layernorm --qkv-bias --pos-table --layers 1 "
                   "--embedding 32 --heads 2 --dff 32 --seed 1",
                   "");
  CHECK_STR_CONTAINS(out, "q/k/v biases yes");
  CHECK_STR_CONTAINS(out, "LayerNorm");
  CHECK_STR_CONTAINS(out, "(PE_MAP, 176 inputs)");
  char bad[512];
  nc_test_path(bad, sizeof bad, dir, "bad.pb.gz");
  snprintf(args, sizeof args, "random --layers 2 --embedding 30 --heads 4 --dff 64 --seed 1 -o '%s'", bad);
  CHECK(run(out, OUT_SIZE, args) != 0);
  CHECK_STR_CONTAINS(out, "not divisible by 4 heads");
  CHECK(!nc_test_file_exists(bad));
  snprintf(args, sizeof args, "random --layers 2 --embedding 32 --heads 4 --dff 64 -o '%s'", bad);
  CHECK(run(out, OUT_SIZE, args) != 0);
  CHECK_STR_CONTAINS(out, "--seed is required");
}

/* Errors of each command: a message, exit 1 for a file that cannot be read
 * and 2 for a bad command line, and no output file either way. */
static void test_usage_errors(cf_test *t) {
  char args[1400], missing[512], o[512];
  nc_test_path(missing, sizeof missing, dir, "missing.pb.gz");
  nc_test_path(o, sizeof o, dir, "o.out");
  const struct {
    const char *fmt;
    int status;
    const char *want;
  } cases[] = {
      {"describe '%s'", 1, "cannot open"},
      {"describe", 2, "no network given"},
      {"export '%s' -o '%s'", 1, "cannot open"},
      {"export '%s' -o '%s' --naming tensorflow", 2,
       "bad value 'tensorflow' for --naming: expected ours or chessformer"},
      {"import '%s'", 2, "--output is required: --output NET"},
      {"import '%s' -o '%s' --encoding int4", 2, "bad value 'int4' for --encoding: expected linear16"},
      {"convert '%s' -o", 2, "-o needs a value: -o OUT"},
      {"convert '%s' -o '%s' --quiet=sometimes", 2, "bad value 'sometimes' for --quiet"},
      {"random --preset cf1b --seed 1 -o '%s'", 2, "bad value 'cf1b' for --preset: expected cf6m or cf240m"},
      {"random --layers x --embedding 8 --heads 2 --dff 8 --seed 1 -o '%s'", 2,
       "bad value 'x' for --layers: expected a whole number"},
      {"random --layers 1 --embedding 8 --heads 2 --dff 8 --seed 1 --policy-heads vanilla,sharp -o '%s'",
       2, "unknown head in 'sharp'"},
      {"random --layers 1 --embedding 8 --heads 2 --seed 1 -o '%s'", 2, "--dff is required"},
      {"random --preset cf240m --pos-table --seed 1 -o '%s'", 2,
       "--pos-table: only with the old embedding (not dense)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *first = strncmp(cases[i].fmt, "random", 6) == 0 ? o : missing;
    snprintf(args, sizeof args, cases[i].fmt, first, o);
    CHECK_INT_EQ(run(out, OUT_SIZE, args), cases[i].status);
    CHECK_STR_CONTAINS(out, cases[i].want);
    CHECK(!nc_test_file_exists(o));
  }
}


/* Runs a shell command line; its output (stdout + stderr) into out.
 * Returns the exit status, -1 if it did not exit. */
static int shell(const char *line) {
  FILE *p = popen(line, "r");
  if (!p) return -1;
  size_t n = fread(out, 1, OUT_SIZE - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What is not a regular file is refused at once (`timeout` turns a hang
 * into exit status 124: a failure); a gzip bomb stops at the automatic
 * limit within 1 GB of address space (not checked under AddressSanitizer,
 * which reserves far more); the limit flag decides and is named. */
static void test_hostile_files(cf_test *t) {
  char fifo[512], bomb[512], net[512], args[2400];
  static char cmd[8192];
  nc_test_path(fifo, sizeof fifo, dir, "fifo.pb.gz");
  nc_test_path(bomb, sizeof bomb, dir, "bomb.pb.gz");
  nc_test_path(net, sizeof net, dir, "f32.pb.gz");
  snprintf(cmd, sizeof cmd, "mkfifo '%s'", fifo);
  if (CHECK(system(cmd) == 0)) {
    const char *fmts[] = {"describe '%s'", "convert '%s' -o '%s.out'", "export '%s' -o '%s.st'"};
    for (int i = 0; i < 3; i++) {
      snprintf(args, sizeof args, fmts[i], fifo, fifo);
      snprintf(cmd, sizeof cmd, "timeout 20 '%s' %s 2>&1", exe, args);
      CHECK_INT_EQ(shell(cmd), 1);
      CHECK_STR_CONTAINS(out, "fifo.pb.gz: is a FIFO, not a regular file");
    }
  }
  snprintf(args, sizeof args, "describe '%s'", dir);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 1);
  CHECK_STR_CONTAINS(out, "is a directory, not a regular file");
  /* 1 MiB of zeros gzip'd (~1 KB), doubled 12 times: ~4 MB of gzip members
   * that inflate to 4 GiB. */
  snprintf(cmd, sizeof cmd,
           "f='%s'; head -c 1048576 /dev/zero | gzip -9 > \"$f\" && for i in 1 2 3 4 5 6 7 8 9 "
           "10 11 12; do cat \"$f\" \"$f\" > \"$f.2\" && mv \"$f.2\" \"$f\" || exit 1; done",
           bomb);
  if (CHECK(system(cmd) == 0)) {
#ifdef CF_TEST_ASAN
    const char *limit = "";
#else
    const char *limit = "ulimit -v 1000000; ";
#endif
    snprintf(cmd, sizeof cmd, "%stimeout 60 '%s' describe '%s' 2>&1", limit, exe, bomb);
    CHECK_INT_EQ(shell(cmd), 1);
    CHECK_STR_CONTAINS(out, "bomb.pb.gz: decompressed size exceeds the limit of ");
    CHECK_STR_CONTAINS(out, "(automatic: 16 times the ");
    CHECK_STR_CONTAINS(out, "a decompression bomb? Raise the limit with --weights-max-mb");
  }
  /* ~2.4 MB of float32 weights: over a 2 MiB limit, under 3. */
  snprintf(args, sizeof args,
           "random --layers 2 --embedding 128 --heads 4 --dff 256 --encoding float32 --seed 1 "
           "-o '%s'",
           net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "describe '%s' --weights-max-mb 2", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 1);
  CHECK_STR_CONTAINS(out, "exceeds the limit of 2097152 bytes (as set); raise the limit with "
                          "--weights-max-mb to load it");
  snprintf(args, sizeof args, "describe --weights-max-mb 3 '%s'", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "export '%s' --weights-max-mb 1 -o '%s.st'", net, net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 1);
  CHECK_STR_CONTAINS(out, "(as set); raise the limit with --weights-max-mb");
  /* A bad value is a usage error (2), in the parser's words. */
  snprintf(args, sizeof args, "describe '%s' --weights-max-mb lots", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 2);
  CHECK_STR_CONTAINS(out, "netconv describe: bad value 'lots' for --weights-max-mb: expected a "
                          "whole number from 0 to 1048576 (netconv describe --help)");
  snprintf(args, sizeof args, "convert '%s' -o '%s.out' --weights-max-mb=-1", net, net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 2);
  CHECK_STR_CONTAINS(out, "netconv convert: bad value '-1' for --weights-max-mb");
  snprintf(args, sizeof args, "export '%s' -o '%s.st' --weights-max-mb", net, net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 2);
  CHECK_STR_CONTAINS(out, "--weights-max-mb needs a value: --weights-max-mb MB");
  /* <built in> with a limit: the embedded net is no file to distrust. */
  CHECK_INT_EQ(run(out, OUT_SIZE, "describe '<built in>' --weights-max-mb 1"), 0);
}

/* A single-head network 6 file becomes the multi-head layout (format 7)
 * with the same values. */
static void test_convert_legacy_layout(cf_test *t) {
  char legacy[512], conv[512], st1[512], st2[512], cmd[1200], args[1200];
  nc_test_path(legacy, sizeof legacy, dir, "legacy.pb.gz");
  nc_test_path(conv, sizeof conv, dir, "legacy7.pb.gz");
  nc_test_path(st1, sizeof st1, dir, "legacy.safetensors");
  nc_test_path(st2, sizeof st2, dir, "legacy7.safetensors");
  snprintf(cmd, sizeof cmd, "'%s' '%s' tiny legacy=1 enc=float32 > /dev/null", gen_random_net, legacy);
  if (!CHECK(system(cmd) == 0)) return;
  snprintf(args, sizeof args, "describe --json '%s'", legacy);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "\"network_format\":\t6");
  snprintf(args, sizeof args, "convert '%s' -o '%s'", legacy, conv);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "largest absolute error 0");
  snprintf(args, sizeof args, "describe --json '%s'", conv);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "\"network_format\":\t7");
  CHECK_STR_CONTAINS(out, "\"policy_heads\":\t[\"vanilla\"]");
  /* Same tensors: the two exports are the same bytes. */
  snprintf(args, sizeof args, "export '%s' -o '%s'", legacy, st1);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "export '%s' -o '%s'", conv, st2);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK(nc_test_same_bytes(st1, st2));
}

/* --network-format 134 writes the Chessformer trainer's number for the
 * multi-head layout, in LINEAR16 (the only encoding its tools read), with the
 * tensors of a LINEAR16 format-7 conversion; converting back gives 7 and the
 * same tensors again. Other values, and 134 with another encoding, are a bad
 * command line (exit 2) and write nothing. */
static void test_convert_network_format(cf_test *t) {
  char net[512], n134[512], n7[512], back[512], bad[512], s134[512], s7[512], sback[512];
  char args[2400];
  nc_test_path(net, sizeof net, dir, "nf.pb.gz");
  nc_test_path(n134, sizeof n134, dir, "nf134.pb.gz");
  nc_test_path(n7, sizeof n7, dir, "nf7.pb.gz");
  nc_test_path(back, sizeof back, dir, "nfback.pb.gz");
  nc_test_path(bad, sizeof bad, dir, "nfbad.pb.gz");
  nc_test_path(s134, sizeof s134, dir, "nf134.safetensors");
  nc_test_path(s7, sizeof s7, dir, "nf7.safetensors");
  nc_test_path(sback, sizeof sback, dir, "nfback.safetensors");
  snprintf(args, sizeof args,
           "random --layers 2 --embedding 16 --heads 2 --dff 24 --rpe --smolgen "
           "--policy-heads vanilla,soft --value-heads winner,q --moves-left --encoding float32 "
           "--seed 5 -o '%s'", net);
  if (!CHECK_INT_EQ(run(out, OUT_SIZE, args), 0)) return;
  snprintf(args, sizeof args, "convert '%s' -o '%s' --network-format 134 --quiet", net, n134);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "network format 134, LINEAR16");
  snprintf(args, sizeof args, "describe --json '%s'", n134);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "\"network_format\":\t134");
  CHECK_STR_CONTAINS(out, "\"encodings\":\t{\n\t\t\"LINEAR16\":");
  CHECK(!strstr(out, "FLOAT32"));
  CHECK_STR_CONTAINS(out, "\"warnings\":\t[]");
  /* The same tensors as format 7 in LINEAR16. */
  snprintf(args, sizeof args, "convert '%s' -o '%s' --network-format 7 --encoding linear16 --quiet",
           net, n7);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "network format 7, LINEAR16");
  snprintf(args, sizeof args, "export '%s' -o '%s'", n134, s134);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  snprintf(args, sizeof args, "export '%s' -o '%s'", n7, s7);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK(nc_test_same_bytes(s134, s7));
  /* Back to 7 (the default), tensors kept exactly. */
  snprintf(args, sizeof args, "convert '%s' -o '%s'", n134, back);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "network format 7, encodings kept");
  CHECK_STR_CONTAINS(out, "largest absolute error 0");
  snprintf(args, sizeof args, "export '%s' -o '%s'", back, sback);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK(nc_test_same_bytes(s134, sback));
  const struct {
    const char *flags, *want;
  } refused[] = {
      {"--network-format 6", "bad value '6' for --network-format: expected 7 or 134"},
      {"--network-format 135", "bad value '135' for --network-format"},
      {"--network-format=", "--network-format"},
      {"--network-format 134 --encoding float32",
       "--network-format 134 writes LINEAR16 only (the Chessformer trainer's tools read no other "
       "encoding), not --encoding FLOAT32"},
      {"--encoding bfloat16 --network-format 134", "not --encoding BFLOAT16"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    snprintf(args, sizeof args, "convert '%s' -o '%s' %s", net, bad, refused[i].flags);
    CHECK_INT_EQ(run(out, OUT_SIZE, args), 2);
    CHECK_STR_CONTAINS(out, refused[i].want);
    CHECK(!nc_test_file_exists(bad));
  }
}

/* A field no schema declares (appended to the bare message: Net field 41)
 * is a warning of describe, in text and JSON, and of convert, which drops it. */
static void test_describe_warnings(cf_test *t) {
  char net[512], conv[512], args[2400];
  nc_test_path(net, sizeof net, dir, "extra.pb");
  nc_test_path(conv, sizeof conv, dir, "extra-conv.pb.gz");
  snprintf(args, sizeof args,
           "random --layers 1 --embedding 8 --heads 2 --dff 8 --no-gzip --seed 9 -o '%s'", net);
  if (!CHECK_INT_EQ(run(out, OUT_SIZE, args), 0)) return;
  FILE *f = fopen(net, "ab");
  if (!CHECK(f != NULL)) return;
  CHECK(fwrite("\xc8\x02\x01", 1, 3, f) == 3);
  fclose(f);
  const char *want = "ignored 1 unknown field in Net (field number 41)";
  snprintf(args, sizeof args, "describe '%s'", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "  warning     ignored 1 unknown field in Net (field number 41)");
  snprintf(args, sizeof args, "describe --json '%s'", net);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "\"warnings\":\t[\"ignored 1 unknown field in Net");
  snprintf(args, sizeof args, "convert '%s' -o '%s' --quiet", net, conv);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK_STR_CONTAINS(out, "netconv convert: warning: ");
  CHECK_STR_CONTAINS(out, want);
  snprintf(args, sizeof args, "describe '%s'", conv);
  CHECK_INT_EQ(run(out, OUT_SIZE, args), 0);
  CHECK(!strstr(out, "warning"));
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_netconv_cli NETCONV GEN_RANDOM_NET [tests]\n");
    return 2;
  }
  exe = argv[1];
  gen_random_net = argv[2];
  out = malloc(OUT_SIZE);
  if (!out || !nc_test_tmpdir(dir, sizeof dir)) return 1;
  static const cf_test_fn fns[] = {test_help, test_random_describe, test_usage_errors,
                                   test_hostile_files, test_convert_legacy_layout,
                                   test_convert_network_format, test_describe_warnings};
  static const char *names[] = {"test_help", "test_random_describe", "test_usage_errors",
                                "test_hostile_files", "test_convert_legacy_layout",
                                "test_convert_network_format", "test_describe_warnings"};
  int rc = cf_test_run(names, fns, 7, argc - 2, argv + 2);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(out);
  return rc;
}
