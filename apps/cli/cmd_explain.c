/*
 * cmd_explain.c: `attn-graph explain`, a model's attention weights written back onto the graph
 * (edge and vertex attributes) and drawn as SVG.
 *
 * Attention runs per destination: entry (i <- j) is how much node i attends to source j. An
 * undirected edge {u, v} (igraph stores it as from u, to v, with u >= v) has two entries, written as
 * attnL<L>H<H>Fwd (v attends to u: the message from -> to) and ...Rev (u attends to v); a
 * directed edge u -> v has one, written as attnL<L>H<H>. Self-loops added by the attention mask
 * have no igraph edge: their weights are the vertex attributes selfAttnL<L>H<H>; with a virtual
 * node, the token's weights over the vertices are tokenAttnL<L>H<H> and each vertex's weight on
 * the token attnToTokenL<L>H<H>. The names are
 * letters and digits only because igraph's GML writer drops any other byte of a key: GML and
 * GraphML outputs carry the same names. Fwd and Rev are named by vertex ids, not by how a file
 * writes the edge: igraph's GML writer puts an undirected edge's higher id first, its GraphML
 * writer the lower, and igraph's readers store the higher as `from` whatever the file says.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "learn.h"
#include "predict.h"

static const char *const CMD = "explain";

static void explain_usage(FILE *out) {
    fprintf(out,
        "usage: attn-graph explain [--model MODEL.safetensors] GRAPH -o OUT.gml|OUT.graphml [--svg FILE.svg]\n"
        "                          [--layer L] [--format F] [--directed] [--vertices N] [--node-table FILE]\n"
        "                          [--table-id-attr ATTR] [--threads N] [--max-memory SIZE]\n"
        "                          [--smooth ALPHA [--correct ALPHA] | --no-smooth]\n"
        "\n"
        "Runs the model on GRAPH and writes the graph (GML or GraphML by the extension of OUT) with the\n"
        "attention weights of every layer L (0-based) and head H:\n"
        "  undirected graphs: edge attributes attnL<L>H<H>Fwd (the edge's end with the lower vertex id\n"
        "                     attending to the higher) and attnL<L>H<H>Rev (the higher to the lower);\n"
        "  directed graphs:   edge attribute attnL<L>H<H> (the target attending to the source);\n"
        "  self-loops added by the mask: vertex attribute selfAttnL<L>H<H> (0 where there is none);\n"
        "  models with a virtual node: vertex attribute tokenAttnL<L>H<H>, the graph token attending\n"
        "                     to the vertex (what the token readout looks at; sums to 1 over vertices\n"
        "                     with the token's own self-loop), and attnToTokenL<L>H<H>, the vertex\n"
        "                     attending to the token.\n"
        "With softmax attention each vertex's weights (Fwd of its edges to higher ids, Rev of those to\n"
        "lower ids, its selfAttn, its attnToToken) sum to 1. The prediction is added too: vertex\n"
        "attribute 'pred' (node models: the class name, or the value) or graph attribute 'pred' (graph\n"
        "models).\n"
        "Without --model the shipped tox21.safetensors is used (see 'attn-graph classify --help').\n"
        "Of an ensemble (train --ensemble) the weights are its first member's; 'pred' is the ensemble's.\n"
        "\n"
        "  --model FILE         a model saved by 'attn-graph train' (any task)\n"
        "  -o, --output OUT     output graph (.gml or .graphml), required\n"
        "  --svg FILE           also draw the graph: edge width and colour by attention (mean over the\n"
        "                       heads of --layer, both directions averaged), node colour by predicted\n"
        "                       class or value (node models; a value's colour bar gives its range) or by\n"
        "                       the attention the node receives (graph models)\n"
        "  --layer L            the layer drawn (0-based; default, or -1, the last)\n"
        "  --format F           input format (auto: by extension; for '-' by its text)\n"
        "  --directed           read edge list, NCOL, LGL, DIMACS and DL files as directed\n"
        "  --vertices N         an edge list's vertex count (default: its largest id + 1), as in training\n"
        "  --node-table FILE    the node feature table, when the model was trained with one\n"
        "  --table-id-attr ATTR vertex attribute matched to the table's ids (default 'id')\n"
        "  --threads N          OpenMP / BLAS threads\n"
        "  --max-memory SIZE    the most reading the graph may take (e.g. 4G; default: the available memory)\n"
        "  --smooth ALPHA       node classification: 'pred' and the drawing's classes after Correct and\n"
        "  [--correct ALPHA]    Smooth, as 'attn-graph label' (a model trained with --smooth applies its\n"
        "  --no-smooth          own weights unless --no-smooth); attention weights are the model's\n"
        "  --help               this message\n"
        "\n"
        "Exit codes: 0 success, 1 unexpected failure (cannot write), 2 bad command line, 3 bad input\n"
        "file (or text GraphML cannot hold, a control character or a byte that is not UTF-8: write GML),\n"
        "4 bad or mismatched model file.\n");
}

/* Attention of one layer mapped to the graph. */
typedef struct layer_attn_t {
    int64_t H;
    float *fwd;   /* (E x H) to-vertex attending to from-vertex (directed: the only direction) */
    float *rev;   /* (E x H) from-vertex attending to to-vertex (undirected only) */
    float *self;  /* (N x H) added self-loop weights, 0 where none */
    float *token; /* (N x H) the graph token attending to each vertex (virtual-node models), else NULL */
    float *to_token; /* (N x H) each vertex attending to the graph token (virtual-node models), else NULL */
} layer_attn_t;

static void layer_attn_free(layer_attn_t *la) {
    free(la->fwd);
    free(la->rev);
    free(la->self);
    free(la->token);
    free(la->to_token);
}

/* Reads layer l's weights after the forward pass and maps mask entries to igraph edges.
 * Entries without an igraph edge other than added self-loops and the graph token (k-hop and full
 * mask pairs) are not written. With a virtual node, row N of the mask is the token: its weights
 * over the vertices become la->token (what the graph-level readout looks at), and each vertex's
 * weight on the token (source N) la->to_token, so that a vertex's written weights still sum to 1. */
static int map_layer(ag_model_t *model, ag_batch_t *batch, int l, const igraph_t *ig, layer_attn_t *la) {
    int64_t H = ag_model_attention_heads(model, l), N = igraph_vcount(ig), E = igraph_ecount(ig);
    memset(la, 0, sizeof *la);
    la->H = H;
    const ag_mask_t *mask = NULL;
    ag_error_t rc = ag_model_attention_weights(model, batch, l, &mask, NULL);
    if (rc) return ag_cli_fail(rc);
    int has_token = ag_model_config(model)->virtual_node && mask->n_nodes == N + 1;
    float *alpha = malloc((size_t)(mask->n_entries > 0 ? mask->n_entries : 1) * (size_t)H * sizeof(float)); /* (M x H) */
    la->fwd = calloc((size_t)(E > 0 ? E : 1) * (size_t)H, sizeof(float));
    la->rev = calloc((size_t)(E > 0 ? E : 1) * (size_t)H, sizeof(float));
    la->self = calloc((size_t)(N > 0 ? N : 1) * (size_t)H, sizeof(float));
    if (has_token) {
        la->token = calloc((size_t)(N > 0 ? N : 1) * (size_t)H, sizeof(float));
        la->to_token = calloc((size_t)(N > 0 ? N : 1) * (size_t)H, sizeof(float));
    }
    if (!alpha || !la->fwd || !la->rev || !la->self || (has_token && (!la->token || !la->to_token))) {
        free(alpha);
        layer_attn_free(la);
        fprintf(stderr, "attn-graph: explain: out of memory\n");
        return AG_EXIT_FAILURE;
    }
    rc = ag_model_attention_weights(model, batch, l, &mask, alpha);
    if (rc) {
        free(alpha);
        layer_attn_free(la);
        return ag_cli_fail(rc);
    }
    for (int64_t i = 0; i < mask->n_nodes && i < N; i++)
        for (int64_t k = mask->indptr[i]; k < mask->indptr[i + 1]; k++) {
            int64_t j = mask->src[k], e = mask->edge[k];
            float *dst = NULL;
            if (e < 0) {
                if (j == i) dst = la->self + i * H;
                else if (has_token && j == N) dst = la->to_token + i * H;
            } else if (IGRAPH_TO(ig, e) == i && IGRAPH_FROM(ig, e) == j) {
                dst = la->fwd + e * H;
                if (i == j) memcpy(la->rev + e * H, alpha + k * H, (size_t)H * sizeof(float));
            } else {
                dst = la->rev + e * H;
            }
            if (dst) memcpy(dst, alpha + k * H, (size_t)H * sizeof(float));
        }
    if (has_token)
        for (int64_t k = mask->indptr[N]; k < mask->indptr[N + 1]; k++)
            if (mask->src[k] < N) memcpy(la->token + mask->src[k] * H, alpha + k * H, (size_t)H * sizeof(float));
    free(alpha);
    return AG_EXIT_OK;
}

static int set_layer_attributes(igraph_t *ig, const layer_attn_t *la, int l) {
    int64_t N = igraph_vcount(ig), E = igraph_ecount(ig), H = la->H;
    int directed = igraph_is_directed(ig);
    igraph_vector_t ev, vv;
    if (igraph_vector_init(&ev, E) != IGRAPH_SUCCESS) return -1;
    if (igraph_vector_init(&vv, N) != IGRAPH_SUCCESS) {
        igraph_vector_destroy(&ev);
        return -1;
    }
    char name[64];
    int bad = 0;
    for (int64_t h = 0; h < H && !bad; h++) {
        for (int dir = 0; dir < (directed ? 1 : 2) && !bad; dir++) {
            const float *src = dir ? la->rev : la->fwd;
            snprintf(name, sizeof name, "attnL%dH%lld%s", l, (long long)h, directed ? "" : dir ? "Rev" : "Fwd");
            for (int64_t e = 0; e < E; e++) VECTOR(ev)[e] = src[e * H + h];
            cli_attr_remove(ig, IGRAPH_ATTRIBUTE_EDGE, name);
            if (E > 0) bad = SETEANV(ig, name, &ev) != IGRAPH_SUCCESS;
        }
        static const char *const vertex_names[3] = {"selfAttn", "tokenAttn", "attnToToken"};
        const float *vertex_weights[3] = {la->self, la->token, la->to_token}; /* each (N x H) or NULL */
        for (int k = 0; k < 3 && !bad && vertex_weights[k]; k++) {
            snprintf(name, sizeof name, "%sL%dH%lld", vertex_names[k], l, (long long)h);
            for (int64_t v = 0; v < N; v++) VECTOR(vv)[v] = vertex_weights[k][v * H + h];
            cli_attr_remove(ig, IGRAPH_ATTRIBUTE_VERTEX, name);
            if (N > 0) bad = SETVANV(ig, name, &vv) != IGRAPH_SUCCESS;
        }
    }
    igraph_vector_destroy(&ev);
    igraph_vector_destroy(&vv);
    return bad ? -1 : 0;
}

