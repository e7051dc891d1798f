/*
 * plot.c: learning curves as an SVG line chart (plain text, no dependency).
 *
 * Two panels share the epoch axis: the training loss above, the validation (and training)
 * metric below, each with its own y axis, ticks at "nice" values (1, 2 or 5 times a power of 10),
 * grid lines, a legend, and the best epoch marked by a dashed vertical line.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "train_support.h"

typedef struct svg_t {
    char *buf;
    size_t len, cap;
    int failed;
} svg_t;

static void out(svg_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(svg_t *s, const char *fmt, ...) {
    if (s->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            s->failed = 1;
            return;
        }
        if ((size_t)n < s->cap - s->len) {
            s->len += (size_t)n;
            return;
        }
        size_t cap = 2 * s->cap + (size_t)n + 1;
        char *p = realloc(s->buf, cap);
        if (!p) {
            s->failed = 1;
            return;
        }
        s->buf = p;
        s->cap = cap;
    }
}

/* A tick step of 1, 2 or 5 times a power of ten giving about `want` intervals over span. */
static double nice_step(double span, int want) {
    double raw = span / want, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* Axis range [lo, hi] covering the values, expanded to whole steps. */
static void axis_range(double vmin, double vmax, double *lo, double *hi, double *step) {
    if (!isfinite(vmin) || !isfinite(vmax)) vmin = 0, vmax = 1;
    if (vmax - vmin < 1e-12) {
        double pad = fabs(vmin) > 1e-12 ? fabs(vmin) * 0.1 : 0.5;
        vmin -= pad;
        vmax += pad;
    }
    double pad = 0.04 * (vmax - vmin); /* no curve along a frame line */
    vmin -= pad;
    vmax += pad;
    *step = nice_step(vmax - vmin, 5);
    *lo = floor(vmin / *step) * *step;
    *hi = ceil(vmax / *step) * *step;
}

static void fmt_tick(char *buf, size_t n, double v, double step) {
    if (fabs(v) < step * 1e-9) v = 0;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 6) snprintf(buf, n, "%.2g", v);
    else snprintf(buf, n, "%.*f", dec, v);
}

typedef struct panel_t {
    double x0, y0, w, h;     /* plot area in pixels */
    double e0, e1;           /* epoch range */
    double lo, hi, step;     /* y range */
} panel_t;

static double px(const panel_t *p, double epoch) {
    return p->x0 + (p->e1 > p->e0 ? (epoch - p->e0) / (p->e1 - p->e0) : 0.5) * p->w;
}
static double py(const panel_t *p, double v) { return p->y0 + p->h - (v - p->lo) / (p->hi - p->lo) * p->h; }

/* Axes, grid, ticks and labels of a panel. */
static void draw_axes(svg_t *s, const panel_t *p, const char *ylabel, int xlabels) {
    char t[32];
    out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" stroke=\"#444\"/>\n", p->x0,
        p->y0, p->w, p->h);
    for (double v = p->lo; v <= p->hi + p->step * 1e-6; v += p->step) {
        double y = py(p, v);
        fmt_tick(t, sizeof t, v, p->step);
        out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", p->x0, y, p->x0 + p->w, y);
        out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", p->x0 - 5, y, p->x0, y);
        out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%s</text>\n", p->x0 - 8, y + 4, t);
    }
    double estep = nice_step(p->e1 - p->e0 > 0 ? p->e1 - p->e0 : 1, 8);
    if (estep < 1) estep = 1;
    for (double e = ceil(p->e0 / estep) * estep; e <= p->e1 + 1e-9; e += estep) {
        double x = px(p, e);
        out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x, p->y0, x, p->y0 + p->h);
        out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x, p->y0 + p->h, x,
            p->y0 + p->h + 5);
        if (xlabels)
            out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">%.0f</text>\n", x,
                p->y0 + p->h + 19, e);
    }
    out(s, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">%s</text>\n",
        p->x0 - 52, p->y0 + p->h / 2, ylabel);
}

/* One series as polylines (a NaN breaks the line), with a dot per epoch when there are few. */
static void draw_series(svg_t *s, const panel_t *p, const cli_history_t *h, size_t field, const char *color,
                        const char *dash) {
    int open = 0;
    for (int64_t i = 0; i < h->n; i++) {
        double v = *(const double *)((const char *)&h->items[i] + field);
        if (!isfinite(v)) {
            if (open) out(s, "\"/>\n");
            open = 0;
            continue;
        }
        if (!open) {
            out(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", color,
                dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
            open = 1;
        }
        out(s, "%.1f,%.1f ", px(p, (double)h->items[i].epoch), py(p, v));
    }
    if (open) out(s, "\"/>\n");
    if (h->n <= 60)
        for (int64_t i = 0; i < h->n; i++) {
            double v = *(const double *)((const char *)&h->items[i] + field);
            if (isfinite(v))
                out(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", px(p, (double)h->items[i].epoch),
                    py(p, v), color);
        }
}

/* The legend's backdrop, so that curves under it do not hide the labels. */
static void legend_box(svg_t *s, const panel_t *p, int rows) {
    out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"184\" height=\"%d\" fill=\"white\" fill-opacity=\"0.85\" "
        "stroke=\"#bbb\"/>\n", p->x0 + p->w - 196, p->y0 + 6, 18 * rows + 6);
}

