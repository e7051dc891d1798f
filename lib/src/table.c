/*
 * table.c: node feature tables (CSV/TSV, whitespace, sparse) aligned to a graph's vertices.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "attngraph/table.h"
#include "attr_type.h"
#include "csv.h"
#include "graph_read_limit.h"
#include "internal.h"

/* Records the first failure and jumps to the cleanup at `done`. */
#define TRY(expr) do { rc = (expr); if (rc != AG_SUCCESS) goto done; } while (0)

void ag_table_options_init(ag_table_options_t *opts) {
    memset(opts, 0, sizeof *opts);
    opts->format = AG_TABLE_AUTO;
}

/* Whether a and b differ only in ASCII case and in spaces around them: ' Income' for 'income', a
 * near miss worth naming when a column is not found. */
static int near_name(const char *a, const char *b) {
    while (*a == ' ') a++;
    while (*b == ' ') b++;
    size_t na = strlen(a), nb = strlen(b);
    while (na > 0 && a[na - 1] == ' ') na--;
    while (nb > 0 && b[nb - 1] == ' ') nb--;
    return na == nb && strncasecmp(a, b, na) == 0;
}

ag_error_t ag_node_table_select(ag_node_table_t *table, const char *const *columns, int64_t n, int *moved) {
    if (moved) *moved = 0;
    if (!table || (!columns && n > 0) || n < 0) return AG_ERROR(AG_EINVAL, "ag_node_table_select: NULL argument");
    if (!table->columns) return AG_ERROR(AG_EINVAL, "ag_node_table_select: the table has no column names");
    const int64_t N = table->features.rows, W = table->features.cols;
    int64_t *from = NULL; /* (n) the table's column of each name */
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n > 0 ? n : 1, sizeof(int64_t), "column order"));
    from = p;
    int change = n != W;
    for (int64_t j = 0; j < n; j++) {
        from[j] = -1;
        for (int64_t k = 0; k < W && from[j] < 0; k++)
            if (columns[j] && !strcmp(columns[j], table->columns[k])) from[j] = k;
        if (from[j] < 0) {
            ag_i_free(from);
            int64_t near = -1;
            for (int64_t k = 0; columns[j] && k < W && near < 0; k++)
                if (near_name(columns[j], table->columns[k])) near = k;
            if (near >= 0)
                return AG_ERROR(AG_EVALUE, "the node table has no column '%s' (it has '%s', which differs in case or spaces)",
                                columns[j], table->columns[near]);
            return AG_ERROR(AG_EVALUE, "the node table has no column '%s'", columns[j] ? columns[j] : "(null)");
        }
        change |= from[j] != j;
    }
    ag_error_t rc = AG_SUCCESS;
    if (change) {
        ag_fmat_t X = {0};
        char **names = NULL;
        rc = ag_fmat_init(&X, N, n);
        if (rc == AG_SUCCESS) rc = ag_i_alloc_array(&p, n > 0 ? n : 1, sizeof(char *), "column names");
        if (rc == AG_SUCCESS) names = p;
        for (int64_t j = 0; rc == AG_SUCCESS && j < n; j++)
            if (!(names[j] = ag_i_strdup(table->columns[from[j]]))) rc = AG_ERROR(AG_ENOMEM, "out of memory");
        if (rc == AG_SUCCESS) {
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < n; j++) X.data[i * n + j] = table->features.data[i * W + from[j]];
            for (int64_t k = 0; k < W; k++) ag_i_free(table->columns[k]);
            ag_i_free(table->columns);
            table->columns = names;
            ag_fmat_destroy(&table->features);
            table->features = X;
        } else {
            ag_i_strings_free(names, n);
            ag_fmat_destroy(&X);
        }
    }
    ag_i_free(from);
    if (rc == AG_SUCCESS && moved) *moved = change;
    return rc;
}

void ag_node_table_destroy(ag_node_table_t *table) {
    if (!table) return;
    int64_t n = table->features.rows, f = table->features.cols;
    if (table->columns)
        for (int64_t j = 0; j < f; j++) ag_i_free(table->columns[j]);
    if (table->labels)
        for (int64_t v = 0; v < n; v++) ag_i_free(table->labels[v]);
    ag_i_free(table->columns);
    ag_i_free(table->labels);
    ag_fmat_destroy(&table->features);
    table->columns = table->labels = NULL;
}

/* ---- Matching ids to vertices: the vertex attribute's values sorted once, then binary search. */

typedef struct vkey_t {
    double num;
    const char *str;
    int64_t vertex;
} vkey_t;

typedef struct vindex_t {
    const char *attr;
    int by_index;
    int numeric;
    int64_t n;      /* vertices */
    int64_t n_keys; /* keys (NaN ids are left out) */
    vkey_t *keys;   /* (n_keys) sorted */
    igraph_vector_t nums;
    igraph_strvector_t strs;
    int have_nums, have_strs;
} vindex_t;