/* The prediction as text: class name and its probability, positive tasks, or values. */
static void prediction_text(char *buf, size_t cap, const ag_bundle_t *b, ag_task_t task, const float *y) {
    int64_t C = b->n_names;
    size_t k = 0;
    buf[0] = '\0';
    if (task == AG_TASK_GRAPH_CLASSIFICATION || task == AG_TASK_NODE_CLASSIFICATION) {
        int64_t c = cli_argmax(y, C);
        snprintf(buf, cap, "%s (p %.3f)", b->names[c], y[c]);
        return;
    }
    for (int64_t c = 0; c < C && k < cap; c++) {
        if (task == AG_TASK_GRAPH_MULTITASK && y[c] < 0.5f) continue;
        int w = task == AG_TASK_GRAPH_MULTITASK ? snprintf(buf + k, cap - k, "%s%s", k ? "," : "", b->names[c])
                                                 : snprintf(buf + k, cap - k, "%s%s=%.6g", k ? "," : "", b->names[c], y[c]);
        if (w < 0) break;
        k += (size_t)w;
    }
    if (!buf[0]) snprintf(buf, cap, "-");
}

/* Text for an SVG: XML's escapes; control characters dropped (XML 1.0 has no way to write them)
 * and each byte that is not well-formed UTF-8 (a Latin-1 name) written as U+FFFD, so that the
 * file stays well-formed XML. */
static void xml_text(FILE *f, const char *s) {
    for (size_t n = strlen(s); *s; s++, n--) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x80) {
                size_t len = ag_utf8_sequence(s, n);
                if (len == 0) {
                    fputs("\xEF\xBF\xBD", f);
                } else {
                    fwrite(s, 1, len, f);
                    s += len - 1;
                    n -= len - 1;
                }
            } else {
                /* XML 1.0 has no place for control characters; a name's line break ("Zoë\nLine")
                 * still parts two words, so each becomes a space rather than nothing */
                fputc((unsigned char)*s >= 0x20 ? *s : ' ', f);
            }
        }
    }
}

/* Categorical colours for predicted classes: tab10, then tab20's light halves (classes past 20
 * reuse them, and the legend says so), without their red and light red: the attention edges
 * run grey to red (EDGE_LO, EDGE_HI), and a red class's vertices vanished among dense red edges
 * (2,000 vertices, 6 classes). Black and yellow take their places, hues no other class and no
 * edge has; the other classes keep their tab10 colours. */
#define N_PALETTE 20
static const char *const PALETTE[N_PALETTE] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#000000", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ffe119", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};

/* The attention ramp of edges, from the least to the most attended edge of a drawing. */
static const int EDGE_LO[3] = {205, 210, 220}, EDGE_HI[3] = {200, 20, 30};

/* 1 when white text reads better than black on the colour "#rrggbb" (relative luminance). */
static int is_dark(const char *hex) {
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3) return 0;
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 150.0;
}

/* Characters (code points; a byte that is not UTF-8 counts as one) in s. */
static int text_chars(const char *s) {
    int k = 0;
    for (size_t n = strlen(s), len; n > 0; s += len, n -= len, k++)
        if ((len = ag_utf8_sequence(s, n)) == 0) len = 1;
    return k;
}

/* s cut to at most max characters, the last one an ellipsis when cut, never inside a UTF-8
 * sequence. */
static void shorten(char *dst, size_t cap, const char *s, int max) {
    size_t n = strlen(s), i = 0, len;
    int k = 0;
    if (text_chars(s) <= max) {
        snprintf(dst, cap, "%s", s);
        return;
    }
    for (; i < n && k < max - 1; i += len, k++)
        if ((len = ag_utf8_sequence(s + i, n - i)) == 0) len = 1;
    snprintf(dst, cap, "%.*s\xE2\x80\xA6", (int)(i < cap - 4 ? i : cap - 4), s);
}

/* s cut to max characters in its middle ("class_number_w…name_14"), for legends where cutting the
 * end would make two names alike (a number after a long common stem). */
static void shorten_middle(char *dst, size_t cap, const char *s, int max) {
    const int chars = text_chars(s);
    if (chars <= max) {
        snprintf(dst, cap, "%s", s);
        return;
    }
    const int head = (max - 1) / 2, tail = max - 1 - head;
    size_t n = strlen(s), i = 0, j, len;
    int k = 0;
    for (; i < n && k < head; i += len, k++)
        if ((len = ag_utf8_sequence(s + i, n - i)) == 0) len = 1;
    for (j = i; j < n && k < chars - tail; j += len, k++) /* to where the last tail characters start */
        if ((len = ag_utf8_sequence(s + j, n - j)) == 0) len = 1;
    snprintf(dst, cap, "%.*s\xE2\x80\xA6%s", (int)i, s, s + j);
}

/* Whether the legend cuts its long names in the middle: only when cutting their ends (the usual
 * "topic number 00, a long…") would show two listed classes alike ("class_number_with_long_…"
 * for _14 and _20). */
static int legend_cut_middle(const ag_bundle_t *b, const int64_t *listed, int64_t n, int max) {
    char a[256], z[256];
    for (int64_t i = 0; i < n; i++) {
        shorten(a, sizeof a, b->names[listed[i]], max);
        for (int64_t j = i + 1; j < n; j++) {
            shorten(z, sizeof z, b->names[listed[j]], max);
            if (!strcmp(a, z)) return 1;
        }
    }
    return 0;
}

/* The classes a drawing's legend lists, in class order, into listed (C), and each class's palette
 * slot into slot (C); returns how many are listed. A model of up to `most` classes lists them all,
 * predicted or not, each in its own colour, so that two drawings of one model agree. A model of
 * more (an integer age trained as 39 classes) lists the classes predicted on this graph, whose
 * colours are then their ranks among them: listing the model's first classes instead named
 * classes no vertex had, while vertices of unlisted classes wore their colours. Y: (N x C). */
static int64_t legend_classes(const float *Y, int64_t N, int64_t C, int most, int64_t *listed, int *slot) {
    int64_t n = 0;
    if (C <= most) {
        for (int64_t c = 0; c < C; c++) {
            listed[n++] = c;
            slot[c] = (int)c;
        }
        return n;
    }
    for (int64_t c = 0; c < C; c++) slot[c] = -1;
    for (int64_t v = 0; v < N; v++) slot[cli_argmax(Y + v * C, C)] = 0;
    for (int64_t c = 0; c < C; c++)
        if (slot[c] >= 0) {
            slot[c] = (int)(n % N_PALETTE);
            listed[n++] = c;
        }
    return n;
}

/* The legend's closing remark: how the classes listed relate to the model's (none when all are
 * listed). */
static void legend_more(char *buf, size_t cap, int64_t C, int64_t n_listed, int most) {
    buf[0] = '\0';
    if (C <= most) return;
    if (n_listed == C)
        snprintf(buf, cap, "(%lld classes; those past %d not listed, their colours repeat)", (long long)C, most);
    else if (n_listed <= most)
        snprintf(buf, cap, "(the %lld class%s predicted here, of the model's %lld)", (long long)n_listed,
                 n_listed == 1 ? "" : "es", (long long)C);
    else
        snprintf(buf, cap, "(%lld of the model's %lld classes predicted here; those past %d not listed, their "
                 "colours repeat)", (long long)n_listed, (long long)C, most);
}

/* Rough width in pixels of text in DejaVu Sans at font size px (0.62 em per character on
 * average): enough to keep labels and legend entries apart and on the canvas. */
static double text_width(const char *s, double px) { return 0.62 * px * text_chars(s); }

/* Linear blend of two RGB colours. */
static void blend(char *buf, size_t cap, const int a[3], const int b[3], double t) {
    if (!(t >= 0.0)) t = 0.0;
    if (t > 1.0) t = 1.0;
    snprintf(buf, cap, "#%02x%02x%02x", (int)lround(a[0] + (b[0] - a[0]) * t), (int)lround(a[1] + (b[1] - a[1]) * t),
             (int)lround(a[2] + (b[2] - a[2]) * t));
}

/* Whether segments p1-p2 and p3-p4 cross at a point inside both (touching ends do not count). */
static int segments_cross(const double *p1, const double *p2, const double *p3, const double *p4) {
    double d1 = (p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0]);
    double d2 = (p4[0] - p3[0]) * (p2[1] - p3[1]) - (p4[1] - p3[1]) * (p2[0] - p3[0]);
    double d3 = (p2[0] - p1[0]) * (p3[1] - p1[1]) - (p2[1] - p1[1]) * (p3[0] - p1[0]);
    double d4 = (p2[0] - p1[0]) * (p4[1] - p1[1]) - (p2[1] - p1[1]) * (p4[0] - p1[0]);
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/* Pairs of edges without a common end that cross in the drawing xy (N x 2). */
static int64_t crossings(const igraph_t *ig, const igraph_matrix_t *xy) {
    int64_t E = igraph_ecount(ig), n = 0;
    for (int64_t a = 0; a < E; a++) {
        int64_t u = IGRAPH_FROM(ig, a), v = IGRAPH_TO(ig, a);
        double pu[2] = {MATRIX(*xy, u, 0), MATRIX(*xy, u, 1)}, pv[2] = {MATRIX(*xy, v, 0), MATRIX(*xy, v, 1)};
        for (int64_t b = a + 1; b < E; b++) {
            int64_t w = IGRAPH_FROM(ig, b), x = IGRAPH_TO(ig, b);
            if (w == u || w == v || x == u || x == v) continue;
            double pw[2] = {MATRIX(*xy, w, 0), MATRIX(*xy, w, 1)}, px[2] = {MATRIX(*xy, x, 0), MATRIX(*xy, x, 1)};
            n += segments_cross(pu, pv, pw, px);
        }
    }
    return n;
}

static int kamada_kawai(const igraph_t *ig, igraph_matrix_t *xy, int from_xy) {
    int64_t N = igraph_vcount(ig);
    return igraph_layout_kamada_kawai(ig, xy, from_xy, 50 * (N > 0 ? N : 1), 0.0, (double)N, NULL, NULL, NULL, NULL,
                                      NULL) == IGRAPH_SUCCESS ? 0 : -1;
}

/* An index and the key it is ordered by (by_key_desc). */
typedef struct keyed_t {
    double key;
    int64_t i;
} keyed_t;

