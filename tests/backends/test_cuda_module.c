/* test_cuda_module.c: the CUDA backend is a dlopen'ed module, so CPU-only
 * processes never map a CUDA library. Checks that `cformer` needs no CUDA
 * library (the dynamic loader's own list, as ldd prints it), that this
 * process has none mapped after the registry probed every backend, that
 * `cuda` without a GPU or without its module fails with a message naming
 * the reason, and last that the module itself loads (so it is complete:
 * RTLD_NOW resolves every symbol) and brings libcudart with it.
 * Built only when the CUDA backend is; $CF_CFORMER_EXE is the cformer
 * binary. */
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/cf_backend.h"
#include "backends/cuda/cf_cuda_backend.h"
#include "tests/cf_test.h"

/* True if a mapping of this process's address space names `lib`. */
static bool mapped(const char *lib) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return false;
  char line[4096];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, lib) != NULL;
  fclose(f);
  return found;
}

static bool have_gpu_nodes(void) {
  glob_t g;
  bool nodes = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
  globfree(&g);
  return nodes;
}

/* The shared libraries `exe` would load, as the dynamic loader lists them
 * with LD_TRACE_LOADED_OBJECTS (what ldd does; main never runs). */
static bool loaded_objects(const char *exe, char *out, size_t n) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
    execl(exe, exe, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t used = 0;
  ssize_t r;
  while (used + 1 < n && (r = read(fd[0], out + used, n - 1 - used)) > 0) used += (size_t)r;
  out[used] = '\0';
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_cformer_needs_no_cuda_library(cf_test *t) {
  const char *exe = getenv("CF_CFORMER_EXE");
  if (!CHECK(exe && *exe)) return;
  static char libs[65536];
  if (!CHECK(loaded_objects(exe, libs, sizeof libs))) return;
  CHECK(strstr(libs, "libc.so") != NULL); /* the trace worked */
  CHECK(strstr(libs, "libcudart") == NULL);
  CHECK(strstr(libs, "libcublas") == NULL);
  CHECK(strstr(libs, "cformer_cuda") == NULL);
}

static void test_registry_lists_cuda_without_loading_it(cf_test *t) {
  CHECK(!mapped("libcudart"));
  const cf_backend_desc *d = cf_backend_find("cuda");
  if (!CHECK(d != NULL)) return;
  CHECK(d->probe != NULL);
  CHECK(d->priority > 0);
  /* Choosing the default probes every backend, cuda included. */
  const cf_backend_desc *def = cf_backend_default();
  CHECK(def != NULL);
  if (have_gpu_nodes()) return; /* a GPU machine may load it: that is its job */
  CHECK(def && strcmp(def->name, "cuda") != 0);
  CHECK(!cf_cuda_module_loaded());
  CHECK(!mapped("libcudart"));
  CHECK(!mapped("libcublas"));
  CHECK(!mapped("cformer_cuda"));
}

static void test_cuda_without_gpu_fails_cleanly(cf_test *t) {
  if (have_gpu_nodes()) {
    CF_SKIP("this machine has an NVIDIA device node; net/parity-cuda (gpu suite) runs cuda here");
    return;
  }
  const cf_backend_desc *d = cf_backend_find("cuda");
  if (!CHECK(d != NULL)) return;
  CHECK(!d->probe());
  CHECK_STR_CONTAINS(d->unavailable, "needs an NVIDIA GPU");
  cf_backend_config cfg = {.max_batch = 4, .options = NULL};
  cf_backend *be = NULL;
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_create("cuda", &cfg, &be, &err), CF_ERR_BACKEND);
  CHECK(be == NULL);
  CHECK_STR_CONTAINS(err.msg, "backend 'cuda' is not available on this machine");
  CHECK_STR_CONTAINS(err.msg, "/dev/nvidia");
  CHECK(!mapped("libcudart"));
}

static void test_missing_or_broken_module_is_named(cf_test *t) {
  const cf_backend_desc *d = cf_backend_find("cuda");
  if (!CHECK(d != NULL)) return;
  if (cf_cuda_module_loaded()) { /* only if a test before this one loaded it */
    CF_SKIP("the CUDA module is already loaded in this process");
    return;
  }
  cf_error err = {0};
  setenv("CF_CUDA_MODULE", "/nonexistent/dir/libcformer_cuda.so", 1);
  CHECK(!d->probe());
  CHECK_STR_CONTAINS(d->unavailable, "/nonexistent/dir/libcformer_cuda.so");
  CHECK_STR_CONTAINS(d->unavailable, "not found");
  CHECK_INT_EQ(cf_cuda_module_load(&err), CF_ERR_BACKEND);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/dir/libcformer_cuda.so");

  /* A file that is not a shared object: dlerror's reason is passed on. */
  char path[] = "/tmp/cf_cuda_module_XXXXXX";
  int fd = mkstemp(path);
  if (CHECK(fd >= 0)) {
    CHECK(write(fd, "not an ELF file\n", 16) == 16);
    close(fd);
    setenv("CF_CUDA_MODULE", path, 1);
    CHECK_INT_EQ(cf_cuda_module_load(&err), CF_ERR_BACKEND);
    CHECK_STR_CONTAINS(err.msg, "cannot load the CUDA module");
    CHECK_STR_CONTAINS(err.msg, path);
    unlink(path);
  }
  unsetenv("CF_CUDA_MODULE");
  CHECK(!cf_cuda_module_loaded());
  CHECK(!mapped("libcudart"));
}

/* Last: maps the CUDA libraries into this process. */
static void test_module_loads_and_brings_cuda(cf_test *t) {
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_cuda_module_load(&err), CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK(cf_cuda_module_loaded());
  CHECK(mapped("libcformer_cuda.so"));
  CHECK(mapped("libcudart"));
  CHECK_INT_EQ(cf_cuda_module_load(&err), CF_OK); /* once is enough; again is harmless */
  if (have_gpu_nodes()) return;
  const cf_backend_desc *d = cf_backend_find("cuda");
  CHECK(d && !d->probe()); /* loaded, but still no GPU */
  cf_backend_config cfg = {.max_batch = 4, .options = NULL};
  cf_backend *be = NULL;
  CHECK_INT_EQ(cf_backend_create("cuda", &cfg, &be, &err), CF_ERR_BACKEND);
  CHECK(be == NULL);
}

/* The missing and broken modules come before anything chooses the default
 * backend: on a GPU machine that loads the module, and a loaded module
 * stays loaded. */
CF_TEST_MAIN(test_cformer_needs_no_cuda_library, test_missing_or_broken_module_is_named,
             test_registry_lists_cuda_without_loading_it, test_cuda_without_gpu_fails_cleanly,
             test_module_loads_and_brings_cuda)