static int cmp_num(const void *a, const void *b) {
    const vkey_t *x = a, *y = b;
    if (x->num < y->num) return -1;
    if (x->num > y->num) return 1;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

static int cmp_str(const void *a, const void *b) {
    const vkey_t *x = a, *y = b;
    int c = strcmp(x->str, y->str);
    if (c) return c;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

static void vindex_destroy(vindex_t *ix) {
    ag_i_free(ix->keys);
    ix->keys = NULL;
    if (ix->have_nums) igraph_vector_destroy(&ix->nums);
    if (ix->have_strs) igraph_strvector_destroy(&ix->strs);
    ix->have_nums = ix->have_strs = 0;
}

/* Writes vertex v's id as text ("%.17g" for numbers, so 31336.0 prints as 31336). */
static const char *vindex_name(const vindex_t *ix, int64_t v, char *tmp, size_t size) {
    if (ix->by_index)
        snprintf(tmp, size, "%lld", (long long)v);
    else if (ix->numeric)
        snprintf(tmp, size, "%.17g", VECTOR(ix->nums)[v]);
    else
        return igraph_strvector_get(&ix->strs, v);
    return tmp;
}

static ag_error_t vindex_build(vindex_t *ix, const igraph_t *graph, const char *attr, int by_index) {
    memset(ix, 0, sizeof *ix);
    ix->attr = attr;
    ix->by_index = by_index;
    ix->n = (int64_t)igraph_vcount(graph);
    if (by_index) return AG_SUCCESS;
    igraph_attribute_type_t type;
    AG_CHECK(ag_i_attr_type(graph, IGRAPH_ATTRIBUTE_VERTEX, attr, &type));
    if (type == IGRAPH_ATTRIBUTE_UNSPECIFIED)
        return AG_ERROR(AG_EATTR, "the graph has no vertex attribute '%s' to match the table's ids to (another "
                        "attribute: --table-id-attr, ag_table_options_t.vertex_attr)", attr);
    if (type == IGRAPH_ATTRIBUTE_NUMERIC) {
        ix->numeric = 1;
        AG_IGRAPH_CHECK(igraph_vector_init(&ix->nums, 0), AG_ENOMEM, "vertex ids");
        ix->have_nums = 1;
        AG_IGRAPH_CHECK(igraph_cattribute_VANV(graph, attr, igraph_vss_all(), &ix->nums), AG_EATTR,
                        "reading vertex attribute '%s'", attr);
    } else if (type == IGRAPH_ATTRIBUTE_STRING) {
        AG_IGRAPH_CHECK(igraph_strvector_init(&ix->strs, 0), AG_ENOMEM, "vertex ids");
        ix->have_strs = 1;
        AG_IGRAPH_CHECK(igraph_cattribute_VASV(graph, attr, igraph_vss_all(), &ix->strs), AG_EATTR,
                        "reading vertex attribute '%s'", attr);
    } else {
        return AG_ERROR(AG_EATTR, "vertex attribute '%s' is neither numeric nor string", attr);
    }
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, ix->n, sizeof(vkey_t), "vertex id index"));
    ix->keys = p;
    for (int64_t v = 0; v < ix->n; v++) {
        if (ix->numeric) {
            double x = VECTOR(ix->nums)[v];
            if (isnan(x)) continue;
            ix->keys[ix->n_keys].num = x;
        } else {
            ix->keys[ix->n_keys].str = igraph_strvector_get(&ix->strs, v);
        }
        ix->keys[ix->n_keys++].vertex = v;
    }
    qsort(ix->keys, (size_t)ix->n_keys, sizeof(vkey_t), ix->numeric ? cmp_num : cmp_str);
    for (int64_t k = 1; k < ix->n_keys; k++) {
        int same =
            ix->numeric ? ix->keys[k].num == ix->keys[k - 1].num : strcmp(ix->keys[k].str, ix->keys[k - 1].str) == 0;
        if (same) {
            char tmp[64];
            return AG_ERROR(
                AG_EATTR,
                "vertices %lld and %lld share the id '%s' (vertex attribute '%s'): table rows cannot be matched",
                (long long)ix->keys[k - 1].vertex, (long long)ix->keys[k].vertex,
                vindex_name(ix, ix->keys[k].vertex, tmp, sizeof tmp), attr);
        }
    }
    return AG_SUCCESS;
}

/* The vertex whose id is the text s, or -1. */
static int64_t vindex_find(const vindex_t *ix, const char *s) {
    if (ix->by_index) {
        char *end;
        if (*s == '\0') return -1;
        long long v = strtoll(s, &end, 10);
        if (*end != '\0' || v < 0 || v >= ix->n) return -1;
        return (int64_t)v;
    }
    int64_t lo = 0, hi = ix->n_keys;
    if (ix->numeric) {
        double x;
        if (ag_csv_parse_double(s, &x) != 0) return -1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ix->keys[mid].num < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < ix->n_keys && ix->keys[lo].num == x ? ix->keys[lo].vertex : -1;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->keys[mid].str, s) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n_keys && strcmp(ix->keys[lo].str, s) == 0 ? ix->keys[lo].vertex : -1;
}