/* Largest key first, ties by index: a total order, so qsort gives one result and drawings repeat. */
static int by_key_desc(const void *pa, const void *pb) {
    const keyed_t *a = pa, *b = pb;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The mean length of the edges in the drawing xy (N x 2), self-loops left out (they have none);
 * 0 without such edges. */
static double mean_edge_length(const igraph_t *ig, const igraph_matrix_t *xy) {
    double sum = 0.0;
    int64_t n = 0;
    for (int64_t e = 0; e < igraph_ecount(ig); e++) {
        int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        if (u == v) continue;
        sum += hypot(MATRIX(*xy, u, 0) - MATRIX(*xy, v, 0), MATRIX(*xy, u, 1) - MATRIX(*xy, v, 1));
        n++;
    }
    return n > 0 ? sum / (double)n : 0.0;
}

/* Places the connected components of a drawing side by side, largest first, in rows about as
 * wide as the drawing is tall, one mean edge length apart (one layout unit without edges), each
 * centred on its row's middle: the layouts put a component far from the others (a salt's Na+ in
 * a corner, a social graph's isolated vertex squeezing the rest into 60% of the canvas); 1.5
 * lengths apart and on the row's top, a salt's ion still sat in the canvas's corner. A component
 * no wider than the one before it and short enough goes under it, the two a column centred on the
 * row's middle. Each component keeps its own shape. memb (N): each vertex's component; csize
 * (nc): their sizes. */
static int pack_components(const igraph_t *ig, igraph_matrix_t *xy, const igraph_vector_int_t *memb,
                           const igraph_vector_int_t *csize, int64_t nc) {
    int64_t N = igraph_vcount(ig);
    int rc = 0;
    double *box = NULL;    /* (nc x 4) each component's min x, min y, max x, max y */
    keyed_t *order = NULL; /* (nc) components by size, largest first */
    double *at = NULL;     /* (nc x 2) where each component's box goes */
    double *row_h = NULL;  /* (nc) the height of each row of components (at most nc rows) */
    double *col_w = NULL, *col_h = NULL; /* (nc) each column's width (its first component's), height */
    double *below = NULL;  /* (nc) how far below its column's top each component is */
    int64_t *col_of = NULL; /* (nc) each component's column */
    if (nc > 1) {
        box = malloc(sizeof(double) * 4 * (size_t)nc);
        order = malloc(sizeof(keyed_t) * (size_t)nc);
        at = malloc(sizeof(double) * 2 * (size_t)nc);
        row_h = calloc((size_t)nc, sizeof(double));
        col_w = malloc(sizeof(double) * (size_t)nc);
        col_h = malloc(sizeof(double) * (size_t)nc);
        below = malloc(sizeof(double) * (size_t)nc);
        col_of = malloc(sizeof(int64_t) * (size_t)nc);
        rc = box && order && at && row_h && col_w && col_h && below && col_of ? 0 : -1;
    }
    if (rc == 0 && nc > 1) {
        for (int64_t c = 0; c < nc; c++) {
            box[4 * c] = box[4 * c + 1] = INFINITY;
            box[4 * c + 2] = box[4 * c + 3] = -INFINITY;
            order[c] = (keyed_t){(double)VECTOR(*csize)[c], c};
        }
        for (int64_t v = 0; v < N; v++) {
            double *b = box + 4 * VECTOR(*memb)[v];
            b[0] = fmin(b[0], MATRIX(*xy, v, 0));
            b[1] = fmin(b[1], MATRIX(*xy, v, 1));
            b[2] = fmax(b[2], MATRIX(*xy, v, 0));
            b[3] = fmax(b[3], MATRIX(*xy, v, 1));
        }
        double gap = mean_edge_length(ig, xy);
        if (!(gap > 0.0)) gap = 1.0;
        qsort(order, (size_t)nc, sizeof *order, by_key_desc);
        double area = 0.0, limit = box[4 * order[0].i + 2] - box[4 * order[0].i];
        for (int64_t c = 0; c < nc; c++)
            area += (box[4 * c + 2] - box[4 * c] + gap) * (box[4 * c + 3] - box[4 * c + 1] + gap);
        limit = fmax(limit, sqrt(area));
        /* rows first (at: x and row number), then each row's top from the heights above it */
        double x = 0.0;
        int64_t row = 0, k = -1;
        for (int64_t i = 0; i < nc; i++) {
            const int64_t c = order[i].i;
            const double *b = box + 4 * c;
            double w = b[2] - b[0], h = b[3] - b[1];
            if (k >= 0 && w <= col_w[k] && col_h[k] + gap + h <= row_h[row]) {
                /* below the column's last component, within the row's height: a column of small
                 * components beside a large one (Karate's three isolated vertices side by side
                 * were 1, 2 and 3 edge lengths from it) */
                at[2 * c] = at[2 * order[i - 1].i];
                at[2 * c + 1] = (double)row;
                below[c] = col_h[k] + gap;
                col_h[k] += gap + h;
                col_of[c] = k;
                continue;
            }
            if (x > 0.0 && x + w > limit) {
                x = 0.0;
                row++;
            }
            k++;
            col_w[k] = w;
            col_h[k] = h;
            col_of[c] = k;
            below[c] = 0.0;
            at[2 * c] = x;
            at[2 * c + 1] = (double)row;
            x += w + gap;
            row_h[row] = fmax(row_h[row], h);
        }
        for (int64_t r = 1; r <= row; r++) row_h[r] += row_h[r - 1] + gap; /* row r's bottom */
        for (int64_t c = 0; c < nc; c++) { /* each column centred on its row's middle */
            int64_t r = (int64_t)at[2 * c + 1];
            double top = r > 0 ? row_h[r - 1] + gap : 0.0, height = row_h[r] - top;
            at[2 * c + 1] = top + 0.5 * (height - col_h[col_of[c]]) + below[c];
        }
        for (int64_t v = 0; v < N; v++) {
            int64_t c = VECTOR(*memb)[v];
            MATRIX(*xy, v, 0) += at[2 * c] - box[4 * c];
            MATRIX(*xy, v, 1) += at[2 * c + 1] - box[4 * c + 1];
        }
    }
    free(box);
    free(order);
    free(at);
    free(row_h);
    free(col_w);
    free(col_h);
    free(below);
    free(col_of);
    return rc;
}

/* The longest edge of the drawing xy (N x 2) over the mean edge length; 0 without edges. */
static double longest_edge_ratio(const igraph_t *ig, const igraph_matrix_t *xy) {
    double mean = mean_edge_length(ig, xy), longest = 0.0;
    for (int64_t e = 0; e < igraph_ecount(ig); e++) {
        int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        longest = fmax(longest, hypot(MATRIX(*xy, u, 0) - MATRIX(*xy, v, 0), MATRIX(*xy, u, 1) - MATRIX(*xy, v, 1)));
    }
    return mean > 0.0 ? longest / mean : 0.0;
}

/* Kamada-Kawai from a circle, on a component of a few hundred vertices, can stop in a local
 * minimum with one vertex flung out: a 200-vertex component of a social graph came out with an
 * edge 14.5 mean lengths long and the rest squeezed into a half-disc beside it, and 20 times the
 * iterations left it there. Started from Fruchterman-Reingold's drawing instead, the same
 * component's longest edge was 1.6 mean lengths. Only a drawing whose longest edge exceeds
 * STRETCH mean lengths is laid out again (circle-started ones of 160-490 vertices had 1.3-2.0),
 * and the new drawing is kept when its longest edge is shorter. */
static int unstretch(const igraph_t *ig, igraph_matrix_t *xy) {
    const double STRETCH = 4.0;
    double before = longest_edge_ratio(ig, xy);
    if (!(before > STRETCH)) return 0;
    int64_t N = igraph_vcount(ig);
    igraph_matrix_t t;
    if (igraph_matrix_init(&t, 0, 0) != IGRAPH_SUCCESS) return -1;
    int rc = igraph_layout_fruchterman_reingold(ig, &t, 0, 500, sqrt((double)N), IGRAPH_LAYOUT_NOGRID, NULL, NULL,
                                                NULL, NULL, NULL) == IGRAPH_SUCCESS ? 0 : -1;
    if (rc == 0) rc = kamada_kawai(ig, &t, 1);
    if (rc == 0 && longest_edge_ratio(ig, &t) < before)
        rc = igraph_matrix_update(xy, &t) == IGRAPH_SUCCESS ? 0 : -1;
    igraph_matrix_destroy(&t);
    return rc;
}

/* Draws a connected graph that is a chain (N - 1 edges, no vertex of degree over 2) as chemists
 * draw an alkane: a zigzag along the x axis, its bonds 1 long and its angles 120 degrees.
 * Kamada-Kawai from a circle left hexacosane's 26 carbons a shallow arch. Returns 1 when drawn, 0
 * when the graph is not a chain, -1 on failure. */
static int zigzag_chain(const igraph_t *ig, igraph_matrix_t *xy) {
    const int64_t N = igraph_vcount(ig), E = igraph_ecount(ig);
    if (N < 3 || E != N - 1) return 0;
    int64_t *nb = malloc(sizeof(int64_t) * 2 * (size_t)N); /* (N x 2) each vertex's neighbours */
    int *deg = calloc((size_t)N, sizeof(int));              /* (N) how many of them */
    int rc = nb && deg ? 1 : -1;
    for (int64_t e = 0; e < E && rc == 1; e++) {
        const int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        if (deg[u] == 2 || deg[v] == 2) rc = 0;
        else {
            nb[2 * u + deg[u]++] = v;
            nb[2 * v + deg[v]++] = u;
        }
    }
    /* connected, N - 1 edges and no degree over 2: a path, walked from an end; the checks on the
     * walk keep a graph that is not connected (layout_raw gets none) from reading past it */
    int64_t at = 0;
    while (rc == 1 && at < N && deg[at] != 1) at++;
    if (rc == 1 && at == N) rc = 0;
    if (rc == 1 && igraph_matrix_resize(xy, N, 2) != IGRAPH_SUCCESS) rc = -1;
    for (int64_t k = 0, prev = -1; k < N && rc == 1; k++) {
        MATRIX(*xy, at, 0) = 0.5 * sqrt(3.0) * (double)k;
        MATRIX(*xy, at, 1) = 0.5 * (double)(k % 2);
        if (k + 1 == N) break; /* the far end: its one neighbour is behind it */
        if (k > 0 && deg[at] == 1) { /* an end before N vertices: not one path */
            rc = 0;
            break;
        }
        const int64_t next = nb[2 * at] != prev ? nb[2 * at] : nb[2 * at + 1];
        prev = at;
        at = next;
    }
    free(nb);
    free(deg);
    return rc;
}

/* Node positions from igraph: Kamada-Kawai up to KK_MAX vertices, Fruchterman-Reingold above;
 * igraph's random generator is seeded so drawings repeat. Kamada-Kawai keeps an N x N matrix of
 * path lengths, so it is for molecule-sized components only (2 MB at KK_MAX). Above, the layout
 * must take memory in proportion to N + E, as Fruchterman-Reingold does (its grid version, above
 * FR_EXACT_MAX vertices, where the exact one's N^2 steps would be slow, repels only vertices in
 * neighbouring cells of a grid of about N / 4 cells). Not DrL, which drew components above 5000
 * vertices before: it allocates a fixed 1000 x 1000 density grid of C++ deques, about 625 MB
 * whatever the graph's size, and LastFM Asia's 7,624 vertices took 760 MB and 25 s to draw
 * (114 MB and under 3 s with this layout).
 * Kamada-Kawai started from a circle folds fused rings over each other (a steroid's four rings
 * came out with three bonds crossing): up to KK_TRIES_MAX vertices it also starts from
 * KK_TRIES - 1 seeded random placements and keeps the drawing with the fewest crossing edges (the
 * circle's on a tie). */
static int layout_raw(const igraph_t *ig, igraph_matrix_t *xy) {
    enum { KK_MAX = 500, KK_TRIES = 8, KK_TRIES_MAX = 150, FR_EXACT_MAX = 1000 };
    int64_t N = igraph_vcount(ig);
    igraph_rng_seed(igraph_rng_default(), 42);
    /* chains of molecule size only: a 500-atom zigzag would be 500 bonds across */
    const int chain = N <= KK_TRIES_MAX ? zigzag_chain(ig, xy) : 0;
    if (chain != 0) return chain < 0 ? -1 : 0;
    if (N <= KK_MAX) {
        if (kamada_kawai(ig, xy, 0) < 0) return -1;
        if (N > KK_TRIES_MAX) return unstretch(ig, xy);
        if (igraph_ecount(ig) < 2) return 0;
        int64_t best = crossings(ig, xy);
        igraph_matrix_t t;
        if (igraph_matrix_init(&t, N, 2) != IGRAPH_SUCCESS) return -1;
        const double side = sqrt((double)N);
        for (int k = 1; k < KK_TRIES && best > 0; k++) {
            for (int64_t v = 0; v < N; v++) {
                MATRIX(t, v, 0) = igraph_rng_get_unif(igraph_rng_default(), -side, side);
                MATRIX(t, v, 1) = igraph_rng_get_unif(igraph_rng_default(), -side, side);
            }
            if (kamada_kawai(ig, &t, 1) < 0) {
                igraph_matrix_destroy(&t);
                return -1;
            }
            int64_t c = crossings(ig, &t);
            if (c < best) {
                best = c;
                if (igraph_matrix_update(xy, &t) != IGRAPH_SUCCESS) {
                    igraph_matrix_destroy(&t);
                    return -1;
                }
            }
        }
        igraph_matrix_destroy(&t);
        return 0;
    }
    /* The start temperature is the most a vertex moves along an axis in the first step. From
     * sqrt(N), the grid version left a few pendant paths stretched far out, and the graph's body
     * got half the canvas: LastFM Asia was 31 x 35 mean edge lengths across, its central 98% of
     * vertices 13 x 10 (a tree of 3,000 vertices and Cora's largest component alike). From a
     * tenth of it, 17 x 16 and 12 x 11: the same body on a canvas it fills. The exact version,
     * every vertex repelling every other, keeps sqrt(N): from less, a lattice of 810 vertices
     * came out folded over itself. */
    const int grid = N > FR_EXACT_MAX;
    const double temperature = grid ? 0.1 * sqrt((double)N) : sqrt((double)N);
    return igraph_layout_fruchterman_reingold(ig, xy, 0, 500, temperature,
                                              grid ? IGRAPH_LAYOUT_GRID : IGRAPH_LAYOUT_NOGRID, NULL, NULL, NULL,
                                              NULL, NULL) == IGRAPH_SUCCESS ? 0 : -1;
}

/* Lays out a connected component, its n vertices verts (ascending ids; local: each vertex's index
 * among them) and its m edges ids, into rows verts of xy at a mean edge length of 1. Each
 * component is laid out alone: Kamada-Kawai run on the whole graph gives vertices of different
 * components the distance of the graph's longest path and, not converging on them, left a lone
 * edge 8 to 870 px long beside a 400-vertex component's 115 px; and each layout has its own unit
 * (Kamada-Kawai's is sqrt(n) / diameter), so each component is scaled to one mean edge length. */
static int layout_component(const igraph_t *ig, const int64_t *verts, int64_t n, const int64_t *ids, int64_t m,
                            const int64_t *local, igraph_matrix_t *xy) {
    if (n == 1) {
        MATRIX(*xy, verts[0], 0) = MATRIX(*xy, verts[0], 1) = 0.0;
        return 0;
    }
    igraph_vector_int_t ends;
    igraph_t sub;
    igraph_matrix_t sxy;
    if (igraph_vector_int_init(&ends, 2 * m) != IGRAPH_SUCCESS) return -1;
    for (int64_t k = 0; k < m; k++) {
        VECTOR(ends)[2 * k] = local[IGRAPH_FROM(ig, ids[k])];
        VECTOR(ends)[2 * k + 1] = local[IGRAPH_TO(ig, ids[k])];
    }
    int rc = igraph_create(&sub, &ends, n, igraph_is_directed(ig)) == IGRAPH_SUCCESS ? 0 : -1;
    igraph_vector_int_destroy(&ends);
    if (rc < 0) return -1;
    if (igraph_matrix_init(&sxy, 0, 0) != IGRAPH_SUCCESS) {
        igraph_destroy(&sub);
        return -1;
    }
    rc = layout_raw(&sub, &sxy);
    if (rc == 0) {
        double unit = mean_edge_length(&sub, &sxy), scale = unit > 0.0 ? 1.0 / unit : 1.0;
        for (int64_t i = 0; i < n; i++) {
            MATRIX(*xy, verts[i], 0) = MATRIX(sxy, i, 0) * scale;
            MATRIX(*xy, verts[i], 1) = MATRIX(sxy, i, 1) * scale;
        }
    }
    igraph_matrix_destroy(&sxy);
    igraph_destroy(&sub);
    return rc;
}

/* Node positions: a connected graph as layout_raw draws it; a graph of several components each
 * laid out alone at one edge length (layout_component), then packed (pack_components). The
 * vertices and edges are sorted by component in one pass each, so that a graph of thousands of
 * small components is not scanned once per component. */
static int layout(const igraph_t *ig, igraph_matrix_t *xy) {
    int64_t N = igraph_vcount(ig), E = igraph_ecount(ig);
    igraph_vector_int_t memb, csize;
    igraph_integer_t nc = 0;
    if (igraph_vector_int_init(&memb, 0) != IGRAPH_SUCCESS) return -1;
    if (igraph_vector_int_init(&csize, 0) != IGRAPH_SUCCESS) {
        igraph_vector_int_destroy(&memb);
        return -1;
    }
    int rc = igraph_connected_components(ig, &memb, &csize, &nc, IGRAPH_WEAK) == IGRAPH_SUCCESS ? 0 : -1;
    int64_t *vstart = NULL, *estart = NULL; /* (nc + 1) where each component's vertices, edges start */
    int64_t *verts = NULL, *ids = NULL;     /* (N), (E) vertices and edge ids by component */
    int64_t *local = NULL;                  /* (N) each vertex's index in its component */
    if (rc == 0 && nc <= 1) rc = layout_raw(ig, xy);
    else if (rc == 0) {
        vstart = calloc((size_t)nc + 1, sizeof(int64_t));
        estart = calloc((size_t)nc + 1, sizeof(int64_t));
        verts = malloc(sizeof(int64_t) * (size_t)(N > 0 ? N : 1));
        ids = malloc(sizeof(int64_t) * (size_t)(E > 0 ? E : 1));
        local = malloc(sizeof(int64_t) * (size_t)(N > 0 ? N : 1));
        rc = vstart && estart && verts && ids && local && igraph_matrix_resize(xy, N, 2) == IGRAPH_SUCCESS ? 0 : -1;
    }
    if (rc == 0 && nc > 1) {
        for (int64_t v = 0; v < N; v++) vstart[VECTOR(memb)[v] + 1]++;
        for (int64_t e = 0; e < E; e++) estart[VECTOR(memb)[IGRAPH_FROM(ig, e)] + 1]++;
        for (int64_t c = 0; c < nc; c++) {
            vstart[c + 1] += vstart[c];
            estart[c + 1] += estart[c];
        }
        for (int64_t v = 0; v < N; v++) { /* counting sort; vstart[c] ends as component c + 1's start */
            int64_t c = VECTOR(memb)[v];
            local[v] = vstart[c];
            verts[vstart[c]++] = v;
        }
        for (int64_t e = 0; e < E; e++) ids[estart[VECTOR(memb)[IGRAPH_FROM(ig, e)]]++] = e;
        for (int64_t c = nc; c > 0; c--) { /* back to each component's start */
            vstart[c] = vstart[c - 1];
            estart[c] = estart[c - 1];
        }
        vstart[0] = estart[0] = 0;
        for (int64_t v = 0; v < N; v++) local[v] -= vstart[VECTOR(memb)[v]];
        for (int64_t c = 0; c < nc && rc == 0; c++)
            rc = layout_component(ig, verts + vstart[c], vstart[c + 1] - vstart[c], ids + estart[c],
                                  estart[c + 1] - estart[c], local, xy);
        if (rc == 0) rc = pack_components(ig, xy, &memb, &csize, nc);
    }
    free(vstart);
    free(estart);
    free(verts);
    free(ids);
    free(local);
    igraph_vector_int_destroy(&memb);
    igraph_vector_int_destroy(&csize);
    return rc;
}

/* The box around the drawing xy (N x 2); 0 to 1 on each axis without vertices. */
static void layout_box(const igraph_matrix_t *xy, double *minx, double *maxx, double *miny, double *maxy) {
    *minx = *miny = 0.0;
    *maxx = *maxy = 1.0;
    for (int64_t v = 0; v < igraph_matrix_nrow(xy); v++) {
        double x = MATRIX(*xy, v, 0), y = MATRIX(*xy, v, 1);
        if (v == 0 || x < *minx) *minx = x;
        if (v == 0 || x > *maxx) *maxx = x;
        if (v == 0 || y < *miny) *miny = y;
        if (v == 0 || y > *maxy) *maxy = y;
    }
}

/* Turns the drawing xy (N x 2) about its centroid so that the direction its vertices spread
 * most along is horizontal: a layout has no orientation of its own, and Kamada-Kawai left a long
 * chain upright or on a diagonal, where the canvas has the least room. */
static void turn_to_principal_axis(igraph_matrix_t *xy) {
    const int64_t N = igraph_matrix_nrow(xy);
    double cx = 0.0, cy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (int64_t v = 0; v < N; v++) {
        cx += MATRIX(*xy, v, 0) / (double)N;
        cy += MATRIX(*xy, v, 1) / (double)N;
    }
    for (int64_t v = 0; v < N; v++) {
        double dx = MATRIX(*xy, v, 0) - cx, dy = MATRIX(*xy, v, 1) - cy;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    const double a = 0.5 * atan2(2.0 * sxy, sxx - syy), c = cos(a), s = sin(a);
    for (int64_t v = 0; v < N; v++) {
        double dx = MATRIX(*xy, v, 0) - cx, dy = MATRIX(*xy, v, 1) - cy;
        MATRIX(*xy, v, 0) = dx * c + dy * s;
        MATRIX(*xy, v, 1) = dy * c - dx * s;
    }
}

/* Pushes apart circles closer than gap (centre to centre) in the N x 2 canvas positions pos, kept
 * inside [x0, x1] x [y0, y1]: Kamada-Kawai draws hubs that share most neighbours (Karate's 33 and
 * 34) almost on top of each other. Pairs in a fixed order, so drawings repeat. */
static void separate(double *pos, int64_t N, double gap, double x0, double x1, double y0, double y1) {
    for (int iter = 0; iter < 100; iter++) {
        int moved = 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t j = i + 1; j < N; j++) {
                double dx = pos[2 * j] - pos[2 * i], dy = pos[2 * j + 1] - pos[2 * i + 1], d = hypot(dx, dy);
                if (d >= gap - 1e-9) continue;
                if (d < 1e-9) { /* the same point: apart along x */
                    dx = 1.0;
                    dy = 0.0;
                    d = 1.0;
                }
                double shift = 0.5 * (gap - hypot(pos[2 * j] - pos[2 * i], pos[2 * j + 1] - pos[2 * i + 1])) / d;
                pos[2 * i] = fmin(x1, fmax(x0, pos[2 * i] - dx * shift));
                pos[2 * i + 1] = fmin(y1, fmax(y0, pos[2 * i + 1] - dy * shift));
                pos[2 * j] = fmin(x1, fmax(x0, pos[2 * j] + dx * shift));
                pos[2 * j + 1] = fmin(y1, fmax(y0, pos[2 * j + 1] + dy * shift));
                moved = 1;
            }
        if (!moved) break;
    }
}

/* The vertex's label: the attribute label_attr picked, else its index. */
static void vertex_label(char *buf, size_t cap, const igraph_t *ig, int64_t v, const char *attr, int numeric) {
    if (!attr) snprintf(buf, cap, "%lld", (long long)v);
    else if (numeric) snprintf(buf, cap, "%.10g", VAN(ig, attr, v));
    else snprintf(buf, cap, "%s", VAS(ig, attr, v));
}

/* The vertex attribute a drawing labels vertices with (numeric in *numeric), NULL for their
 * indices: a molecule's element, else the name or label a user gave, else the id: igraph keeps
 * GraphML's node ids ("alice", "n12") as the string attribute 'id', and those are what the user
 * wrote and what label and classify print, so a drawing of such a file numbered by index could not
 * be matched to it. A GML file's numeric ids are its own numbering too. */
static const char *label_attr(const igraph_t *ig, int *numeric) {
    static const char *const cands[4] = {"element", "name", "label", "id"};
    for (int c = 0; c < 4; c++) {
        igraph_attribute_type_t t;
        if (igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, cands[c]) &&
            igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_VERTEX, cands[c]) == IGRAPH_SUCCESS &&
            (t == IGRAPH_ATTRIBUTE_STRING || t == IGRAPH_ATTRIBUTE_NUMERIC)) {
            *numeric = t == IGRAPH_ATTRIBUTE_NUMERIC;
            return cands[c];
        }
    }
    *numeric = 0;
    return NULL;
}

