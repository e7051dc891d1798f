/*
 * graph_read_limit.c: the vertex count a text graph file asks igraph to build, found by a cheap
 * scan before igraph parses the file, and refused when its memory exceeds the read limit.
 *
 * Why: in the formats whose vertices are numbers, a few bytes declare any number of vertices (the
 * 10-byte edge list "21474831 0" makes 21 million, Pajek's "*Vertices N", DIMACS's "p max N E" and
 * DL's "n=N" likewise), and igraph allocates them all before our code sees the graph. NCOL and
 * LGL name their vertices and GML and GraphML list them, so their vertex count is bounded by the
 * file's size and they are not scanned.
 *
 * The scan must never count fewer vertices than igraph builds (measured on igraph 0.10.2):
 * - edge list: every integer token is a 0-based vertex id, so max id + 1 vertices;
 * - Pajek: the count of "*Vertices N" (edges naming a larger id are refused by igraph);
 * - DIMACS: the count of the "p" line and every vertex id of "a", "e" and "n" lines (ids above
 *   the declared count silently add vertices);
 * - DL: "n = N" in the header (before "data:" or "labels:"); larger ids are refused by igraph.
 * It may count more on malformed files (which igraph refuses anyway); tokens that are not
 * integers are left to igraph's parser.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "graph_read_limit.h"
#include "attngraph/train.h"
#include "internal.h"

/* 0: MemAvailable at the time of each read; > 0: bytes; < 0: no limit. */
static _Atomic int64_t read_limit = 0;

int64_t ag_graph_read_set_max_memory(int64_t bytes) { return atomic_exchange(&read_limit, bytes); }

static void format_size(char *buf, size_t n, int64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) snprintf(buf, n, "%lld B", (long long)bytes);
    else snprintf(buf, n, "%.1f %s", v, units[u]);
}

int ag_i_read_limit_exceeded(int64_t need, int overflow, ag_read_limit_text_t *t) {
    int64_t limit = atomic_load(&read_limit);
    t->from = "set by --max-memory or ag_graph_read_set_max_memory()";
    if (limit == 0) {
        limit = ag_memory_available();
        t->from = "the available memory (MemAvailable)";
    }
    if (limit < 0 || (!overflow && need <= limit)) return 0;
    if (overflow) {
        snprintf(t->need, sizeof t->need, "more than 8 EiB");
    } else {
        memcpy(t->need, "about ", 6);
        format_size(t->need + 6, sizeof t->need - 6, need);
    }
    format_size(t->limit, sizeof t->limit, limit);
    return 1;
}

#define TOK_MAX 32

typedef struct scan_t {
    ag_graph_vertex_scan_t *out;
    ag_format_t format;
    int64_t line;           /* 1-based line of the current token */
    int tok_index;          /* index of the current token in its line */
    char first[TOK_MAX];    /* the line's first token (lower case, truncated) */
    char prev[TOK_MAX];     /* the previous token (DL: "n" "=" N) */
    char prev2[TOK_MAX];
    int dl_done;            /* DL: past the header */
    int comment;            /* edge list: the line is a comment */
    int64_t fields;         /* edge list: the line's fields so far */
} scan_t;

/* The value of an integer token ("+7", "007", "-3"), saturated at INT64_MAX; -1 if the token is
 * not an integer or is negative. */