/* ---- Reading. */

typedef struct reader_t {
    ag_csv_t csv;
    vindex_t ix;
    vindex_t by_index; /* the vertex indices, for opts->index_fallback */
    int fallback;      /* the rows may still be matched by index instead (no row matched ix yet) */
    int switched;      /* they are: the first row's id matched no vertex attribute and was an index */
    int64_t first_line;
    char *first_id;    /* (switched) the first row's, whose error a row matching ix after all brings back */
    int64_t *row_line; /* (N) line of the row given to each vertex, 0 = none yet */
    const char *path;
    const char *absent_note; /* opts->absent_note */
    char hint[192];    /* appended to "matches no vertex" and "duplicate id": an id column elsewhere in the
                          header, or that the ids are taken as vertex indices */
    int64_t placed;    /* rows matched to a vertex */
    /* the first row's id matched no vertex: its line and id, and the rows skipped since, until a
     * row matches (then it is that row's error) or none does (the table is keyed otherwise) */
    int64_t pending_line, unmatched;
    char *pending_id;
} reader_t;

/* Whether s is a whole number, too large to be a vertex index of ix: a vertex the graph lacks
 * (an edge list's top vertices without an edge) rather than a malformed id. */
static int beyond_vertices(const vindex_t *ix, const char *s) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return end != s && *end == '\0' && (errno == ERANGE || v >= ix->n);
}

/* Whether an id matching no vertex looks like a row of a table numbered from 1 (as R, Julia and
 * MATLAB number): it is the vertex count, one past the last 0-based number, while the vertex of
 * id 0 has had no row so far. */
static int numbered_from_1(const reader_t *r, const vindex_t *ix, const char *id) {
    char count[32];
    snprintf(count, sizeof count, "%lld", (long long)ix->n);
    if (strcmp(id, count) != 0) return 0;
    const int64_t v0 = vindex_find(ix, "0");
    return v0 >= 0 && r->row_line[v0] == 0;
}

#define FROM_1 "; no row so far has id 0: is the table numbered from 1?"

static ag_error_t no_vertex(const reader_t *r, int64_t line, const char *id) {
    const char *from_1 = numbered_from_1(r, &r->ix, id) ? FROM_1 : "";
    if (r->ix.by_index) {
        const int note = r->absent_note && beyond_vertices(&r->ix, id);
        return AG_ERROR(AG_EMISMATCH, "%s:%lld: id '%s' is not a vertex index (the graph has %lld vertices)%s%s%s",
                        r->path, (long long)line, id, (long long)r->ix.n, note ? ": " : "",
                        note ? r->absent_note : "", from_1);
    }
    /* after a switch to indices the hint says so; the error is the one without the switch */
    return AG_ERROR(AG_EMISMATCH, "%s:%lld: id '%s' matches no vertex (vertex attribute '%s')%s%s%s%s", r->path,
                    (long long)line, id, r->ix.attr, r->absent_note ? ": " : "",
                    r->absent_note ? r->absent_note : "", r->switched ? "" : r->hint, from_1);
}

/* Not one row's id matched the key: a table keyed by something else than the vertex attribute,
 * which "id '0' matches no vertex" and a note on vertices without edges did not say. */
static ag_error_t keyed_otherwise(const reader_t *r) {
    char a[64], b[64], none[64];
    const char *first = r->ix.n > 0 ? vindex_name(&r->ix, 0, a, sizeof a) : "";
    const char *second = r->ix.n > 1 ? vindex_name(&r->ix, 1, b, sizeof b) : NULL;
    if (r->unmatched == 1) snprintf(none, sizeof none, "the table's one id matches no vertex");
    else snprintf(none, sizeof none, "none of the table's %lld ids matches a vertex", (long long)r->unmatched);
    return AG_ERROR(AG_EMISMATCH, "%s: %s (vertex attribute '%s', which holds '%.40s'%s%.40s%s%s; the table's "
                    "first id is '%.40s', line %lld): the table is keyed by something else; key its rows by vertex "
                    "attribute '%s', or name the vertex attribute that holds its ids (--table-id-attr)", r->path, none,
                    r->ix.attr, first, second ? ", '" : "", second ? second : "", second ? "'" : "",
                    r->ix.n > 2 ? ", ..." : "", r->pending_id, (long long)r->pending_line, r->ix.attr);
}

/* The vertex of the current line's id, checking that it matches one and only once; -1 for a row
 * skipped while no row has matched (keyed_otherwise()). */
