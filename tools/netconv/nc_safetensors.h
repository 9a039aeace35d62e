/* nc_safetensors.h: the safetensors container (8-byte little-endian header
 * length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__":
 * {string: string}}, then the raw little-endian tensor bytes). Read: F32,
 * F16, BF16 tensors of up to 4 dimensions, decoded to float32. Write: F32. */
#ifndef NC_SAFETENSORS_H
#define NC_SAFETENSORS_H

#include <stdint.h>

#include "common/cf_status.h"

typedef enum nc_dtype { NC_DTYPE_F32, NC_DTYPE_F16, NC_DTYPE_BF16 } nc_dtype;

#define NC_ST_MAX_DIMS 4

typedef struct nc_st_tensor {
  char *name;
  nc_dtype dtype;
  int ndim;
  uint64_t shape[NC_ST_MAX_DIMS];
  uint64_t numel;
  const uint8_t *bytes; /* into the file's buffer */
} nc_st_tensor;

typedef struct nc_st_file {
  uint8_t *buf; /* the whole file */
  size_t size;
  nc_st_tensor *tensors;
  int count;
  char *metadata_config; /* __metadata__["cformer_config"], or NULL */
} nc_st_file;

/* Reads and validates path (header, dtypes, offsets inside the file and
 * matching the shapes). Unsupported dtypes are CF_ERR_UNSUPPORTED naming the
 * tensor and dtype. Free with nc_st_free (also after a failure). */
cf_status nc_st_read(const char *path, nc_st_file *out, cf_error *err);
cf_status nc_st_parse(uint8_t *buf, size_t size, const char *name, nc_st_file *out, cf_error *err);
void nc_st_free(nc_st_file *f);

/* Decodes t into dst (t->numel floats). */
void nc_st_decode(const nc_st_tensor *t, float *dst);

/* One tensor to write: F32, shape of ndim (1 or 2) dims. */
typedef struct nc_st_out {
  char name[128];
  int ndim;
  uint64_t shape[2];
  const float *data;
} nc_st_out;

/* Writes the tensors (in the given order) and, if config_json is not NULL,
 * __metadata__ {"format": "pt", "cformer_config": config_json}; atomically. */
cf_status nc_st_write(const char *path, const nc_st_out *t, int n, const char *config_json,
                      cf_error *err);

#endif /* NC_SAFETENSORS_H */
