/* nc_safetensors.c: safetensors reader and writer (nc_safetensors.h); the
 * JSON header goes through cJSON. */
#include "tools/netconv/nc_safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/netconv/nc_common.h"

/* The format caps the header at 100 MB; so do we (a bound against hostile files). */
#define NC_ST_MAX_HEADER (100u << 20)

void nc_st_free(nc_st_file *f) {
  if (!f) return;
  for (int i = 0; i < f->count; i++) free(f->tensors[i].name);
  free(f->tensors);
  free(f->metadata_config);
  free(f->buf);
  memset(f, 0, sizeof *f);
}

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static bool parse_dtype(const char *s, nc_dtype *d, size_t *bytes) {
  if (strcmp(s, "F32") == 0) *d = NC_DTYPE_F32, *bytes = 4;
  else if (strcmp(s, "F16") == 0) *d = NC_DTYPE_F16, *bytes = 2;
  else if (strcmp(s, "BF16") == 0) *d = NC_DTYPE_BF16, *bytes = 2;
  else return false;
  return true;
}

static cf_status parse_tensor(const cJSON *item, const uint8_t *data, uint64_t data_size,
                              const char *file, nc_st_tensor *t, cf_error *err) {
  const char *name = item->string;
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(item, "dtype");
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
  const cJSON *offs = cJSON_GetObjectItemCaseSensitive(item, "data_offsets");
  if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs) ||
      cJSON_GetArraySize(offs) != 2)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "%s: tensor '%s': header entry needs dtype, shape and data_offsets", file,
                        name);
  size_t esize;
  if (!parse_dtype(dtype->valuestring, &t->dtype, &esize))
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "%s: tensor '%s': unsupported dtype %s (F32, F16 and BF16 are supported)",
                        file, name, dtype->valuestring);
  t->ndim = cJSON_GetArraySize(shape);
  if (t->ndim > NC_ST_MAX_DIMS)
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "%s: tensor '%s': %d dimensions (at most %d)",
                        file, name, t->ndim, NC_ST_MAX_DIMS);
  t->numel = 1;
  for (int i = 0; i < t->ndim; i++) {
    const cJSON *dim = cJSON_GetArrayItem(shape, i);
    if (!cJSON_IsNumber(dim) || dim->valuedouble < 0 || dim->valuedouble > 4e9)
      return cf_error_set(err, CF_ERR_FORMAT, "%s: tensor '%s': bad shape", file, name);
    t->shape[i] = (uint64_t)dim->valuedouble;
    if (t->shape[i] && t->numel > UINT64_MAX / 8 / t->shape[i])
      return cf_error_set(err, CF_ERR_FORMAT, "%s: tensor '%s': shape too large", file, name);
    t->numel *= t->shape[i];
  }
  const cJSON *b = cJSON_GetArrayItem(offs, 0), *e = cJSON_GetArrayItem(offs, 1);
  if (!cJSON_IsNumber(b) || !cJSON_IsNumber(e) || b->valuedouble < 0 ||
      e->valuedouble < b->valuedouble || e->valuedouble > (double)data_size)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "%s: tensor '%s': data_offsets outside the file's %llu data bytes", file,
                        name, (unsigned long long)data_size);
  uint64_t begin = (uint64_t)b->valuedouble, end = (uint64_t)e->valuedouble;
  if (end - begin != t->numel * esize)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "%s: tensor '%s': %llu data bytes for %llu %s values", file, name,
                        (unsigned long long)(end - begin), (unsigned long long)t->numel,
                        dtype->valuestring);
  t->bytes = data + begin;
  t->name = strdup(name);
  if (!t->name) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", file);
  return CF_OK;
}

cf_status nc_st_parse(uint8_t *buf, size_t size, const char *file, nc_st_file *out,
                      cf_error *err) {
  memset(out, 0, sizeof *out);
  out->buf = buf;
  out->size = size;
  if (size < 8) return cf_error_set(err, CF_ERR_FORMAT, "%s: not a safetensors file (too short)", file);
  uint64_t hlen = le64(buf);
  if (hlen > NC_ST_MAX_HEADER || hlen > size - 8)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "%s: not a safetensors file (header length %llu, file %zu bytes)", file,
                        (unsigned long long)hlen, size);
  cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, (size_t)hlen);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return cf_error_set(err, CF_ERR_FORMAT, "%s: safetensors header is not a JSON object", file);
  }
  int n = cJSON_GetArraySize(root);
  out->tensors = calloc((size_t)(n > 0 ? n : 1), sizeof *out->tensors);
  if (!out->tensors) {
    cJSON_Delete(root);
    return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", file);
  }
  const uint8_t *data = buf + 8 + hlen;
  const uint64_t data_size = size - 8 - hlen;
  cf_status st = CF_OK;
  const cJSON *item;
  cJSON_ArrayForEach(item, root) {
    if (strcmp(item->string, "__metadata__") == 0) {
      const cJSON *c = cJSON_GetObjectItemCaseSensitive(item, "cformer_config");
      if (cJSON_IsString(c) && !(out->metadata_config = strdup(c->valuestring))) {
        st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
        break;
      }
      continue;
    }
    if (!cJSON_IsObject(item)) {
      st = cf_error_set(err, CF_ERR_FORMAT, "%s: header entry '%s' is not an object", file,
                        item->string);
      break;
    }
    st = parse_tensor(item, data, data_size, file, &out->tensors[out->count], err);
    if (st != CF_OK) break;
    out->count++;
  }
  cJSON_Delete(root);
  return st;
}

