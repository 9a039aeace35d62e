/* nc_import.h: building a cf_weights from trainer tensors (the library part
 * of `netconv import`, so tests can call it without files). */
#ifndef NC_IMPORT_H
#define NC_IMPORT_H

#include "tools/netconv/nc_config.h"
#include "tools/netconv/nc_safetensors.h"

/* Places every tensor of f by name, takes format, heads and activations from
 * cfg, infers and validates the architecture and checks each matrix's shape
 * and cfg's optional checks against it. The result is freed with
 * cf_weights_free; on failure *out is NULL and err names the tensor or key. */
cf_status nc_import_weights(const nc_st_file *f, const nc_config *cfg, cf_weights **out,
                            cf_error *err);

#endif /* NC_IMPORT_H */