static int64_t token_value(const char *t, int truncated) {
    const char *p = t;
    if (*p == '+' || *p == '-') p++;
    if (!*p) return -1;
    for (const char *c = p; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    if (t[0] == '-') {
        for (const char *c = p; *c; c++)
            if (*c != '0') return -1;
        return 0;
    }
    if (truncated) return INT64_MAX;
    int64_t v = 0;
    for (const char *c = p; *c; c++) {
        int d = *c - '0';
        if (v > (INT64_MAX - d) / 10) return INT64_MAX;
        v = v * 10 + d;
    }
    return v;
}

/* Is the token an integer ("+7", "-3")? */
static int is_integer(const char *t) {
    const char *p = t + (*t == '+' || *t == '-');
    if (!*p) return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

/* Records that vertices count (from the token text t) are asked for at the current line. */
static void note(scan_t *s, int64_t count, const char *t, const char *what) {
    if (count <= s->out->vertices) return;
    s->out->vertices = count;
    s->out->line = s->line;
    snprintf(s->out->token, sizeof s->out->token, "%s", t);
    s->out->what = what;
}

static void token(scan_t *s, const char *t, int truncated) {
    char low[TOK_MAX];
    size_t i = 0;
    for (; t[i] && i + 1 < sizeof low; i++) low[i] = (char)tolower((unsigned char)t[i]);
    low[i] = '\0';
    if (s->tok_index == 0) snprintf(s->first, sizeof s->first, "%s", low);
    int64_t v;
    switch (s->format) {
    case AG_FORMAT_EDGELIST:
        if (s->tok_index == 0 && (t[0] == '#' || t[0] == '%')) {
            s->comment = 1;
            s->out->comment_lines++;
        }
        if (s->comment) break;
        s->fields++;
        v = token_value(t, truncated);
        if (v >= 0) note(s, v == INT64_MAX ? v : v + 1, t, "vertex id");
        /* igraph's parse error names neither the line nor the token: the read error does (a
         * negative id is refused only once every token is read, so it is not the one) */
        if (v < 0 && !is_integer(t) && !s->out->bad_line) {
            s->out->bad_line = s->line;
            s->out->bad_first = s->out->vertices == 0;
            s->out->bad_field = s->fields - 1;
            snprintf(s->out->bad_token, sizeof s->out->bad_token, "%s", t);
        } else if (s->out->bad_line && s->line > s->out->bad_line) {
            /* what follows the bad line tells a header line (ids only after it) from names */
            if (v >= 0 || is_integer(t)) s->out->ids_after++;
            else s->out->bad_after++;
        }
        break;
    case AG_FORMAT_PAJEK:
        if (s->tok_index == 0) ag_i_pajek_sections_line(&s->out->pajek, t, strlen(t));
        if (s->tok_index == 1 && !strcmp(s->first, "*vertices") && (v = token_value(t, truncated)) >= 0)
            note(s, v, t, "*Vertices");
        break;
    case AG_FORMAT_DL:
        if (s->dl_done) break;
        if (!strcmp(low, "data:") || !strcmp(low, "labels:")) {
            s->dl_done = 1;
            break;
        }
        if (!strcmp(s->prev, "=") && !strcmp(s->prev2, "n") && (v = token_value(t, truncated)) >= 0)
            note(s, v, t, "n=");
        snprintf(s->prev2, sizeof s->prev2, "%s", s->prev);
        snprintf(s->prev, sizeof s->prev, "%s", low);
        break;
    default: break;
    }
    s->tok_index++;
}

/* At the end of a line: an edge list's line holds whole pairs, or a later edge is made of the
 * wrong fields. */
static void end_line(scan_t *s) {
    if (s->format == AG_FORMAT_EDGELIST && !s->comment && s->fields % 2 != 0 && !s->out->odd_line) {
        s->out->odd_line = s->line;
        s->out->odd_fields = s->fields;
    }
    s->comment = 0;
    s->fields = 0;
}

int ag_i_graph_format_scanned(ag_format_t format) {
    return format == AG_FORMAT_EDGELIST || format == AG_FORMAT_PAJEK || format == AG_FORMAT_DIMACS ||
           format == AG_FORMAT_DL;
}

/* igraph's DIMACS reader is scanf-based: each line's type is the first of two characters read with
 * "%2c" (so "a2147483647 1 2" is an arc from 147483647), then each type reads its fields with
 * scanf conversions that skip newlines, then the rest of the line is skipped. A record may thus
 * take fields from the lines after it, and where the next record starts depends on how many
 * fields its type reads: "n 5" then "s" in a max problem is one record ("%ld %1s": the 's' is
 * the node's role), and reading fewer fields here would take the "s" line for a record of its own,
 * skip the line after it and miss the vertex ids there (an arc to vertex 147483647 slipped past
 * this scan that way; found by fuzz_graph_text). So each type reads exactly igraph's fields:
 *   p: "%20s %ld %ld"   (problem, vertices, edges)
 *   n: "%ld %1s" in a max problem (id, role), "%ld %ld" otherwise (id, label)
 *   a: "%ld %ld %lf"    (from, to, capacity)
 *   e: "%ld %ld"        (from, to)
 * Vertices igraph builds: the 'p' count and every endpoint of 'a' and 'e' records (larger ids add
 * vertices); 'n' ids are counted too, which can only over-count. */
static void scan_dimacs(FILE *f, scan_t *s) {
    char prob[21] = "";
    int max_problem = 0;
    for (;;) {
        char str[2];
        const long start = ftell(f);
        int read = fscanf(f, "%2c", str);
        if (read != 1) return;
        long a = -1, b = -1, c = -1;
        int ids = 0; /* how many of a, b are vertex ids */
        char role[2];
        double cap;
        switch (str[0]) {
        case 'p':
            if (fscanf(f, "%20s %ld %ld", prob, &a, &c) >= 2 && a >= 0) {
                char t[32];
                snprintf(t, sizeof t, "%ld", a);
                note(s, a, t, "'p' line vertex count");
            }
            max_problem = !strcmp(prob, "max");
            break;
        case 'n':
            if (max_problem) read = fscanf(f, "%ld %1s", &a, role);
            else read = fscanf(f, "%ld %ld", &a, &b);
            ids = read >= 1;
            break;
        case 'a': read = fscanf(f, "%ld %ld %lf", &a, &b, &cap); ids = read >= 2 ? 2 : read; break;
        case 'e': read = fscanf(f, "%ld %ld", &a, &b); ids = read >= 2 ? 2 : read; break;
        default: break;
        }
        long id[2] = {a, b};
        for (int k = 0; k < ids; k++)
            if (id[k] > 0) {
                char t[32];
                snprintf(t, sizeof t, "%ld", id[k]);
                note(s, id[k], t, "vertex id");
            }
        int ch;
        while ((ch = getc(f)) != EOF && ch != '\n') {
        }
        /* the record may have spanned lines (a newline read by "%2c" or skipped by a conversion):
         * count them by reading the record again, so that the next record's line is right */
        const long end = ftell(f);
        if (start < 0 || end < start || fseek(f, start, SEEK_SET) != 0) return;
        for (long i = start; i < end; i++)
            if (getc(f) == '\n') s->line++;
        if (ch == EOF) return;
    }
}

void ag_i_graph_scan_vertices(FILE *f, ag_format_t format, ag_graph_vertex_scan_t *out) {
    memset(out, 0, sizeof *out);
    scan_t s;
    memset(&s, 0, sizeof s);
    s.out = out;
    s.format = format;
    s.line = 1;
    /* ag_graph_read skips a UTF-8 byte-order mark before igraph parses: skipped here too, it would
     * otherwise glue itself to the first token and hide the first line's count (an edge list's
     * first id, Pajek's *Vertices) from the limit */
    unsigned char bom[3];
    const size_t got = fread(bom, 1, sizeof bom, f);
    if (!ag_i_bom_length(bom, got) && fseek(f, 0, SEEK_SET) != 0) return;
    if (format == AG_FORMAT_DIMACS) {
        scan_dimacs(f, &s);
        return;
    }
    char tok[TOK_MAX];
    size_t len = 0;
    int truncated = 0;
    unsigned char buf[1 << 14];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < n; i++) {
            unsigned char c = buf[i];
            /* DL separates "n=5" without spaces; '=' and ',' are tokens of their own there */
            int sep = isspace(c) || (format == AG_FORMAT_DL && (c == '=' || c == ','));
            if (!sep) {
                if (len + 1 < sizeof tok) tok[len++] = (char)c;
                else truncated = 1;
                continue;
            }
            if (len) {
                tok[len] = '\0';
                token(&s, tok, truncated);
                len = 0;
                truncated = 0;
            }
            if (format == AG_FORMAT_DL && c == '=') token(&s, "=", 0);
            if (c == '\n') {
                end_line(&s);
                s.line++;
                s.tok_index = 0;
                s.first[0] = '\0';
            }
        }
    }
    if (len) {
        tok[len] = '\0';
        token(&s, tok, truncated);
    }
    end_line(&s);
}