cf_status nc_st_read(const char *path, nc_st_file *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  uint8_t *buf = NULL;
  size_t size = 0;
  cf_status st = CF_OK;
  if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < 0) {
    st = cf_error_set(err, CF_ERR_IO, "%s: cannot seek", path);
  } else {
    size = (size_t)ftell(f);
    rewind(f);
    buf = malloc(size ? size : 1);
    if (!buf) st = cf_error_set(err, CF_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, size);
  }
  nc_progress prog;
  nc_progress_start(&prog, "reading", st == CF_OK ? size : 0);
  for (size_t done = 0; st == CF_OK && done < size;) {
    size_t chunk = size - done < (8u << 20) ? size - done : (8u << 20);
    if (fread(buf + done, 1, chunk, f) != chunk)
      st = cf_error_set(err, CF_ERR_IO, "%s: read failed", path);
    done += chunk;
    nc_progress_update(&prog, done);
  }
  nc_progress_end(&prog);
  fclose(f);
  if (st != CF_OK) {
    free(buf);
    return st;
  }
  return nc_st_parse(buf, size, path, out, err);
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: normalise */
      exp = 127 - 15 + 1;
      while (!(man & 1024)) {
        man <<= 1;
        exp--;
      }
      bits = sign | exp << 23 | (man & 1023) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | man << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

void nc_st_decode(const nc_st_tensor *t, float *dst) {
  const uint8_t *p = t->bytes;
  for (uint64_t i = 0; i < t->numel; i++) {
    uint32_t bits;
    switch (t->dtype) {
      case NC_DTYPE_F32:
        bits = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
        memcpy(&dst[i], &bits, 4);
        break;
      case NC_DTYPE_F16:
        dst[i] = half_to_float((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
        break;
      case NC_DTYPE_BF16:
        bits = ((uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8) << 16;
        memcpy(&dst[i], &bits, 4);
        break;
    }
  }
}

cf_status nc_st_write(const char *path, const nc_st_out *t, int n, const char *config_json,
                      cf_error *err) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", path);
  if (config_json) {
    cJSON *meta = cJSON_AddObjectToObject(root, "__metadata__");
    cJSON_AddStringToObject(meta, "format", "pt");
    cJSON_AddStringToObject(meta, "cformer_config", config_json);
  }
  uint64_t offset = 0;
  for (int i = 0; i < n; i++) {
    cJSON *e = cJSON_AddObjectToObject(root, t[i].name);
    cJSON_AddStringToObject(e, "dtype", "F32");
    cJSON *shape = cJSON_AddArrayToObject(e, "shape");
    uint64_t numel = 1;
    for (int d = 0; d < t[i].ndim; d++) {
      cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t[i].shape[d]));
      numel *= t[i].shape[d];
    }
    cJSON *offs = cJSON_AddArrayToObject(e, "data_offsets");
    cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset));
    offset += numel * 4;
    cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset));
  }
  char *header = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  if (!header) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", path);
  size_t hlen = strlen(header);
  size_t padded = (hlen + 7) / 8 * 8; /* the data starts 8-byte aligned */
  size_t total = 8 + padded + (size_t)offset;
  uint8_t *buf = malloc(total);
  if (!buf) {
    free(header);
    return cf_error_set(err, CF_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, total);
  }
  for (int i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)padded >> (8 * i));
  memcpy(buf + 8, header, hlen);
  memset(buf + 8 + hlen, ' ', padded - hlen);
  free(header);
  uint8_t *p = buf + 8 + padded;
  for (int i = 0; i < n; i++) {
    uint64_t numel = 1;
    for (int d = 0; d < t[i].ndim; d++) numel *= t[i].shape[d];
    for (uint64_t j = 0; j < numel; j++) {
      uint32_t bits;
      memcpy(&bits, &t[i].data[j], 4);
      for (int k = 0; k < 4; k++) *p++ = (uint8_t)(bits >> (8 * k));
    }
  }
  cf_status st = nc_write_file_atomic(path, buf, total, err);
  free(buf);
  return st;
}
