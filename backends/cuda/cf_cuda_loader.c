/* cf_cuda_loader.c: the `cuda` registry entry, linked into every binary
 * without linking CUDA. The backend itself lives in libcformer_cuda.so
 * (cf_cuda_module.h); the first probe or create finds and dlopens it, and
 * copies its op table into the table this entry points at. Until then the
 * entry costs a stat and a glob. */
#define _GNU_SOURCE /* dladdr: where the code that runs this was loaded from */
#include "backends/cuda/cf_cuda_backend.h"

#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/cuda/cf_cuda_module.h"

#ifndef CF_CUDA_MODULE_BUILD_DIR
#define CF_CUDA_MODULE_BUILD_DIR ""
#endif
#ifndef CF_CUDA_MODULE_INSTALL_DIR
#define CF_CUDA_MODULE_INSTALL_DIR ""
#endif
/* The module's folder relative to the install prefix (libdir/cformer). */
#ifndef CF_CUDA_MODULE_PREFIX_REL
#define CF_CUDA_MODULE_PREFIX_REL ""
#endif

#define N_DIRS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const cf_backend_desc *module_desc; /* set once the module is loaded */
static cf_backend_iface module_iface;      /* its ops; all NULL before */

/* The reason the last probe failed; `unavailable` points here. */
static char why_unavailable[CF_ERROR_MSG_MAX] =
    "needs an NVIDIA GPU (no /dev/nvidia* device, or cudaGetDeviceCount() found none)";

static bool is_file(const char *path) {
  struct stat s;
  return stat(path, &s) == 0 && S_ISREG(s.st_mode);
}

/* The module's path in `path`; false (with the places looked at in
 * `looked`) if it is nowhere. */
static bool find_module(char *path, size_t n, char *looked, size_t n_looked) {
  const char *env = getenv("CF_CUDA_MODULE");
  if (env && *env) {
    int len = snprintf(path, n, "%s", env);
    if (snprintf(looked, n_looked, "%s (from CF_CUDA_MODULE)", env) < 0) looked[0] = '\0';
    return len > 0 && (size_t)len < n && is_file(path);
  }
  /* In order: beside the binary; the installed layout relative to the
   * binary (<prefix>/bin -> <prefix>/<libdir>/cformer) and to the library
   * that holds this code (libcformer.so in <prefix>/<libdir> -> ./cformer),
   * so a moved install still finds its own module; the build tree; the
   * configured install folder. */
  char dirs[N_DIRS][PATH_MAX] = {"", "", "", CF_CUDA_MODULE_BUILD_DIR, CF_CUDA_MODULE_INSTALL_DIR};
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  char *slash = len > 0 ? (exe[len] = '\0', strrchr(exe, '/')) : NULL;
  if (slash) {
    *slash = '\0';
    snprintf(dirs[0], PATH_MAX, "%s", exe);
    if (CF_CUDA_MODULE_PREFIX_REL[0])
      snprintf(dirs[1], PATH_MAX, "%.*s/../%s", PATH_MAX / 2, exe, CF_CUDA_MODULE_PREFIX_REL);
  }
  Dl_info self;
  if (dladdr((void *)&module_iface, &self) && self.dli_fname) {
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", self.dli_fname);
    char *s = strrchr(lib, '/');
    if (s) {
      *s = '\0';
      snprintf(dirs[2], PATH_MAX, "%.*s/cformer", PATH_MAX / 2, lib);
    }
  }
  looked[0] = '\0';
  for (int i = 0; i < N_DIRS; i++) {
    if (!dirs[i][0]) continue;
    int w = snprintf(path, n, "%s/%s", dirs[i], CF_CUDA_MODULE_FILE);
    if (w > 0 && (size_t)w < n && is_file(path)) return true;
    size_t used = strlen(looked);
    if (snprintf(looked + used, n_looked - used, "%s%s", used ? ", " : "", dirs[i]) < 0)
      looked[used] = '\0';
  }
  return false;
}