static void legend(svg_t *s, const panel_t *p, int row, const char *color, const char *dash, const char *label) {
    double x = p->x0 + p->w - 190, y = p->y0 + 18 + 18 * row;
    out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n", x, y - 4,
        x + 26, y - 4, color, dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    out(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", x + 32, y, label);
}

static void series_range(const cli_history_t *h, size_t field, double *mn, double *mx) {
    for (int64_t i = 0; i < h->n; i++) {
        double v = *(const double *)((const char *)&h->items[i] + field);
        if (!isfinite(v)) continue;
        if (v < *mn) *mn = v;
        if (v > *mx) *mx = v;
    }
}

int cli_plot_curves(const char *path, const cli_history_t *h, const char *metric, char *err, size_t errn) {
    svg_t s = {NULL, 0, 0, 0};
    s.cap = 4096;
    s.buf = malloc(s.cap);
    if (!s.buf) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    const double W = 760, H = 560;
    panel_t top = {80, 50, W - 110, 200, 1, 1, 0, 1, 1}, bot = top;
    bot.y0 = top.y0 + top.h + 50;
    if (h->n > 0) {
        top.e0 = bot.e0 = (double)h->items[0].epoch;
        top.e1 = bot.e1 = (double)h->items[h->n - 1].epoch;
    }
    double mn = INFINITY, mx = -INFINITY;
    series_range(h, offsetof(cli_epoch_t, loss), &mn, &mx);
    axis_range(mn, mx, &top.lo, &top.hi, &top.step);
    const double mn_loss = mn;
    mn = INFINITY, mx = -INFINITY;
    series_range(h, offsetof(cli_epoch_t, val_metric), &mn, &mx);
    series_range(h, offsetof(cli_epoch_t, train_metric), &mn, &mx);
    axis_range(mn, mx, &bot.lo, &bot.hi, &bot.step);
    /* accuracy, F1 and ROC-AUC live in [0, 1]: no axis beyond; a loss (cross-entropy, squared or
     * Huber error), an rmse and an mae are never negative, so the padding that keeps a curve off
     * the frame must not open a negative range below one that nears 0 (a regression's loss from
     * 0.95 to 0.01 was drawn on an axis from -0.2) */
    if (top.lo < 0 && mn_loss >= 0) top.lo = 0;
    if (!strcmp(metric, "accuracy") || !strcmp(metric, "macro_f1") || !strcmp(metric, "roc_auc")) {
        if (bot.hi > 1) bot.hi = 1;
        if (bot.lo < 0) bot.lo = 0;
    } else if (!strcmp(metric, "loss") || !strcmp(metric, "rmse") || !strcmp(metric, "mae")) {
        if (bot.lo < 0) bot.lo = 0;
    }
    double vmn = INFINITY, vmx = -INFINITY, tmn = INFINITY, tmx = -INFINITY;
    series_range(h, offsetof(cli_epoch_t, val_metric), &vmn, &vmx);
    series_range(h, offsetof(cli_epoch_t, train_metric), &tmn, &tmx);
    int have_val = isfinite(vmn), have_train = isfinite(tmn);
    int64_t best = -1;
    for (int64_t i = 0; i < h->n; i++)
        if (h->items[i].improved) best = h->items[i].epoch;

    out(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out(&s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "font-family=\"sans-serif\">\n", W, H, W, H);
    out(&s, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    out(&s, "<text x=\"%.0f\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">attn-graph train: learning curves "
        "(%lld epochs)</text>\n", W / 2, (long long)h->n);
    char ylabel[96];
    draw_axes(&s, &top, "training loss", 0);
    snprintf(ylabel, sizeof ylabel, "%s", metric);
    draw_axes(&s, &bot, ylabel, 1);
    out(&s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">epoch</text>\n", bot.x0 + bot.w / 2,
        bot.y0 + bot.h + 40);
    if (best > 0)
        for (int k = 0; k < 2; k++) {
            const panel_t *p = k ? &bot : &top;
            out(&s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2ca02c\" stroke-dasharray=\"4 3\"/>\n",
                px(p, (double)best), p->y0, px(p, (double)best), p->y0 + p->h);
        }
    draw_series(&s, &top, h, offsetof(cli_epoch_t, loss), "#1f77b4", NULL);
    draw_series(&s, &bot, h, offsetof(cli_epoch_t, train_metric), "#7f7f7f", "6 4");
    draw_series(&s, &bot, h, offsetof(cli_epoch_t, val_metric), "#d62728", NULL);
    legend_box(&s, &top, best > 0 ? 2 : 1);
    if (have_val + have_train > 0) legend_box(&s, &bot, have_val + have_train);
    legend(&s, &top, 0, "#1f77b4", NULL, "training loss");
    if (best > 0) legend(&s, &top, 1, "#2ca02c", "4 3", "best epoch (kept)");
    char lab[128];
    snprintf(lab, sizeof lab, "validation %s", metric);
    if (have_val) legend(&s, &bot, 0, "#d62728", NULL, lab);
    snprintf(lab, sizeof lab, "training %s", metric);
    if (have_train) legend(&s, &bot, have_val, "#7f7f7f", "6 4", lab);
    if (!have_val && !have_train)
        out(&s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" fill=\"#777\">no validation "
            "part and no training metric</text>\n", bot.x0 + bot.w / 2, bot.y0 + bot.h / 2);
    out(&s, "</svg>\n");
    if (s.failed) {
        free(s.buf);
        snprintf(err, errn, "out of memory");
        return -1;
    }
    int rc = cli_write_atomic(path, s.buf, s.len, err, errn);
    free(s.buf);
    return rc;
}
