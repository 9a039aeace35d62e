/* nc_export_onnx.h: `netconv export NET --onnx OUT.onnx` (nc_export_onnx.c). */
#ifndef NC_EXPORT_ONNX_H
#define NC_EXPORT_ONNX_H

#include "weights/cf_weights.h"

/* Writes w as an ONNX model to out with the given precision ("float32",
 * "float16", "bfloat16"); net_name goes into the model's doc string. Prints
 * its errors ("netconv export: ...") and returns the exit status (0 or 1);
 * out is replaced atomically, and left untouched on any failure. */
int nc_export_onnx(cf_weights *w, const char *net_name, const char *out, const char *precision);

#endif /* NC_EXPORT_ONNX_H */
