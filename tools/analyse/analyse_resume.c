/* analyse_resume.c: counting what an interrupted run wrote, and cutting
 * a torn tail (analyse_resume.h). One pass over the file, line by line. */
#include "tools/analyse/analyse_resume.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

cf_status analyse_resume_scan(const char *path, analyse_output_kind kind,
                              analyse_resume_point *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r+");
  if (!f) return cf_error_set(err, CF_ERR_IO, "--resume: cannot open '%s': %s", path, strerror(errno));
  char buf[65536];
  long long offset = 0, good_end = 0; /* end of the last complete record */
  long lines = 0;
  bool line_start = true, prev_blank = false, prev_tag = false, cur_tag = false;
  bool cur_blank = true;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    for (size_t i = 0; i < n; i++, offset++) {
      const char c = buf[i];
      if (line_start) {
        cur_tag = c == '[';
        cur_blank = true;
        line_start = false;
      }
      if (c != '\n') {
        if (c != '\r') cur_blank = false;
        continue;
      }
      /* a line ends here */
      line_start = true;
      lines++;
      if (kind == ANALYSE_OUT_PGN) {
        /* a game ends with the blank line after its movetext */
        if (cur_blank && !prev_blank && !prev_tag && lines > 1) {
          out->records++;
          good_end = offset + 1;
        }
        prev_blank = cur_blank;
        prev_tag = cur_tag && !cur_blank;
        continue;
      }
      if (kind == ANALYSE_OUT_CSV && lines == 1) out->has_header = true;
      else out->records++;
      good_end = offset + 1;
    }
  }
  if (ferror(f)) {
    fclose(f);
    return cf_error_set(err, CF_ERR_IO, "--resume: cannot read '%s'", path);
  }
  out->torn_bytes = (long)(offset - good_end);
  cf_status st = CF_OK;
  if (out->torn_bytes > 0 && (fflush(f) != 0 || ftruncate(fileno(f), (off_t)good_end) != 0))
    st = cf_error_set(err, CF_ERR_IO, "--resume: cannot cut the torn end of '%s': %s", path,
                      strerror(errno));
  fclose(f);
  return st;
}