/* Called with the lock held. */
static cf_status load_locked(cf_error *err) {
  if (module_desc) return CF_OK;
  char path[PATH_MAX + 64], looked[N_DIRS * PATH_MAX + 64];
  if (!find_module(path, sizeof path, looked, sizeof looked))
    return cf_error_set(err, CF_ERR_BACKEND, "the CUDA module %s was not found (looked in %s)",
                        CF_CUDA_MODULE_FILE, looked);
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    /* dlerror names the library that failed: the module or, when
     * libcudart / libcublas are missing, that library. */
    const char *e = dlerror();
    return cf_error_set(err, CF_ERR_BACKEND, "cannot load the CUDA module %s: %s", path,
                        e ? e : "unknown dlopen error");
  }
  cf_cuda_module_entry_fn entry;
  void *sym = dlsym(handle, CF_CUDA_MODULE_ENTRY);
  memcpy(&entry, &sym, sizeof entry); /* object to function pointer, without a cast warning */
  const cf_backend_desc *d = entry ? entry(sizeof(cf_backend_iface), sizeof(cf_backend_desc))
                                   : NULL;
  if (!d || !d->iface) {
    dlclose(handle);
    return cf_error_set(err, CF_ERR_BACKEND,
                        "the CUDA module %s does not match this binary (%s); rebuild it", path,
                        entry ? "different struct layouts" : "no " CF_CUDA_MODULE_ENTRY);
  }
  /* The handle stays open for the process's lifetime: instances and
   * weights point into the module. */
  module_iface = *d->iface;
  module_desc = d;
  return CF_OK;
}

cf_status cf_cuda_module_load(cf_error *err) {
  pthread_mutex_lock(&lock);
  cf_status st = load_locked(err);
  pthread_mutex_unlock(&lock);
  return st;
}

bool cf_cuda_module_loaded(void) {
  pthread_mutex_lock(&lock);
  bool loaded = module_desc != NULL;
  pthread_mutex_unlock(&lock);
  return loaded;
}

/* Cheapest check first: a machine without GPU device nodes never loads the
 * module (nor, through it, the CUDA runtime). */
static bool cuda_probe(void) {
  pthread_mutex_lock(&lock);
  cf_error err = {0};
  char path[PATH_MAX + 64], looked[N_DIRS * PATH_MAX + 64];
  glob_t g;
  bool nodes = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
  globfree(&g);
  if (!module_desc && !find_module(path, sizeof path, looked, sizeof looked))
    cf_error_set(&err, CF_ERR_BACKEND, "the CUDA module %s was not found (looked in %s)",
                 CF_CUDA_MODULE_FILE, looked);
  else if (!nodes)
    cf_error_set(&err, CF_ERR_BACKEND, "needs an NVIDIA GPU (no /dev/nvidia* device)");
  else if (load_locked(&err) == CF_OK && module_desc->probe && !module_desc->probe())
    cf_error_set(&err, CF_ERR_BACKEND, "%s",
                 module_desc->unavailable ? module_desc->unavailable : "the CUDA probe failed");
  bool ok = err.status == CF_OK;
  if (!ok) memcpy(why_unavailable, err.msg, sizeof why_unavailable);
  pthread_mutex_unlock(&lock);
  return ok;
}

const cf_backend_desc cf_backend_cuda_desc = {
    .name = "cuda",
    .summary = "NVIDIA GPU, float32: cuBLAS + CUDA kernels, loaded from " CF_CUDA_MODULE_FILE
               " (options: device=N)",
    .priority = 40,
    .features = CF_CUDA_FEATURES,
    .activations = CF_CUDA_ACTIVATIONS,
    .probe = cuda_probe,
    .unavailable = why_unavailable,
    .iface = &module_iface,
    .default_minibatch = 256,
    .device = true,
};