static ag_error_t place_row(reader_t *r, const char *id, int64_t *vertex) {
    int64_t v;
    *vertex = -1;
    if (r->pending_id) {
        if (vindex_find(&r->ix, id) >= 0) return no_vertex(r, r->pending_line, r->pending_id);
        r->unmatched++;
        return AG_SUCCESS;
    }
    if (r->switched) {
        /* a partial match (one id of the vertex attribute) is a table of those ids with a defect */
        if (vindex_find(&r->ix, id) >= 0) return no_vertex(r, r->first_line, r->first_id);
        if ((v = vindex_find(&r->by_index, id)) < 0) {
            /* a table numbered from 1 was taken for indices until its last id: that id is the defect */
            if (numbered_from_1(r, &r->by_index, id))
                return AG_ERROR(AG_EMISMATCH, "%s:%lld: id '%s' is not a vertex index (the graph has %lld vertices, and "
                                "the table's ids were taken as vertex indices, since none matched vertex attribute "
                                "'%.40s')" FROM_1, r->path, (long long)r->csv.line, id, (long long)r->by_index.n,
                                r->ix.attr);
            return no_vertex(r, r->first_line, r->first_id);
        }
    } else if ((v = vindex_find(&r->ix, id)) < 0) {
        if (r->placed == 0 && !r->fallback && !r->ix.by_index && !r->hint[0]) {
            /* the first row: whether any row matches tells a defect from a table keyed otherwise
             * (unless the header already says why: its id column is not the first) */
            if (!(r->pending_id = ag_i_strdup(id)))
                return AG_ERROR(AG_ENOMEM, "%s:%lld: out of memory", r->path, (long long)r->csv.line);
            r->pending_line = r->csv.line;
            r->unmatched = 1;
            return AG_SUCCESS;
        }
        if (!r->fallback || vindex_find(&r->by_index, id) < 0) return no_vertex(r, r->csv.line, id);
        if (!(r->first_id = ag_i_strdup(id)))
            return AG_ERROR(AG_ENOMEM, "%s:%lld: out of memory", r->path, (long long)r->csv.line);
        r->first_line = r->csv.line;
        r->switched = 1;
        v = vindex_find(&r->by_index, id);
        snprintf(r->hint, sizeof r->hint, " (the table's ids were taken as vertex indices, since none matched "
                 "vertex attribute '%.40s')", r->ix.attr);
    }
    r->fallback = 0;
    if (r->row_line[v] != 0)
        return AG_ERROR(AG_EMISMATCH, "%s:%lld: duplicate id '%s' (first on line %lld)%s", r->path,
                        (long long)r->csv.line, id, (long long)r->row_line[v], r->hint);
    r->row_line[v] = r->csv.line;
    r->placed++;
    *vertex = v;
    return AG_SUCCESS;
}

static ag_error_t check_all_rows(reader_t *r) {
    if (r->pending_id) return keyed_otherwise(r);
    const vindex_t *ix = r->switched ? &r->by_index : &r->ix;
    for (int64_t v = 0; v < r->ix.n; v++) {
        if (r->row_line[v] == 0) {
            char tmp[64];
            return AG_ERROR(AG_EMISMATCH, "%s: vertex %lld (id '%s') has no row%s", r->path, (long long)v,
                            vindex_name(ix, v, tmp, sizeof tmp), r->switched ? r->hint : "");
        }
    }
    return AG_SUCCESS;
}

/* Parses one feature cell; `column` names it in messages. */
static inline ag_error_t parse_cell(const reader_t *r, const char *s, const char *column, int64_t field, float *out) {
    /* Fast path for the 0/1 cells that make up bag-of-words tables. */
    if ((s[0] == '0' || s[0] == '1') && s[1] == '\0') {
        *out = (float)(s[0] - '0');
        return AG_SUCCESS;
    }
    if (ag_csv_parse_float(s, out) != 0) {
        if (column)
            return AG_ERROR(AG_EPARSE, "%s:%lld: column '%s': '%s' is not a number", r->path, (long long)r->csv.line,
                            column, s);
        return AG_ERROR(AG_EPARSE, "%s:%lld: field %lld: '%s' is not a number", r->path, (long long)r->csv.line,
                        (long long)field + 1, s);
    }
    if (!isfinite(*out)) {
        if (column)
            return AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': value '%s' is not finite", r->path,
                            (long long)r->csv.line, column, s);
        return AG_ERROR(AG_EVALUE, "%s:%lld: field %lld: value '%s' is not finite", r->path, (long long)r->csv.line,
                        (long long)field + 1, s);
    }
    return AG_SUCCESS;
}

static ag_error_t dup_label(reader_t *r, ag_node_table_t *t, int64_t v, const char *s) {
    t->labels[v] = ag_i_strdup(s);
    if (!t->labels[v]) return AG_ERROR(AG_ENOMEM, "%s:%lld: out of memory", r->path, (long long)r->csv.line);
    return AG_SUCCESS;
}

static ag_error_t alloc_labels(ag_node_table_t *t, int64_t n) {
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, n, sizeof(char *), "node labels"));
    t->labels = p;
    return AG_SUCCESS;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The header of a delimited table, its feature fields cols[0..f-1]: refuses a first line that is a
 * row (a table exported without a header lost its first vertex, and the message then said only
 * that vertex had no row), a column without a name, and a name given twice (a model matches a new
 * table's columns by name, so a repeated one would take the first column's values for both). */