/* The sequential map of predicted values (viridis, by its quarter points): dark to light, one
 * way of reading it for every reader, and no red, the attention edges' hue. */
#define N_VALUE_STOPS 5
static const int VALUE_STOPS[N_VALUE_STOPS][3] = {
    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};

/* The value map's colour at t in [0, 1] (NaN: the middle). */
static void value_colour(char *buf, size_t cap, double t) {
    if (!(t >= 0.0)) t = t < 0.0 ? 0.0 : 0.5;
    if (t > 1.0) t = 1.0;
    const double at = t * (N_VALUE_STOPS - 1);
    const int k = at >= N_VALUE_STOPS - 1 ? N_VALUE_STOPS - 2 : (int)at;
    blend(buf, cap, VALUE_STOPS[k], VALUE_STOPS[k + 1], at - k);
}

/* Where a drawing's vertex colours come from, and their range. */
typedef struct fill_scale_t {
    ag_task_t task;
    int64_t C;         /* the model's outputs per vertex */
    const int *slot;   /* node classification: each class's palette slot */
    double lo, hi;     /* node regression: the first target's predicted range; others: attention received */
} fill_scale_t;

/* A vertex's fill: its predicted class's colour (node classification, y its C outputs), its
 * predicted value on the value map (node regression: the first target), else white to orange
 * by the attention it receives (a): a molecule's prediction is one for the whole graph, and
 * which atoms the model looked at is what its vertices can show. */
