/* bench_svg.c: see bench_svg.h. Colour = backend, marker = agent (circle:
 * policy, square: value, triangle: search; any other agent a circle). Axes
 * span whole decades around the data so the points of different nets stay
 * comparable by eye. The legend has a row per backend and agent. */
#include "tools/bench/bench_svg.h"

#include <math.h>
#include <string.h>

#include "tools/bench/bench_units.h"

#define W 720
#define H 480
#define LEFT 90
#define RIGHT 200
#define TOP 70
#define BOTTOM 60

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

/* Text with the five XML specials escaped. */
static void xml_text(FILE *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '&': fputs("&amp;", out); break;
      case '"': fputs("&quot;", out); break;
      case '\'': fputs("&apos;", out); break;
      default:
        /* control characters are not allowed in XML 1.0 */
        if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') fputc(*s, out);
    }
  }
}

typedef struct axis {
  double lo, hi; /* log10 of the ends */
  int from, to;  /* pixel ends */
} axis;

static double place(const axis *a, double v) {
  double t = (log10(v) - a->lo) / (a->hi - a->lo);
  return a->from + t * (a->to - a->from);
}

/* Decades that hold [lo, hi] (positive values), at least one decade wide. */
static axis decades(double lo, double hi, int from, int to) {
  axis a = {floor(log10(lo)), ceil(log10(hi)), from, to};
  if (a.hi <= a.lo) a.hi = a.lo + 1;
  return a;
}

static bool plottable(const bench_agent_run *a) {
  return a->flops_per_move > 0 && a->move_seconds.median > 0 && isfinite(a->flops_per_move) &&
         isfinite(a->move_seconds.median);
}

static void marker(FILE *out, const char *agent, double x, double y, const char *colour) {
  if (strcmp(agent, "value") == 0)
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\"/>\n", x - 4.5,
            y - 4.5, colour);
  else if (strcmp(agent, "search") == 0)
    fprintf(out, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", x,
            y - 6, x + 6, y + 4.5, x - 6, y + 4.5, colour);
  else
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", x, y, colour);
}

static void grid(FILE *out, const axis *ax, const axis *ay) {
  char label[16];
  for (int e = (int)ax->lo; e <= (int)ax->hi; e++) {
    double x = place(ax, pow(10, e));
    bench_si(pow(10, e), label, sizeof label);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
            x, TOP, x, H - BOTTOM, x, H - BOTTOM + 18, label);
  }
  for (int e = (int)ay->lo; e <= (int)ay->hi; e++) {
    double y = place(ay, pow(10, e));
    bench_duration(pow(10, e), label, sizeof label);
    fprintf(out,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            LEFT, y, W - RIGHT, y, LEFT - 6, y + 4, label);
  }
}

void bench_svg_write(FILE *out, const bench_report *r) {
  double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
  for (int b = 0; b < r->n_backends; b++)
    for (int i = 0; !r->backends[b].skipped && i < r->backends[b].n_agents; i++) {
      const bench_agent_run *a = &r->backends[b].agents[i];
      if (!plottable(a)) continue;
      xlo = fmin(xlo, a->flops_per_move);
      xhi = fmax(xhi, a->flops_per_move);
      ylo = fmin(ylo, fmin(a->move_seconds.p10 > 0 ? a->move_seconds.p10 : INFINITY,
                           a->move_seconds.median));
      yhi = fmax(yhi, fmax(a->move_seconds.p90, a->move_seconds.median));
    }
  if (xhi == 0) { /* nothing measured: empty axes over a default range */
    xlo = 1e6, xhi = 1e9, ylo = 1e-4, yhi = 1e-1;
  }
  axis ax = decades(xlo, xhi, LEFT, W - RIGHT), ay = decades(ylo, yhi, H - BOTTOM, TOP);

  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%d\" y=\"24\" font-size=\"15\">Time per move vs FLOPs per move: ",
          W, H, W, H, LEFT);
  xml_text(out, r->net.source);
  fprintf(out, "</text>\n<text x=\"%d\" y=\"40\" fill=\"#555\">", LEFT);
  xml_text(out, r->net.arch);
  fprintf(out,
          "</text>\n<text x=\"%d\" y=\"56\" fill=\"#555\">%d positions; median with p10-p90 "
          "bars; backends side by side</text>\n",
          LEFT, r->suite_positions);
  grid(out, &ax, &ay);
  fprintf(out,
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">FLOPs per move (full count)</text>\n"
          "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">"
          "time per move</text>\n",
          LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM, (LEFT + W - RIGHT) / 2, H - 16,
          (TOP + H - BOTTOM) / 2);

  /* Every backend runs the same evaluations, so its points share an x: they
   * are spread sideways a few pixels by backend to stay visible. */
  int measured = 0, slot = 0, row = 0, rows = 0;
  for (int b = 0; b < r->n_backends; b++) {
    measured += !r->backends[b].skipped;
    for (int i = 0; !r->backends[b].skipped && i < r->backends[b].n_agents; i++)
      rows += plottable(&r->backends[b].agents[i]);
  }
  /* legend rows 18 px apart, closer when many backends x agents would run
   * past the bottom of the chart */
  const double pitch = rows > 0 && 18.0 * rows > H - TOP - 20 ? (double)(H - TOP - 20) / rows : 18;
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped) continue;
    const char *colour = colours[b % (int)(sizeof colours / sizeof colours[0])];
    double shift = 8.0 * (slot++ - (measured - 1) / 2.0);
    for (int i = 0; i < be->n_agents; i++) {
      const bench_agent_run *a = &be->agents[i];
      if (!plottable(a)) continue;
      double x = place(&ax, a->flops_per_move) + shift, y = place(&ay, a->move_seconds.median);
      if (a->move_seconds.p10 > 0 && a->move_seconds.p90 > 0)
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x,
                place(&ay, a->move_seconds.p10), x, place(&ay, a->move_seconds.p90), colour);
      marker(out, a->agent, x, y, colour);
      double ly = TOP + 10 + pitch * row++;
      marker(out, a->agent, W - RIGHT + 20, ly - 4, colour);
      fprintf(out, "<text x=\"%d\" y=\"%.1f\">", W - RIGHT + 32, ly);
      xml_text(out, be->name);
      fputs(" ", out);
      xml_text(out, a->agent);
      fputs("</text>\n", out);
    }
  }
  fputs("</svg>\n", out);
}