static ag_error_t check_header(reader_t *r, int64_t id_col, int64_t label_col, const int64_t *cols, int64_t f) {
    const char *const *h = (const char *const *)r->csv.fields;
    int row = vindex_find(&r->ix, h[id_col]) >= 0 || (r->fallback && vindex_find(&r->by_index, h[id_col]) >= 0);
    for (int64_t j = 0; j < f && row; j++) {
        double x;
        row = ag_csv_parse_double(h[cols[j]], &x) == 0;
    }
    if (row)
        return AG_ERROR(AG_EPARSE, "%s:%lld: the first line is a row, not a header (its id '%s' is a vertex's and "
                        "every other field a number): a CSV/TSV node table starts with a header such as 'id,f1,f2'",
                        r->path, (long long)r->csv.line, h[id_col]);
    for (int64_t j = 0; j < f; j++) {
        /* a spreadsheet's trailing separator: matched by name, such a column could never be
         * matched, and training named it '' */
        const char *c = h[cols[j]];
        while (*c == ' ' || *c == '\t') c++;
        if (!*c)
            return AG_ERROR(AG_EPARSE, "%s:%lld: column %lld of the header has no name (a trailing separator?): "
                            "columns are matched by name; name it, or remove the column", r->path,
                            (long long)r->csv.line, (long long)cols[j] + 1);
    }
    void *p;
    AG_CHECK(ag_i_alloc_array(&p, f > 0 ? f : 1, sizeof(char *), "column names"));
    const char **sorted = p; /* (f) */
    for (int64_t j = 0; j < f; j++) sorted[j] = h[cols[j]];
    qsort(sorted, (size_t)f, sizeof *sorted, cmp_name);
    ag_error_t rc = AG_SUCCESS;
    for (int64_t j = 1; j < f && rc == AG_SUCCESS; j++)
        if (!strcmp(sorted[j - 1], sorted[j]))
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: column '%s' appears twice in the header: columns are matched by name, "
                          "so each needs its own", r->path, (long long)r->csv.line, sorted[j]);
    ag_i_free(sorted);
    /* the label column's name on a feature too: the feature would be a copy of the labels */
    for (int64_t j = 0; j < f && rc == AG_SUCCESS && label_col >= 0; j++)
        if (!strcmp(h[cols[j]], h[label_col]))
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: column '%s' appears twice in the header (the labels and column %lld): "
                          "columns are matched by name, so each needs its own", r->path, (long long)r->csv.line,
                          h[label_col], (long long)cols[j] + 1);
    return rc;
}

static ag_error_t read_delimited(reader_t *r, ag_node_table_t *t, const ag_table_options_t *o) {
    ag_error_t rc = AG_SUCCESS;
    int64_t *cols = NULL; /* (F) field index of each feature */
    int got;
    r->csv.delim = ag_csv_sniff(&r->csv);
    TRY(ag_csv_next(&r->csv, &got));
    if (!got) {
        rc = AG_ERROR(AG_EPARSE, "%s: empty file (a header row is expected)", r->path);
        goto done;
    }
    int64_t n_fields = r->csv.n_fields;
    int64_t id_col = 0, label_col = -1;
    if (o->id_column && (id_col = ag_csv_find(&r->csv, o->id_column)) < 0) {
        rc = AG_ERROR(AG_EATTR, "%s:%lld: no id column '%s' in the header", r->path, (long long)r->csv.line,
                      o->id_column);
        goto done;
    }
    for (int64_t j = 1; !o->id_column && !r->ix.by_index && j < n_fields; j++)
        if (!strcmp(r->csv.fields[j], r->ix.attr) || !strcmp(r->csv.fields[j], "id")) {
            /* the ids are the first column's: a table whose id column came second gave only
             * "id '1079' matches no vertex" (or "duplicate id '0'") */
            snprintf(r->hint, sizeof r->hint, "; the first column ('%.40s') is taken as the ids, and column %lld is "
                     "named '%.40s': put it first", r->csv.fields[0], (long long)j + 1, r->csv.fields[j]);
            r->fallback = 0; /* that column is the key, not the first one's indices */
            break;
        }
    if (o->label_column) {
        label_col = ag_csv_find(&r->csv, o->label_column);
        if (label_col < 0 || label_col == id_col) {
            rc = AG_ERROR(AG_EATTR, "%s:%lld: no label column '%s' in the header (besides the id)", r->path,
                          (long long)r->csv.line, o->label_column);
            goto done;
        }
    }
    int64_t f = 0;
    void *p;
    TRY(ag_i_alloc_array(&p, n_fields, sizeof(int64_t), "table columns"));
    cols = p;
    if (o->columns) {
        for (int64_t j = 0; j < o->n_columns; j++) {
            int64_t c = ag_csv_find(&r->csv, o->columns[j]);
            if (c < 0 || c == id_col || c == label_col) {
                rc = AG_ERROR(AG_EATTR, "%s:%lld: no feature column '%s' in the header (besides id and label)", r->path,
                              (long long)r->csv.line, o->columns[j]);
                goto done;
            }
            if (f >= n_fields) {
                rc = AG_ERROR(AG_EINVAL, "%s: %lld feature columns asked for, the header has %lld", r->path,
                              (long long)o->n_columns, (long long)n_fields);
                goto done;
            }
            cols[f++] = c;
        }
    } else {
        for (int64_t c = 0; c < n_fields; c++)
            if (c != id_col && c != label_col) cols[f++] = c;
    }
    TRY(check_header(r, id_col, label_col, cols, f));
    TRY(ag_fmat_init(&t->features, r->ix.n, f));
    TRY(ag_i_alloc_array(&p, f, sizeof(char *), "column names"));
    t->columns = p;
    for (int64_t j = 0; j < f; j++) {
        if (!(t->columns[j] = ag_i_strdup(r->csv.fields[cols[j]]))) {
            rc = AG_ERROR(AG_ENOMEM, "out of memory copying column names");
            goto done;
        }
    }
    if (label_col >= 0) TRY(alloc_labels(t, r->ix.n));
    for (;;) {
        TRY(ag_csv_next(&r->csv, &got));
        if (!got) break;
        TRY(ag_csv_expect_fields(&r->csv, n_fields));
        int64_t v;
        TRY(place_row(r, r->csv.fields[id_col], &v));
        if (v < 0) continue;
        float *row = t->features.data + v * f;
        for (int64_t j = 0; j < f; j++) TRY(parse_cell(r, r->csv.fields[cols[j]], t->columns[j], cols[j], &row[j]));
        if (label_col >= 0) TRY(dup_label(r, t, v, r->csv.fields[label_col]));
    }
    TRY(check_all_rows(r));
done:
    ag_i_free(cols);
    return rc;
}