static void vertex_fill(char *col, size_t cap, const fill_scale_t *s, const float *y, double a) {
    static const int lo[3] = {255, 255, 255}, hi[3] = {230, 85, 13};
    const double x = s->task == AG_TASK_NODE_REGRESSION ? (double)y[0] : a;
    const double t = s->hi > s->lo ? (x - s->lo) / (s->hi - s->lo) : 0.5;
    if (s->task == AG_TASK_NODE_CLASSIFICATION) snprintf(col, cap, "%s", PALETTE[s->slot[cli_argmax(y, s->C)]]);
    else if (s->task == AG_TASK_NODE_REGRESSION) value_colour(col, cap, t);
    else blend(col, cap, lo, hi, t);
}

/* Bond orders a molecule's edges carry, drawn as chemists draw them beside the attention stroke. */
enum { BOND_NONE = 0, BOND_DOUBLE = 2, BOND_TRIPLE = 3, BOND_AROMATIC = 4 };

/* A bond's order from the string edge attribute attr ("bond_type": RDKit's names SINGLE, DOUBLE,
 * TRIPLE, AROMATIC, as the shared molecules and MUTAG carry them); BOND_NONE for a single bond or
 * another name. */
static int bond_kind(const igraph_t *ig, const char *attr, int64_t e) {
    const char *t = EAS(ig, attr, e);
    return !strcasecmp(t, "DOUBLE") ? BOND_DOUBLE : !strcasecmp(t, "TRIPLE") ? BOND_TRIPLE
           : !strcasecmp(t, "AROMATIC") ? BOND_AROMATIC : BOND_NONE;
}

/* The thin lines of a double, triple or aromatic bond u-v beside its attention stroke: one line
 * (dashed for aromatic) on the side of the two atoms' other neighbours, which is a ring's inside,
 * or one on each side for a triple bond; each stops short of the circles. */
static void bond_marks(FILE *f, const igraph_t *ig, const double *pos, int64_t u, int64_t v, int kind, double radius,
                       double offset) {
    const double x1 = pos[2 * u], y1 = pos[2 * u + 1], x2 = pos[2 * v], y2 = pos[2 * v + 1];
    const double len = hypot(x2 - x1, y2 - y1);
    if (kind == BOND_NONE || len < 2 * radius + 8) return;
    const double ux = (x2 - x1) / len, uy = (y2 - y1) / len, nx = -uy, ny = ux;
    double side = 1.0, cx = 0.0, cy = 0.0;
    int64_t n = 0;
    igraph_vector_int_t nb;
    if (igraph_vector_int_init(&nb, 0) == IGRAPH_SUCCESS) {
        for (int k = 0; k < 2; k++) {
            if (igraph_neighbors(ig, &nb, k ? v : u, IGRAPH_ALL) != IGRAPH_SUCCESS) continue;
            for (igraph_integer_t i = 0; i < igraph_vector_int_size(&nb); i++) {
                int64_t w = VECTOR(nb)[i];
                if (w == u || w == v) continue;
                cx += pos[2 * w] - 0.5 * (x1 + x2);
                cy += pos[2 * w + 1] - 0.5 * (y1 + y2);
                n++;
            }
        }
        igraph_vector_int_destroy(&nb);
    }
    if (n > 0 && cx * nx + cy * ny < 0) side = -1.0;
    const double trim = radius + 2;
    for (int k = 0; k < (kind == BOND_TRIPLE ? 2 : 1); k++) {
        const double s = (k ? -side : side) * offset;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444444\" stroke-width=\"1.2\"%s/>\n",
                x1 + ux * trim + nx * s, y1 + uy * trim + ny * s, x2 - ux * trim + nx * s, y2 - uy * trim + ny * s,
                kind == BOND_AROMATIC ? " stroke-dasharray=\"3 2\"" : "");
    }
}

/* Edges joining the same two vertices (in either direction, or a vertex to itself): each edge's
 * rank among them (rank, E: by edge id) and their number (count, E), so that copies can be drawn
 * apart. Returns 0, or -1 when out of memory. */
static int parallel_edges(const igraph_t *ig, int64_t *rank, int64_t *count) {
    int64_t E = igraph_ecount(ig), N = igraph_vcount(ig);
    keyed_t *order = malloc(sizeof(keyed_t) * (size_t)(E > 0 ? E : 1)); /* (E) edges by their ends */
    if (!order) return -1;
    for (int64_t e = 0; e < E; e++) {
        int64_t a = IGRAPH_FROM(ig, e), b = IGRAPH_TO(ig, e);
        order[e] = (keyed_t){(double)(a < b ? a : b) * (double)N + (double)(a < b ? b : a), e};
    }
    qsort(order, (size_t)E, sizeof *order, by_key_desc);
    for (int64_t i = 0, j; i < E; i = j) {
        for (j = i; j < E && order[j].key == order[i].key; j++) rank[order[j].i] = j - i;
        for (int64_t k = i; k < j; k++) count[order[k].i] = j - i;
    }
    free(order);
    return 0;
}

/* The unit vector from vertex v away from its other neighbours' mean position (straight up when
 * it has none, or they balance out): where a self-loop has room. */
static void away_from_neighbours(const igraph_t *ig, const double *pos, int64_t v, double *dx, double *dy) {
    double sx = 0.0, sy = 0.0;
    igraph_vector_int_t nb;
    if (igraph_vector_int_init(&nb, 0) == IGRAPH_SUCCESS) {
        if (igraph_neighbors(ig, &nb, v, IGRAPH_ALL) == IGRAPH_SUCCESS)
            for (igraph_integer_t i = 0; i < igraph_vector_int_size(&nb); i++) {
                int64_t w = VECTOR(nb)[i];
                sx += pos[2 * v] - pos[2 * w];
                sy += pos[2 * v + 1] - pos[2 * w + 1];
            }
        igraph_vector_int_destroy(&nb);
    }
    double len = hypot(sx, sy);
    *dx = len > 1e-6 ? sx / len : 0.0;
    *dy = len > 1e-6 ? sy / len : -1.0;
}

/* Edge e's stroke as an SVG path's d, into buf. A single edge is a straight line between the
 * centres. Copy k of n edges joining the same two vertices is a quadratic curve whose middle lies
 * (k - (n - 1) / 2) * bend px to one side of the line from the lower vertex id to the higher, so
 * that copies (and the two directions of a directed pair) do not lie on each other. A self-loop
 * is a cubic loop leaving and entering the rim on the side away from the vertex's neighbours,
 * copy k larger than copy k - 1: as a line from the centre to itself it had no length and was not
 * drawn. With an arrowhead (head > 0, its length in px) the tip is on the target's rim and the
 * stroke stops 0.6 head short of it along its end direction, where the marker (refX 4 of 10)
 * is anchored: a stroke running on to the tip is wider there than the arrowhead and blunts it. */