ag_error_t ag_i_graph_check_vertices(const char *name, ag_format_t format, const ag_graph_vertex_scan_t *scan) {
    if (scan->vertices == 0) return AG_SUCCESS;
    int64_t need;
    const int overflow = ag_i_mul_overflow(scan->vertices, AG_GRAPH_READ_VERTEX_BYTES, &need);
    ag_read_limit_text_t t;
    if (!ag_i_read_limit_exceeded(need, overflow, &t)) return AG_SUCCESS;
    char count_s[48];
    if (scan->vertices == INT64_MAX) snprintf(count_s, sizeof count_s, "more than 9223372036854775806");
    else snprintf(count_s, sizeof count_s, "%lld", (long long)scan->vertices);
    const char *fix;
    switch (format) {
    case AG_FORMAT_EDGELIST:
        fix = "edge-list vertex ids are 0-based and every id up to the largest is a vertex: renumber the vertices "
              "from 0, or use NCOL for named vertices";
        break;
    case AG_FORMAT_DIMACS: fix = "correct the vertex count of the 'p' line or the vertex ids"; break;
    case AG_FORMAT_PAJEK: fix = "correct the count of *Vertices"; break;
    default: fix = "correct n= in the header"; break;
    }
    return AG_ERROR(AG_EREADLIMIT,
                    "%s:%lld: %s%s%s makes igraph build %s vertices, %s (%d bytes each), over the limit of %s "
                    "(%s); %s, or raise the limit (--max-memory)",
                    name, (long long)scan->line, scan->what, scan->what[strlen(scan->what) - 1] == '=' ? "" : " ",
                    scan->token, count_s, t.need, AG_GRAPH_READ_VERTEX_BYTES, t.limit, t.from, fix);
}