static ag_error_t read_whitespace(reader_t *r, ag_node_table_t *t, const ag_table_options_t *o) {
    ag_error_t rc = AG_SUCCESS;
    int64_t n_fields = -1, f = 0;
    int got;
    r->csv.delim = AG_CSV_WHITESPACE;
    if (o->last_is_label) TRY(alloc_labels(t, r->ix.n));
    for (;;) {
        TRY(ag_csv_next(&r->csv, &got));
        if (!got) break;
        if (n_fields < 0) {
            n_fields = r->csv.n_fields;
            f = n_fields - 1 - (o->last_is_label ? 1 : 0);
            if (f < 0) {
                rc = AG_ERROR(AG_EPARSE, "%s:%lld: %lld fields: an id%s is needed", r->path, (long long)r->csv.line,
                              (long long)n_fields, o->last_is_label ? " and a label" : "");
                goto done;
            }
            TRY(ag_fmat_init(&t->features, r->ix.n, f));
        }
        if (r->csv.n_fields != n_fields) {
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: %lld fields, the first line has %lld", r->path, (long long)r->csv.line,
                          (long long)r->csv.n_fields, (long long)n_fields);
            goto done;
        }
        int64_t v;
        TRY(place_row(r, r->csv.fields[0], &v));
        if (v < 0) continue;
        float *row = t->features.data + v * f;
        char **fields = r->csv.fields + 1;
        for (int64_t j = 0; j < f; j++) TRY(parse_cell(r, fields[j], NULL, j + 1, &row[j]));
        if (o->last_is_label) TRY(dup_label(r, t, v, r->csv.fields[n_fields - 1]));
    }
    if (n_fields < 0 && r->ix.n > 0) {
        rc = AG_ERROR(AG_EPARSE, "%s: empty file", r->path);
        goto done;
    }
    TRY(check_all_rows(r));
done:
    return rc;
}

typedef struct entry_t {
    int64_t vertex;
    int64_t index;
    float value;
} entry_t;

/* A sparse table is read as a dense N x (largest index + 1) matrix, so one token ("5 2000000000:1")
 * can ask for any amount of memory: AG_EREADLIMIT when that matrix, held twice (the table and the
 * feature matrix a model's input is made into: AG_TABLE_READ_COPIES), exceeds the read limit, as a
 * graph file's vertex count is refused (graph_read_limit.c), before it is allocated (a calloc that
 * the kernel grants lazily would end in the OOM killer once the features are copied). The message
 * counts the distinct indices, since a table numbered sparsely (hashed features, global ids) is
 * fixed by renumbering them. A width given by a model is the model's, not the file's. */