static void edge_path(char *buf, size_t cap, const igraph_t *ig, const double *pos, int64_t e, int64_t k, int64_t n,
                      double radius, double bend, double head) {
    int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
    double x1 = pos[2 * u], y1 = pos[2 * u + 1], x2 = pos[2 * v], y2 = pos[2 * v + 1];
    double c1x = x1, c1y = y1, c2x = x1, c2y = y1; /* the control points (c2: the one before the end) */
    char kind = 'L';
    if (u == v) {
        double dx, dy;
        away_from_neighbours(ig, pos, v, &dx, &dy);
        const double nx = -dy, ny = dx, rim = 0.6, spread = 0.5, reach = radius * (4.0 + 2.0 * (double)k);
        x1 = pos[2 * v] + radius * (dx * cos(rim) - nx * sin(rim));
        y1 = pos[2 * v + 1] + radius * (dy * cos(rim) - ny * sin(rim));
        x2 = pos[2 * v] + radius * (dx * cos(rim) + nx * sin(rim));
        y2 = pos[2 * v + 1] + radius * (dy * cos(rim) + ny * sin(rim));
        c1x = pos[2 * v] + reach * (dx * cos(spread) - nx * sin(spread));
        c1y = pos[2 * v + 1] + reach * (dy * cos(spread) - ny * sin(spread));
        c2x = pos[2 * v] + reach * (dx * cos(spread) + nx * sin(spread));
        c2y = pos[2 * v + 1] + reach * (dy * cos(spread) + ny * sin(spread));
        kind = 'C';
    } else if (n > 1) {
        const int64_t a = u < v ? u : v, b = u < v ? v : u;
        double ax = pos[2 * a], ay = pos[2 * a + 1], bx = pos[2 * b], by = pos[2 * b + 1], len = hypot(bx - ax, by - ay);
        double off = 2.0 * ((double)k - 0.5 * (double)(n - 1)) * bend; /* a quadratic's middle is half its control's */
        if (len < 1e-6) len = 1.0;
        c2x = 0.5 * (ax + bx) - (by - ay) / len * off;
        c2y = 0.5 * (ay + by) + (bx - ax) / len * off;
        kind = 'Q';
        if (head > 0.0) { /* the tip where the curve meets the rim, near enough: towards its control point */
            double d = hypot(c2x - x2, c2y - y2);
            if (d > radius) {
                x2 += (c2x - x2) * radius / d;
                y2 += (c2y - y2) * radius / d;
            }
        }
    } else if (head > 0.0) {
        double len = hypot(x2 - x1, y2 - y1);
        if (len > radius) {
            x2 -= (x2 - x1) * radius / len;
            y2 -= (y2 - y1) * radius / len;
        }
    }
    if (head > 0.0) {
        double tx = x2 - c2x, ty = y2 - c2y, len = hypot(tx, ty);
        if (len > 0.6 * head) {
            x2 -= tx * 0.6 * head / len;
            y2 -= ty * 0.6 * head / len;
        }
    }
    if (kind == 'L') snprintf(buf, cap, "M%.1f %.1fL%.1f %.1f", x1, y1, x2, y2);
    else if (kind == 'Q') snprintf(buf, cap, "M%.1f %.1fQ%.1f %.1f %.1f %.1f", x1, y1, c2x, c2y, x2, y2);
    else snprintf(buf, cap, "M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, c1x, c1y, c2x, c2y, x2, y2);
}

/* A label's box on the canvas. */
typedef struct box_t {
    double x0, y0, x1, y1;
} box_t;

static int boxes_overlap(const box_t *a, const box_t *b) {
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Whether box b touches a circle of radius r at (cx, cy). */
static int box_hits_circle(const box_t *b, double cx, double cy, double r) {
    double dx = cx < b->x0 ? b->x0 - cx : cx > b->x1 ? cx - b->x1 : 0.0;
    double dy = cy < b->y0 ? b->y0 - cy : cy > b->y1 ? cy - b->y1 : 0.0;
    return dx * dx + dy * dy < r * r;
}

/* The font size of a name drawn inside a circle of that radius, or 0 when it goes beside the circle:
 * up to 3 characters, at no less than 8 px and within the circle's width less its rim. Three
 * digits scaled to an 8-px circle were 6 px high, unreadable, on every vertex from 100 up of a
 * 250-vertex drawing; at 8 px they overrun that circle, so they go beside it. */
static double inside_px(const char *shown, double radius) {
    const double LABEL_MIN_PX = 8.0;
    const int k = text_chars(shown);
    if (k > 3) return 0.0;
    const double px = fmax(LABEL_MIN_PX, radius * (k <= 2 ? 1.05 : 0.8));
    return text_width(shown, px) <= 2.0 * radius - 2.0 ? px : 0.0;
}

/* Where each name that sits beside its circle goes: right of it, else left of it, else nowhere
 * (its tooltip still has it), so that no name is drawn over another name or over another
 * vertex's circle; on a few hundred vertices names written regardless crossed each other by the
 * dozen. The vertices that receive the most attention are placed first, as the ones a reader
 * looks for; ties by index, so a drawing repeats. side[v]: 1 right, -1 left, 0 hidden (also for
 * names drawn inside their circle, which the caller handles). Returns how many were hidden, or
 * -1 when out of memory. */
static int64_t place_labels(const double *pos, const double *na, const double *wid, int64_t N, double radius,
                            double px, double width, signed char *side) {
    keyed_t *order = malloc(sizeof(keyed_t) * (size_t)(N > 0 ? N : 1)); /* (N) vertices, most attention first */
    box_t *placed = malloc(sizeof(box_t) * (size_t)(N > 0 ? N : 1));   /* (N) the names drawn so far */
    if (!order || !placed) {
        free(order);
        free(placed);
        return -1;
    }
    for (int64_t v = 0; v < N; v++) order[v] = (keyed_t){na[v], v};
    qsort(order, (size_t)N, sizeof *order, by_key_desc);
    int64_t n_placed = 0, hidden = 0;
    for (int64_t i = 0; i < N; i++) {
        int64_t v = order[i].i;
        side[v] = 0;
        if (wid[v] <= 0.0) continue;
        const double x = pos[2 * v], y = pos[2 * v + 1];
        for (int s = 1; s >= -1 && !side[v]; s -= 2) {
            box_t b = {s > 0 ? x + radius + 2 : x - radius - 2 - wid[v], y - 0.75 * px,
                       s > 0 ? x + radius + 2 + wid[v] : x - radius - 2, y + 0.35 * px};
            int ok = b.x0 >= 0.0 && b.x1 <= width;
            for (int64_t k = 0; k < n_placed && ok; k++) ok = !boxes_overlap(&b, &placed[k]);
            for (int64_t u = 0; u < N && ok; u++) ok = u == v || !box_hits_circle(&b, pos[2 * u], pos[2 * u + 1], radius);
            if (ok) {
                side[v] = (signed char)s;
                placed[n_placed++] = b;
            }
        }
        if (!side[v]) hidden++;
    }
    free(order);
    free(placed);
    return hidden;
}

static int write_svg(FILE *f, const igraph_t *ig, const layer_attn_t *la, int layer, const ag_bundle_t *b,
                     ag_task_t task, const float *Y, const char *graph_path) {
    int64_t N = igraph_vcount(ig), E = igraph_ecount(ig), H = la->H, C = b->n_names;
    int directed = igraph_is_directed(ig);
    igraph_matrix_t xy;
    if (igraph_matrix_init(&xy, 0, 0) != IGRAPH_SUCCESS) return -1;
    int rc = -1;
    double *ea = NULL, *na = NULL, *pos = NULL, *wid = NULL, *sw = NULL;
    int64_t *rank = NULL, *copies = NULL; /* (E) each edge's place among the edges joining its ends */
    int *head = NULL;                     /* (E) its arrowhead's size in px, 0 when undirected */
    signed char *lside = NULL;
    int64_t *listed = NULL, n_listed = 0; /* (C) the classes the legend lists */
    int *slot = NULL;                     /* (C) each class's palette slot */
    if (N > 0 && layout(ig, &xy) < 0) goto done;
    ea = malloc((size_t)(E > 0 ? E : 1) * sizeof(double)); /* (E) mean over heads, directions averaged */
    na = calloc((size_t)(N > 0 ? N : 1), sizeof(double));  /* (N) attention received as a source */
    sw = malloc((size_t)(E > 0 ? E : 1) * sizeof(double)); /* (E) stroke widths */
    head = malloc((size_t)(E > 0 ? E : 1) * sizeof(int));
    rank = malloc((size_t)(E > 0 ? E : 1) * sizeof(int64_t));
    copies = malloc((size_t)(E > 0 ? E : 1) * sizeof(int64_t));
    if (!ea || !na || !sw || !head || !rank || !copies || parallel_edges(ig, rank, copies) < 0) goto done;
    double emin = 0.0, emax = 0.0, nmin = 0.0, nmax = 0.0;
    for (int64_t e = 0; e < E; e++) {
        double fw = 0.0, rv = 0.0;
        for (int64_t h = 0; h < H; h++) {
            fw += la->fwd[e * H + h];
            rv += la->rev[e * H + h];
        }
        fw /= (double)H;
        rv /= (double)H;
        ea[e] = directed ? fw : 0.5 * (fw + rv);
        na[IGRAPH_FROM(ig, e)] += fw; /* the to-vertex attends to the from-vertex */
        if (!directed && IGRAPH_FROM(ig, e) != IGRAPH_TO(ig, e)) na[IGRAPH_TO(ig, e)] += rv;
    }
    for (int64_t e = 0; e < E; e++) {
        if (e == 0 || ea[e] < emin) emin = ea[e];
        if (e == 0 || ea[e] > emax) emax = ea[e];
    }
    for (int64_t v = 0; v < N; v++) {
        for (int64_t h = 0; h < H; h++) na[v] += la->self[v * H + h] / (double)H;
    }
    for (int64_t v = 0; v < N; v++) {
        if (v == 0 || na[v] < nmin) nmin = na[v];
        if (v == 0 || na[v] > nmax) nmax = na[v];
    }
    /* Weights that differ only by float32 rounding (benzene's six bonds: 0.2995451 and
     * 0.2995454) are equal: stretched over the whole scale, that noise drew one bond dark red
     * and its twin pale. The legend prints 3 decimals; 1e-4 of the value is far below them. */
    if (emax - emin <= 1e-4 * fabs(emax)) emin = emax;
    if (nmax - nmin <= 1e-4 * fabs(nmax)) nmin = nmax;
    fill_scale_t fs = {task, C, NULL, nmin, nmax};
    if (task == AG_TASK_NODE_REGRESSION) {
        int any = 0;
        for (int64_t v = 0; v < N; v++) {
            const double y = Y[v * C];
            if (!isfinite(y)) continue;
            if (!any || y < fs.lo) fs.lo = y;
            if (!any || y > fs.hi) fs.hi = y;
            any = 1;
        }
        if (!any) fs.lo = fs.hi = 0.0;
        if (fs.hi - fs.lo <= 1e-6 * fmax(fabs(fs.lo), fabs(fs.hi))) fs.lo = fs.hi;
    }
    /* fit the layout into the canvas */
    double minx, maxx, miny, maxy;
    layout_box(&xy, &minx, &maxx, &miny, &maxy);
    double span = fmax(maxx - minx, maxy - miny);
    if (span <= 0) span = 1;
    int lab_numeric = 0;
    const char *lab = label_attr(ig, &lab_numeric);
    double radius = N <= 60 ? 12.0 : N <= 300 ? 8.0 : N <= 2000 ? 4.0 : 2.0;
    double side = N <= 60 ? 560.0 : N <= 300 ? 800.0 : 1200.0, margin = 30.0 + radius, top = 56.0;
    /* Above 300 vertices the square gets the 300-vertex one's area per vertex, up to SIDE_MAX: on
     * a 1200 px square, a 1,500-vertex component of LastFM Asia had a median nearest-neighbour
     * distance of 8.9 px between circles of radius 4 (44% of them overlapping one) beside a
     * 400-vertex component's 20 px; on a growing square, 20.5 px (11%). SIDE_MAX keeps the
     * picture openable: rendered, a 4000 px square is 16 Mpx, 64 MB of RGBA, within the 4096 x
     * 4096 some browsers allow a canvas; LastFM Asia's 7,624 vertices fit it 13 px apart at
     * radius 2 (3.8 px on 1200 px, 54% overlapping). */
    const double SIDE_MAX = 4000.0, grow = N > 300 ? fmin(SIDE_MAX / side, sqrt((double)N / 300.0)) : 1.0;
    side *= grow;
    /* A small drawing (a salt's two ions, a few atoms) stretched to the canvas had bonds of 250 to
     * 480 px and ions at its two ends; a mean edge length (a layout unit without edges, the
     * packing's gap) of at most UNIT_PX keeps it at the scale of larger drawings. The cap grows
     * with the square: Fruchterman-Reingold draws a social graph's pendant edges long (the mean
     * edge 1.1 times the median), and a fixed cap held the 1,500-vertex component above to 1,672
     * px, 13.5 px apart, 23% overlapping. */
    const double UNIT_PX = 120.0 * grow, unit = mean_edge_length(ig, &xy), per = unit > 0.0 ? unit : 1.0;
    double sx = fmin((side - 2 * margin) / span, UNIT_PX / per);
    /* A long molecule fitted to the square canvas had bonds shorter than its circles: hexacosane's
     * 25 bonds in a column, 26 px under 12 px circles, 2 px of each stroke (its attention) seen
     * between them, and a 60-carbon chain pushed apart into a two-column ladder. Below BOND_RADII
     * radii per mean edge length the drawing is turned to lie along the canvas's width and fitted
     * to a canvas twice as wide as the square one (a screen's shape); then its circles shrink, to
     * 8 px (the smallest their letters fit in, as above 60 vertices), and past that the canvas
     * grows, so that a bond shows about 7/8 of a circle's width of stroke. Piribedil's 47 px bonds
     * under 12 px circles, 23 px of stroke, are above the threshold and drawn as before. */
    const double BOND_RADII = 3.75;
    if (N > 1 && sx * per < BOND_RADII * radius) {
        turn_to_principal_axis(&xy);
        layout_box(&xy, &minx, &maxx, &miny, &maxy);
        const double w = fmax(maxx - minx, 1e-9), h = fmax(maxy - miny, 1e-9);
        sx = fmin(fmin((2.0 * side - 2 * margin) / w, (side - 2 * margin) / h), UNIT_PX / per);
        radius = fmin(radius, fmax(fmin(8.0, radius), sx * per / BOND_RADII));
        margin = 30.0 + radius;
        sx = fmax(sx, BOND_RADII * radius / per);
    }
    /* Labels of up to 3 characters (elements, indices) sit inside their circle when they fit there
     * at a readable size (inside_px); longer ones (names) beside it, cut to LABEL_MAX characters,
     * so the canvas gets room on the right. */
    enum { LABEL_MAX = 16 };
    double label_px = N <= 60 ? 11.0 : 9.0, pad = 0.0;
    char text[256], shown[256];
    wid = calloc((size_t)(N > 0 ? N : 1), sizeof(double)); /* (N) width of a name drawn beside, or 0 */
    if (!wid) goto done;
    for (int64_t v = 0; v < N && N <= 300; v++) {
        vertex_label(text, sizeof text, ig, v, lab, lab_numeric);
        shorten(shown, sizeof shown, text, LABEL_MAX);
        if (inside_px(shown, radius) > 0.0) continue;
        wid[v] = text_width(shown, label_px);
        pad = fmax(pad, 3.0 + wid[v]);
    }
    double width = (maxx - minx) * sx + 2 * margin + pad;
    if (width < 600) width = 600;
    /* the title and the caption's lines under it, the canvas as wide as they are */
    char line2[256], line3[768] = "";
    /* --layer and the attribute names count from 0, info's blocks from 1: the header says both */
    int at = snprintf(line2, sizeof line2, "%s model; layer %d (block %d of %d), mean of %lld head%s; ",
                      ag_task_name(task), layer, layer + 1, ag_model_config(b->model)->n_blocks, (long long)H,
                      H == 1 ? "" : "s");
    /* bond orders on molecule-sized drawings only: beside strokes a few pixels apart they would blur */
    /* "bondtype": the key igraph's GML writer gives bond_type (explain's own GML output, say) */
    const char *bonds = NULL;
    for (int i = 0; i < 2 && N <= 300 && !bonds; i++) {
        const char *name = i ? "bondtype" : "bond_type";
        igraph_attribute_type_t t;
        if (igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_EDGE, name) &&
            igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_EDGE, name) == IGRAPH_SUCCESS &&
            t == IGRAPH_ATTRIBUTE_STRING)
            bonds = name;
    }
    int64_t n_marked = 0;
    for (int64_t e = 0; e < E && bonds; e++) n_marked += bond_kind(ig, bonds, e) != BOND_NONE;
    if (E > 0)
        snprintf(line2 + at, sizeof line2 - (size_t)at, "edge width and colour: attention %.3f to %.3f%s", emin, emax,
                 n_marked ? "; thin lines: bond order (dashed: aromatic)" : "");
    else
        snprintf(line2 + at, sizeof line2 - (size_t)at, "no edge to draw");
    if (ag_task_is_graph_level(task)) {
        char pred[512];
        prediction_text(pred, sizeof pred, b, task, Y);
        if (task == AG_TASK_GRAPH_MULTITASK && !strcmp(pred, "-")) {
            /* the attribute's "-" is for programs; a reader of the picture wants the nearest miss */
            int64_t c = cli_argmax(Y, b->n_names);
            snprintf(line3, sizeof line3, "no task predicted positive (highest: %s, p %.3f)", b->names[c], Y[c]);
        } else {
            snprintf(line3, sizeof line3, "%s%s", task == AG_TASK_GRAPH_MULTITASK ? "tasks predicted positive: "
                                                                                  : "prediction: ", pred);
        }
        at = (int)strlen(line3);
        snprintf(line3 + at, sizeof line3 - (size_t)at, "; node colour: attention received, %.3f to %.3f", nmin, nmax);
    } else if (task == AG_TASK_NODE_REGRESSION) {
        char of[64] = "";
        if (C > 1) snprintf(of, sizeof of, " (the first of %lld targets)", (long long)C);
        snprintf(line3, sizeof line3, "node colour: predicted %s%s", b->names[0], of);
    }
    /* node regression: a colour bar after the third line, its ends labelled with the range */
    enum { BAR_W = 120 };
    char bar_lo[32], bar_hi[32];
    snprintf(bar_lo, sizeof bar_lo, "%.4g", fs.lo);
    snprintf(bar_hi, sizeof bar_hi, "%.4g", fs.hi);
    const double lo_x = 18.0 + text_width(line3, 11.0), bar_x = lo_x + 4.0 + text_width(bar_lo, 11.0);
    if (task == AG_TASK_NODE_REGRESSION) width = fmax(width, bar_x + BAR_W + 10.0 + text_width(bar_hi, 11.0) + 10.0);
    width = fmax(width, fmax(20.0 + text_width(line2, 11.0), 20.0 + text_width(line3, 11.0)));
    width = fmax(width, 20.0 + text_width(graph_path, 14.0));
    /* The class legend runs after the caption on the third line and wraps at the canvas's width:
     * each row moves the drawing down. */
    enum { LEGEND_MAX = 20, LEGEND_NAME_MAX = 24 };
    double legend_x0 = 185.0, row_h = 16.0;
    char more[128] = "";
    int legend_rows = 1, cut_middle = 0;
    if (task == AG_TASK_NODE_CLASSIFICATION) {
        listed = malloc(sizeof(int64_t) * (size_t)C);
        slot = malloc(sizeof(int) * (size_t)C);
        if (!listed || !slot) goto done;
        n_listed = legend_classes(Y, N, C, LEGEND_MAX, listed, slot);
        fs.slot = slot;
        cut_middle = legend_cut_middle(b, listed, n_listed < LEGEND_MAX ? n_listed : LEGEND_MAX, LEGEND_NAME_MAX);
        legend_more(more, sizeof more, C, n_listed, LEGEND_MAX);
        double x = legend_x0;
        for (int64_t i = 0; i < n_listed && i < LEGEND_MAX; i++) {
            (cut_middle ? shorten_middle : shorten)(shown, sizeof shown, b->names[listed[i]], LEGEND_NAME_MAX);
            double w = 24.0 + text_width(shown, 11.0);
            if (x > 10.0 && x + w > width - 10.0) {
                legend_rows++;
                x = 10.0;
            }
            x += w;
        }
        if (more[0] && x > 10.0 && x + text_width(more, 11.0) > width - 10.0) legend_rows++;
        top += row_h * (legend_rows - 1);
    }
    double height = (maxy - miny) * sx + 2 * margin + top;
    double offx = (width - pad - (maxx - minx) * sx) / 2;
    pos = malloc(sizeof(double) * 2 * (size_t)(N > 0 ? N : 1)); /* (N x 2) canvas x, y */
    if (!pos) goto done;
    for (int64_t v = 0; v < N; v++) {
        pos[2 * v] = (MATRIX(xy, v, 0) - minx) * sx + offx;
        pos[2 * v + 1] = (MATRIX(xy, v, 1) - miny) * sx + margin + top;
    }
    if (N <= 300)
        separate(pos, N, 2 * radius + 2, radius + 2, width - pad - radius - 2, top + radius + 2, height - radius - 2);
    /* names beside their circle: placed where they cross nothing, the others left to tooltips */
    lside = calloc((size_t)(N > 0 ? N : 1), 1); /* (N) 1 right, -1 left, 0 none */
    int64_t hidden = 0;
    if (!lside || (hidden = place_labels(pos, na, wid, N, radius, label_px, width, lside)) < 0) goto done;
    if (hidden > 0) height += 16.0; /* a line under the drawing says why names are missing */
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"DejaVu Sans, Arial, sans-serif\">\n", width, height, width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    char col[16];
    fputs("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", f);
    xml_text(f, graph_path);
    fputs("</text>\n<text x=\"10\" y=\"38\" font-size=\"11\">", f);
    xml_text(f, line2);
    fputs("</text>\n", f);
    if (ag_task_is_graph_level(task) || task == AG_TASK_NODE_REGRESSION) {
        fputs("<text x=\"10\" y=\"52\" font-size=\"11\">", f);
        xml_text(f, line3);
        fputs("</text>\n", f);
    }
    if (task == AG_TASK_NODE_REGRESSION) {
        fputs("<defs><linearGradient id=\"valuemap\">", f);
        for (int k = 0; k < N_VALUE_STOPS; k++) {
            value_colour(col, sizeof col, (double)k / (N_VALUE_STOPS - 1));
            fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", 100 * k / (N_VALUE_STOPS - 1), col);
        }
        fprintf(f, "</linearGradient></defs>\n<text x=\"%.1f\" y=\"52\" font-size=\"11\">%s</text>"
                   "<rect x=\"%.1f\" y=\"43\" width=\"%d\" height=\"10\" fill=\"url(#valuemap)\" stroke=\"#333333\" "
                   "stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"52\" font-size=\"11\">%s</text>\n",
                lo_x, bar_lo, bar_x, (int)BAR_W, bar_x + BAR_W + 4.0, bar_hi);
    } else if (task == AG_TASK_NODE_CLASSIFICATION) {
        double x = legend_x0, y = 52.0;
        fputs("<text x=\"10\" y=\"52\" font-size=\"11\">node colour: predicted class</text>\n", f);
        for (int64_t i = 0; i < n_listed && i < LEGEND_MAX; i++) {
            const int64_t c = listed[i];
            (cut_middle ? shorten_middle : shorten)(shown, sizeof shown, b->names[c], LEGEND_NAME_MAX);
            double w = 24.0 + text_width(shown, 11.0);
            if (x > 10.0 && x + w > width - 10.0) {
                x = 10.0;
                y += row_h;
            }
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>", x + 5, y - 4,
                    PALETTE[slot[c]]);
            xml_text(f, b->names[c]);
            fprintf(f, "</title></circle><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 13, y);
            xml_text(f, shown);
            fputs("</text>\n", f);
            x += w;
        }
        if (more[0]) {
            if (x > 10.0 && x + text_width(more, 11.0) > width - 10.0) {
                x = 10.0;
                y += row_h;
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555555\">%s</text>\n", x, y, more);
        }
    }
    /* Stroke widths first: the arrowheads are sized by them. A 9 px arrowhead vanished under a
     * stroke of up to 7.5 px; one 2.5 strokes wide (9 px at the least), in whole pixels, keeps a
     * few markers for the file. */
    enum { HEAD_MIN = 9, HEAD_MAX = 24 };
    int heads_used[HEAD_MAX + 1] = {0};
    for (int64_t e = 0; e < E; e++) {
        double t = emax > emin ? (ea[e] - emin) / (emax - emin) : 0.5;
        sw[e] = (N <= 300 ? 1.5 : 0.5) + (N <= 300 ? 6.0 : 2.0) * t;
        head[e] = directed ? (int)fmin(HEAD_MAX, fmax(HEAD_MIN, ceil(2.5 * sw[e]))) : 0;
        heads_used[head[e]] = 1;
    }
    if (directed && E > 0) {
        /* arrowheads where the edges end: a directed edge u->v means v attends to u */
        fputs("<defs>", f);
        for (int px = HEAD_MIN; px <= HEAD_MAX; px++)
            if (heads_used[px])
                fprintf(f, "<marker id=\"arrow%d\" viewBox=\"0 0 10 10\" refX=\"4\" refY=\"5\" "
                           "markerUnits=\"userSpaceOnUse\" markerWidth=\"%d\" markerHeight=\"%d\" orient=\"auto\">"
                           "<polygon points=\"0,0 10,5 0,10\" fill=\"#555555\"/></marker>", px, px, px);
        fputs("</defs>\n", f);
    }
    char d[160], marker[40] = "";
    fputs("<g stroke-linecap=\"round\" fill=\"none\">\n", f);
    for (int64_t e = 0; e < E; e++) {
        int64_t u = IGRAPH_FROM(ig, e), v = IGRAPH_TO(ig, e);
        blend(col, sizeof col, EDGE_LO, EDGE_HI, emax > emin ? (ea[e] - emin) / (emax - emin) : 0.5);
        /* copies bent apart by more than the widest stroke (7.5 px, or 2.5 above 300 vertices) */
        edge_path(d, sizeof d, ig, pos, e, rank[e], copies[e], radius, N <= 300 ? 10.0 : 4.0, head[e]);
        if (directed) snprintf(marker, sizeof marker, " marker-end=\"url(#arrow%d)\"", head[e]);
        fprintf(f, "<path d=\"%s\" stroke=\"%s\" stroke-width=\"%.2f\"%s><title>%lld%s%lld: %.4f</title></path>\n", d,
                col, sw[e], marker, (long long)u, directed ? "->" : "-", (long long)v, ea[e]);
        /* clear of the widest stroke (7.5 px); beside straight strokes only */
        if (n_marked && copies[e] == 1 && u != v) bond_marks(f, ig, pos, u, v, bond_kind(ig, bonds, e), radius, 6.0);
    }
    /* The circles' outline is 1 px, but a quarter of the radius on the 2-px circles above 2000
     * vertices: there a 1-px outline covered half the radius, and a class's colour showed as a
     * dot of 1.5 px inside dark grey (3,000 vertices in 6 classes: red and brown classes alike) */
    fprintf(f, "</g>\n<g stroke=\"#333333\" stroke-width=\"%g\">\n", fmin(1.0, radius / 4.0));
    for (int64_t v = 0; v < N; v++) {
        double x = pos[2 * v], y = pos[2 * v + 1];
        vertex_fill(col, sizeof col, &fs, ag_task_is_graph_level(task) ? NULL : Y + v * C, na[v]);
        vertex_label(text, sizeof text, ig, v, lab, lab_numeric);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>", x, y, radius, col);
        xml_text(f, text);
        fprintf(f, " (vertex %lld): attention received %.3f", (long long)v, na[v]);
        if (task == AG_TASK_NODE_REGRESSION || task == AG_TASK_NODE_CLASSIFICATION) {
            prediction_text(text, sizeof text, b, task, Y + v * C);
            fputs("; predicted ", f);
            xml_text(f, text);
        }
        fputs("</title></circle>\n", f);
    }
    /* names after every circle, so that no later circle covers one */
    for (int64_t v = 0; v < N && N <= 300; v++) {
        double x = pos[2 * v], y = pos[2 * v + 1];
        vertex_label(text, sizeof text, ig, v, lab, lab_numeric);
        shorten(shown, sizeof shown, text, LABEL_MAX);
        if (wid[v] <= 0.0) {
            vertex_fill(col, sizeof col, &fs, ag_task_is_graph_level(task) ? NULL : Y + v * C, na[v]);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"middle\" stroke=\"none\" fill=\"%s\">",
                    x, y + radius * 0.38, inside_px(shown, radius), is_dark(col) ? "white" : "black");
        } else if (lside[v]) { /* beside the circle, on a white halo so that edges do not cross it out */
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\"%s stroke=\"white\" stroke-width=\"3\" "
                       "paint-order=\"stroke\" fill=\"#222222\">",
                    lside[v] > 0 ? x + radius + 2 : x - radius - 2, y + label_px * 0.35, label_px,
                    lside[v] > 0 ? "" : " text-anchor=\"end\"");
        } else {
            continue;
        }
        xml_text(f, shown);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
    if (hidden > 0)
        fprintf(f, "<text x=\"10\" y=\"%.0f\" font-size=\"11\" fill=\"#555555\">%lld name%s not written where %s "
                   "would cross another name or a vertex (each vertex's tooltip has its name)</text>\n",
                height - 8.0, (long long)hidden, hidden == 1 ? "" : "s", hidden == 1 ? "it" : "they");
    fputs("</svg>\n", f);
    rc = ferror(f) ? -1 : 0;