static ag_error_t check_width(const reader_t *r, const entry_t *e, int64_t nnz, int64_t max_index, int64_t line) {
    const int64_t f = max_index + 1;
    int64_t need;
    const int overflow = ag_i_mul_overflow(r->ix.n, f, &need) ||
                         ag_i_mul_overflow(need, (int64_t)sizeof(float) * AG_TABLE_READ_COPIES, &need);
    ag_read_limit_text_t t;
    if (!ag_i_read_limit_exceeded(need, overflow, &t)) return AG_SUCCESS;
    int64_t *idx = ag_i_malloc((size_t)nnz * sizeof *idx); /* (nnz) */
    int64_t distinct = 0;
    const int counted = idx != NULL; /* else the message goes without the count */
    if (counted) {
        for (int64_t k = 0; k < nnz; k++) idx[k] = e[k].index;
        qsort(idx, (size_t)nnz, sizeof *idx, ag_i_cmp_i64);
        for (int64_t k = 0; k < nnz; k++) distinct += k == 0 || idx[k] != idx[k - 1];
        ag_i_free(idx);
    }
    char fix[96] = "renumber them from 0 without gaps";
    if (counted)
        snprintf(fix, sizeof fix, "it uses %lld distinct indices: renumber them 0 to %lld", (long long)distinct,
                 (long long)distinct - 1);
    return AG_ERROR(AG_EREADLIMIT,
                    "%s:%lld: feature index %lld makes the sparse table %lld columns wide: %lld rows x %lld float32, "
                    "held twice (the table and the features made from it), take %s, over the limit of %s (%s); a "
                    "sparse table is read as a dense matrix as wide as its largest index + 1, and %s, or raise the "
                    "limit (--max-memory)",
                    r->path, (long long)line, (long long)max_index, (long long)f, (long long)r->ix.n, (long long)f,
                    t.need, t.limit, t.from, fix);
}

static ag_error_t read_sparse(reader_t *r, ag_node_table_t *t, const ag_table_options_t *o) {
    ag_error_t rc = AG_SUCCESS;
    entry_t *e = NULL; /* (nnz) */
    int64_t nnz = 0, cap = 0, max_index = -1, max_line = 0;
    int got;
    r->csv.delim = AG_CSV_WHITESPACE;
    for (;;) {
        TRY(ag_csv_next(&r->csv, &got));
        if (!got) break;
        int64_t v;
        TRY(place_row(r, r->csv.fields[0], &v));
        if (v < 0) continue;
        for (int64_t k = 1; k < r->csv.n_fields; k++) {
            const char *s = r->csv.fields[k];
            char *end;
            errno = 0;
            long long idx = strtoll(s, &end, 10);
            if (end == s || *end != ':' || idx < 0) {
                rc = AG_ERROR(AG_EPARSE, "%s:%lld: field %lld: '%s' is not index:value", r->path,
                              (long long)r->csv.line, (long long)k + 1, s);
                goto done;
            }
            /* strtoll saturates at LLONG_MAX, and the width is index + 1: bound indices like node
             * counts (int32) so that neither overflows. A value of the file out of the range the
             * format takes, as an index beyond a given width is (below): AG_EVALUE, bad input,
             * not a size the library ran out of room for (AG_ELIMIT). */
            if (errno == ERANGE || idx >= INT32_MAX) {
                rc = AG_ERROR(AG_EVALUE, "%s:%lld: field %lld: feature index in '%s' is beyond the largest supported "
                              "index %d", r->path, (long long)r->csv.line, (long long)k + 1, s, INT32_MAX - 1);
                goto done;
            }
            float x;
            if (ag_csv_parse_float(end + 1, &x) != 0) {
                rc = AG_ERROR(AG_EPARSE, "%s:%lld: field %lld: value of '%s' is not a number", r->path,
                              (long long)r->csv.line, (long long)k + 1, s);
                goto done;
            }
            if (!isfinite(x)) {
                rc = AG_ERROR(AG_EVALUE, "%s:%lld: field %lld: value of '%s' is not finite", r->path,
                              (long long)r->csv.line, (long long)k + 1, s);
                goto done;
            }
            if (o->width > 0 && idx >= o->width) {
                rc = AG_ERROR(AG_EVALUE, "%s:%lld: feature index %lld is beyond the width %lld%s%s (indices 0 to %lld)",
                              r->path, (long long)r->csv.line, idx, (long long)o->width, o->width_of ? " of " : "",
                              o->width_of ? o->width_of : "", (long long)o->width - 1);
                goto done;
            }
            if (nnz == cap) {
                int64_t ncap = cap ? 2 * cap : 1024;
                entry_t *ne = ag_i_realloc(e, (size_t)ncap * sizeof *ne);
                if (!ne) {
                    rc = AG_ERROR(AG_ENOMEM, "%s:%lld: out of memory", r->path, (long long)r->csv.line);
                    goto done;
                }
                e = ne;
                cap = ncap;
            }
            e[nnz++] = (entry_t){v, (int64_t)idx, x};
            if (idx > max_index) {
                max_index = idx;
                max_line = r->csv.line;
            }
        }
    }
    TRY(check_all_rows(r));
    int64_t f = o->width > 0 ? o->width : max_index + 1;
    if (o->width == 0) TRY(check_width(r, e, nnz, max_index, max_line));
    TRY(ag_fmat_init(&t->features, r->ix.n, f));
    for (int64_t k = 0; k < nnz; k++) t->features.data[e[k].vertex * f + e[k].index] = e[k].value;
done:
    ag_i_free(e);
    return rc;
}

/* AUTO: by extension, else from the first line: idx:value tokens mean sparse, a first line of
 * numbers after the id means headerless whitespace, anything else a header. */
static ag_table_format_t guess_format(const ag_csv_t *csv) {
    const char *p = csv->path;
    size_t n = strlen(p);
    if (n >= 4 && (strcmp(p + n - 4, ".csv") == 0 || strcmp(p + n - 4, ".tsv") == 0 || strcmp(p + n - 4, ".tab") == 0))
        return AG_TABLE_DELIMITED;
    if (n >= 8 && strcmp(p + n - 8, ".content") == 0) return AG_TABLE_WHITESPACE;
    const char *s = csv->buf + csv->pos, *e = strchr(s, '\n');
    if (!e) e = csv->buf + csv->len;
    /* second token */
    const char *q = s;
    while (q < e && *q != ' ' && *q != '\t') q++;
    while (q < e && (*q == ' ' || *q == '\t')) q++;
    const char *tok = q;
    while (q < e && *q != ' ' && *q != '\t' && *q != '\r') q++;
    if (tok == q) return AG_TABLE_DELIMITED;
    int digits = 1, colon = 0;
    for (const char *c = tok; c < q; c++) {
        if (*c == ':')
            colon = 1;
        else if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '+' || *c == 'e' || *c == 'E'))
            digits = 0;
    }
    if (colon && digits) return AG_TABLE_SPARSE;
    if (digits) return AG_TABLE_WHITESPACE;
    return AG_TABLE_DELIMITED;
}

/* Whether the last ag_table_read() on this thread failed on the graph's vertex ids, for
 * ag_table_read_refused_graph(). */
static _Thread_local int read_refused_graph;

int ag_table_read_refused_graph(void) { return read_refused_graph; }

ag_error_t ag_table_read(ag_node_table_t *table, const char *path, const igraph_t *graph,
                         const ag_table_options_t *opts) {
    ag_table_options_t defaults;
    ag_error_t rc = AG_SUCCESS;
    reader_t r;
    memset(table, 0, sizeof *table);
    memset(&r, 0, sizeof r);
    if (!opts) {
        ag_table_options_init(&defaults);
        opts = &defaults;
    }
    read_refused_graph = 0;
    if (!path || !graph) return AG_ERROR(AG_EINVAL, "ag_table_read: path and graph are required");
    if (opts->n_columns < 0 || (opts->n_columns > 0 && !opts->columns) || opts->width < 0)
        return AG_ERROR(AG_EINVAL, "ag_table_read: bad options (columns or width)");
    r.path = path;
    /* the graph's ids, before the file is opened: their errors are the graph's, not the table's */
    rc = vindex_build(&r.ix, graph, opts->vertex_attr ? opts->vertex_attr : "id", opts->match_index);
    if (rc != AG_SUCCESS) {
        read_refused_graph = 1;
        goto done;
    }
    rc = vindex_build(&r.by_index, graph, NULL, 1);
    if (rc != AG_SUCCESS) {
        read_refused_graph = 1;
        goto done;
    }
    r.fallback = opts->index_fallback && !opts->match_index;
    r.absent_note = opts->absent_note;
    void *p;
    TRY(ag_i_alloc_array(&p, r.ix.n, sizeof(int64_t), "row lines"));
    r.row_line = p;
    TRY(ag_csv_open(&r.csv, path));
    ag_table_format_t format = opts->format == AG_TABLE_AUTO ? guess_format(&r.csv) : opts->format;
    switch (format) {
    case AG_TABLE_DELIMITED: TRY(read_delimited(&r, table, opts)); break;
    case AG_TABLE_WHITESPACE: TRY(read_whitespace(&r, table, opts)); break;
    case AG_TABLE_SPARSE: TRY(read_sparse(&r, table, opts)); break;
    default: rc = AG_ERROR(AG_EINVAL, "ag_table_read: unknown format %d", (int)format); goto done;
    }
    if (!table->features.data) TRY(ag_fmat_init(&table->features, r.ix.n, 0));
    table->by_index = r.switched;
    table->sparse = format == AG_TABLE_SPARSE;
done:
    if ((rc == AG_ENOMEM || rc == AG_ELIMIT) && !read_refused_graph) {
        /* the table's own errors start with its path: so too the memory its sizes ask for (a
         * sparse table's largest index makes the matrix as wide), whose allocation names no file */
        const size_t n = strlen(path);
        const char *m = ag_error_message();
        if (strncmp(m, path, n) != 0 || m[n] != ':') {
            char why[1024]; /* the message buffer is about to be rewritten: copy it first */
            snprintf(why, sizeof why, "%s", m);
            rc = AG_ERROR(rc, "%s: %s", path, why);
        }
    }
    if (rc != AG_SUCCESS) {
        /* features may not be allocated yet while labels are: destroy with the right row count */
        if (!table->features.data) table->features.rows = r.ix.n;
        ag_node_table_destroy(table);
        table->features.rows = table->features.cols = 0;
    }
    ag_csv_close(&r.csv);
    vindex_destroy(&r.ix);
    ag_i_free(r.first_id);
    ag_i_free(r.pending_id);
    ag_i_free(r.row_line);
    return rc;
}