done:
    free(sw);
    free(head);
    free(rank);
    free(copies);
    free(listed);
    free(slot);
    free(wid);
    free(lside);
    free(pos);
    free(ea);
    free(na);
    igraph_matrix_destroy(&xy);
    return rc;
}

int ag_cmd_explain(int argc, char **argv) {
    cli_graph_opts_t o;
    cli_graph_opts_init(&o);
    const char *svg_path = NULL;
    int64_t layer = -1;
    cli_smooth_t smooth; /* node classification: the predictions as 'attn-graph label' makes them */
    cli_smooth_init(&smooth);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            explain_usage(stdout);
            return AG_EXIT_OK;
        }
        int r = cli_graph_option(&o, CMD, argc, argv, &i);
        if (r == 0) r = cli_smooth_option(CMD, argc, argv, &i, &smooth, 1);
        if (r == 0 && (r = cli_opt(CMD, "--svg", argc, argv, &i, &v)) > 0) svg_path = v;
        else if (r == 0 && (r = cli_opt(CMD, "--layer", argc, argv, &i, &v)) > 0) {
            /* any integer: its range is the model's, said below with the model's layers */
            if (cli_int(CMD, "--layer", v, INT_MIN, INT_MAX, &layer) < 0) r = -1;
        }
        if (r == 0) fprintf(stderr, "attn-graph: explain: unknown option '%s' (see 'attn-graph explain --help')\n", a);
        if (r <= 0) return AG_EXIT_USAGE;
    }
    if (!o.graph_path || !o.out_path) {
        fprintf(stderr, "attn-graph: explain: give GRAPH and -o OUT (see 'attn-graph explain --help')\n");
        return AG_EXIT_USAGE;
    }
    int code = cli_graph_opts_check(&o, CMD);
    if (code) return code;
    cli_out_kind_t kind = cli_out_kind(o.out_path);
    if (kind != CLI_OUT_GML && kind != CLI_OUT_GRAPHML) {
        fprintf(stderr, "attn-graph: explain: -o %s: give a .gml or .graphml (or .xml) file\n", o.out_path);
        return AG_EXIT_USAGE;
    }
    if (svg_path && !cli_ends_with_ci(svg_path, ".svg")) {
        fprintf(stderr, "attn-graph: explain: --svg %s: give a .svg file (the drawing is SVG)\n", svg_path);
        return AG_EXIT_USAGE;
    }
    const char *const outs[2] = {o.out_path, svg_path};
    static const char *const out_names[2] = {"-o", "--svg"};
    const char *const ins[3] = {o.graph_path, o.model_path, o.table_path};
    static const char *const in_names[3] = {"the graph read", "--model", "--node-table"};
    code = cli_check_outputs(CMD, outs, out_names, 2, ins, in_names, 3);
    if (code) return code;
    cli_prediction_t p;
    code = cli_prediction_load(&p, &o, CMD, "tox21.safetensors");
    if (code) return code;
    const ag_model_config_t *mc = ag_model_config(p.b.model);
    ag_task_t task = mc->task;
    int L = mc->n_blocks;
    if (layer >= L || layer < -1) {
        fprintf(stderr, "attn-graph: explain: --layer %lld: %s has layers 0 to %d\n", (long long)layer, o.model_path,
                L - 1);
        cli_prediction_destroy(&p);
        return AG_EXIT_USAGE;
    }
    if (layer < 0) layer = L - 1;
    if (p.b.n_members > 1)
        fprintf(stderr, "attn-graph: explain: note: %s is an ensemble of %lld models; the attention weights are its "
                "first member's\n", o.model_path, (long long)p.b.n_members);
    layer_attn_t la[AG_MODEL_MAX_BLOCKS];
    memset(la, 0, sizeof la);
    code = cli_smooth_check(CMD, &smooth, task);
    if (code == AG_EXIT_OK) code = cli_prediction_run(&p, &o, CMD);
    if (code == AG_EXIT_OK && cli_smooth_wanted(&smooth, &p.b)) code = cli_prediction_smooth(&p, &o, &smooth, CMD);
    for (int l = 0; l < L && code == AG_EXIT_OK; l++) code = map_layer(p.b.model, &p.run.batch, l, &p.ig, &la[l]);
    if (code == AG_EXIT_OK) {
        cli_igraph_catch();
        int bad = 0;
        for (int l = 0; l < L && !bad; l++) bad = set_layer_attributes(&p.ig, &la[l], l) < 0;
        char pred[512];
        if (!bad && ag_task_is_graph_level(task)) {
            prediction_text(pred, sizeof pred, &p.b, task, p.run.Y);
            cli_attr_remove(&p.ig, IGRAPH_ATTRIBUTE_GRAPH, "pred");
            bad = SETGAS(&p.ig, "pred", pred) != IGRAPH_SUCCESS;
        } else if (!bad && task == AG_TASK_NODE_REGRESSION) {
            /* the first target (a node-regression model trained by the program has one) */
            cli_attr_remove(&p.ig, IGRAPH_ATTRIBUTE_VERTEX, "pred");
            for (int64_t v = 0; v < p.run.rows && !bad; v++)
                bad = SETVAN(&p.ig, "pred", v, p.run.Y[v * p.b.n_names]) != IGRAPH_SUCCESS;
        } else if (!bad && task == AG_TASK_NODE_CLASSIFICATION) {
            cli_attr_remove(&p.ig, IGRAPH_ATTRIBUTE_VERTEX, "pred");
            for (int64_t v = 0; v < p.run.rows && !bad; v++)
                bad = SETVAS(&p.ig, "pred", v, p.b.names[cli_argmax(p.run.Y + v * p.b.n_names, p.b.n_names)]) !=
                      IGRAPH_SUCCESS;
        }
        if (bad) {
            fprintf(stderr, "attn-graph: explain: cannot set attributes: %s\n", cli_igraph_message());
            code = AG_EXIT_FAILURE;
        }
        cli_attr_replaced_warn(CMD, o.graph_path);
    }
    /* The drawing is made first, into a temporary file: a drawing that fails leaves no -o file
     * behind either, so the command writes both of its outputs or neither. */
    cli_atomic_t svg;
    int svg_open = 0;
    if (code == AG_EXIT_OK && svg_path) {
        cli_igraph_catch();
        svg_open = cli_atomic_open(&svg, CMD, svg_path) == 0;
        if (!svg_open) code = AG_EXIT_FAILURE;
        else if (write_svg(svg.f, &p.ig, &la[layer], (int)layer, &p.b, task, p.run.Y, cli_shown_path(o.graph_path)) < 0) {
            fprintf(stderr, "attn-graph: explain: cannot draw %s: %s\n", svg_path, cli_igraph_message());
            code = AG_EXIT_FAILURE;
        }
    }
    if (code == AG_EXIT_OK) code = cli_write_graph_file(CMD, &p.ig, kind, o.out_path);
    if (svg_open) {
        if (code != AG_EXIT_OK) cli_atomic_abort(&svg);
        else if (cli_atomic_commit(&svg, CMD) < 0) code = AG_EXIT_FAILURE;
    }
    for (int l = 0; l < L; l++) layer_attn_free(&la[l]);
    cli_prediction_destroy(&p);
    return code;
}
