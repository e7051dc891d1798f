/*
 * graph_read.c: graph file formats and reading them through igraph's parsers.
 */
/* fileno, strcasecmp */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "graph_read_limit.h"
#include "graph_read_pajek.h"
#include "internal.h"
#include "attngraph/graph.h"

static const char *const format_names[AG_FORMAT_COUNT] = {
    "auto", "gml", "graphml", "edgelist", "ncol", "lgl", "pajek", "dimacs", "dl"};

/* Extensions (compared without case). ".txt" is deliberately absent: plain-text graphs are edge
 * lists, NCOL or LGL files alike, and guessing wrong gives a confusing parse error. */
static const struct {
    const char *ext;
    ag_format_t format;
} extensions[] = {
    {"gml", AG_FORMAT_GML},       {"graphml", AG_FORMAT_GRAPHML}, {"xml", AG_FORMAT_GRAPHML},
    {"edges", AG_FORMAT_EDGELIST}, {"edgelist", AG_FORMAT_EDGELIST}, {"el", AG_FORMAT_EDGELIST},
    {"ncol", AG_FORMAT_NCOL},     {"lgl", AG_FORMAT_LGL},         {"net", AG_FORMAT_PAJEK},
    {"paj", AG_FORMAT_PAJEK},     {"pajek", AG_FORMAT_PAJEK},     {"dimacs", AG_FORMAT_DIMACS},
    {"max", AG_FORMAT_DIMACS},    {"dl", AG_FORMAT_DL},
};
#define N_EXTENSIONS (sizeof extensions / sizeof extensions[0])
#define KNOWN_EXTENSIONS \
    ".gml, .graphml, .xml, .edges, .edgelist, .el, .ncol, .lgl, .net, .paj, .pajek, .dimacs, .max, .dl"
#define KNOWN_FORMATS "auto, gml, graphml, edgelist, ncol, lgl, pajek, dimacs, dl"

#define WARN_MAX 1024
static _Thread_local char read_warning[2 * WARN_MAX]; /* "FILE: " and the first of read_reasons */
/* (n_read_reasons x WARN_MAX) every distinct warning of the last read, without the file's name:
 * copied, since the guard's list is reset by the next call into igraph. */
static _Thread_local char read_reasons[AG_I_IGRAPH_WARNINGS][WARN_MAX];
static _Thread_local int n_read_reasons;
static _Thread_local int n_read_other; /* distinct warnings after those, counted */
_Static_assert(AG_I_IGRAPH_WARNINGS == AG_GRAPH_READ_WARNINGS_KEPT, "graph.h says how many a read keeps");
static _Thread_local ag_format_t read_format;

const char *ag_format_name(ag_format_t format) {
    if ((int)format < 0 || format >= AG_FORMAT_COUNT) return "unknown";
    return format_names[format];
}

ag_error_t ag_format_from_name(const char *name, ag_format_t *format) {
    if (!name || !format) return AG_ERROR(AG_EINVAL, "ag_format_from_name: NULL argument");
    for (int f = 0; f < AG_FORMAT_COUNT; f++) {
        if (!strcasecmp(name, format_names[f])) {
            *format = (ag_format_t)f;
            return AG_SUCCESS;
        }
    }
    return AG_ERROR(AG_EFORMAT, "unknown graph format '%s' (known: " KNOWN_FORMATS ")", name);
}

ag_error_t ag_format_from_path(const char *path, ag_format_t *format) {
    if (!path || !format) return AG_ERROR(AG_EINVAL, "ag_format_from_path: NULL argument");
    if (!strcmp(path, "-"))
        return AG_ERROR(AG_EFORMAT, "standard input has no file extension: pass --format (" KNOWN_FORMATS ")");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) {
        for (size_t i = 0; i < N_EXTENSIONS; i++) {
            if (!strcasecmp(dot + 1, extensions[i].ext)) {
                *format = extensions[i].format;
                return AG_SUCCESS;
            }
        }
    }
    /* a mistyped name is the likelier fault: say that rather than ask for a format */
    struct stat st;
    if (stat(path, &st) != 0) return AG_ERROR(AG_EFILE, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return AG_ERROR(AG_EFILE, "%s: %s", path, strerror(EISDIR));
    /* the model named where a graph goes (classify MODEL GRAPH, --model forgotten) */
    if (dot && !strcasecmp(dot + 1, "safetensors"))
        return AG_ERROR(AG_EFORMAT, "%s: a model file, not a graph (a model is given with --model)", path);
    return AG_ERROR(AG_EFORMAT, "%s: unknown file extension (known: " KNOWN_EXTENSIONS "); pass --format", path);
}

const char *ag_graph_read_warning(void) { return read_warning; }

int ag_graph_read_warning_count(void) { return n_read_reasons; }

const char *ag_graph_read_warning_reason(int i) { return i >= 0 && i < n_read_reasons ? read_reasons[i] : ""; }

int ag_graph_read_warnings_other(void) { return n_read_other; }

ag_format_t ag_graph_read_format(void) { return read_format; }

/* Does the text at p (n bytes) start with word, without case, followed by a space, '[' or its end? */
static int starts_with_word(const char *p, size_t n, const char *word) {
    size_t k = strlen(word);
    if (n < k || strncasecmp(p, word, k)) return 0;
    return n == k || isspace((unsigned char)p[k]) || p[k] == '[';
}

/* Where the next line starts, or end. */
static const char *next_line(const char *p, const char *end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : end;
}

/* The whitespace-separated words in [p, end). */
static int line_words(const char *p, const char *end) {
    int n = 0;
    for (int in = 0; p < end; p++) {
        const int space = isspace((unsigned char)*p);
        if (!space && !in) n++;
        in = !space;
    }
    return n;
}

ag_error_t ag_format_sniff(const char *head, size_t len, ag_format_t *format) {
    if (!head || !format) return AG_ERROR(AG_EINVAL, "ag_format_sniff: NULL argument");
    const char *p = head, *end = head + len;
    p += ag_i_bom_length(p, len);
    int comment_lines = 0, percent_lines = 0, text_lines = 0;
    for (;;) {
        while (p < end && isspace((unsigned char)*p)) p++;
        if (p == end || (*p != '#' && *p != '%')) break;
        /* '#' opens a GML comment line and an LGL vertex line alike, '%' a Pajek comment: look past
         * them. An LGL line names one vertex ("# a"); more words are a comment's text (SNAP's
         * "# Nodes: 4039 Edges: 88234"), which no LGL file holds. */
        if (*p == '#') {
            comment_lines = 1;
            if (line_words(p + 1, next_line(p, end)) != 1) text_lines = 1;
        } else {
            percent_lines = 1;
        }
        p = next_line(p, end);
    }
    const size_t n = (size_t)(end - p);
    /* GML's usual top-level keys; a GML file whose first key is another needs --format */
    if (starts_with_word(p, n, "graph") || starts_with_word(p, n, "Creator") || starts_with_word(p, n, "Version"))
        *format = AG_FORMAT_GML;
    else if (comment_lines && !percent_lines && !text_lines)
        *format = AG_FORMAT_LGL;
    else if (n > 0 && *p == '<')
        *format = AG_FORMAT_GRAPHML;
    else if ((starts_with_word(p, n, "*vertices") || starts_with_word(p, n, "*network")) && !comment_lines)
        *format = AG_FORMAT_PAJEK;
    else if (starts_with_word(p, n, "DL"))
        *format = AG_FORMAT_DL;
    else if (n == 0)
        return AG_ERROR(AG_EFORMAT, "empty input: no format to recognise");
    else
        /* "0 1" is an edge list and an NCOL file alike, and DIMACS lines look like NCOL ones */
        return AG_ERROR(AG_EFORMAT, "cannot tell the format from the first line (GML, GraphML, Pajek, DL and LGL "
                                    "are recognised; edge lists, NCOL and DIMACS are not): pass --format");
    return AG_SUCCESS;
}

static void destroy_guarded(igraph_t *ig) {
    ag_i_igraph_enter();
    igraph_destroy(ig);
    ag_i_igraph_leave();
}

/* Is igraph's C attribute handler the installed one? igraph can only tell by swapping. */
static int cattribute_installed(void) {
    igraph_attribute_table_t *old = igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_attribute_table(old);
    return old == &igraph_cattribute_table;
}

/* Runs the igraph parser for format on f. Inside the igraph guard. */
static igraph_error_t parse(igraph_t *ig, FILE *f, ag_format_t format, int directed, int64_t vertices) {
    switch (format) {
    case AG_FORMAT_GML: return igraph_read_graph_gml(ig, f);
    case AG_FORMAT_GRAPHML: return igraph_read_graph_graphml(ig, f, 0);
    case AG_FORMAT_EDGELIST: return igraph_read_graph_edgelist(ig, f, (igraph_integer_t)vertices, directed);
    case AG_FORMAT_NCOL:
        return igraph_read_graph_ncol(ig, f, NULL, 1, IGRAPH_ADD_WEIGHTS_IF_PRESENT, directed);
    case AG_FORMAT_LGL: return igraph_read_graph_lgl(ig, f, 1, IGRAPH_ADD_WEIGHTS_IF_PRESENT, directed);
    case AG_FORMAT_PAJEK: return igraph_read_graph_pajek(ig, f);
    case AG_FORMAT_DL: return igraph_read_graph_dl(ig, f, directed);
    case AG_FORMAT_DIMACS: {
        /* The flow problem's capacities become the edge attribute "capacity"; the source and
         * target of a max-flow problem and the node labels of an edge problem are dropped. */
        igraph_strvector_t problem;
        igraph_vector_int_t label;
        igraph_vector_t capacity;
        igraph_integer_t source = 0, target = 0;
        IGRAPH_CHECK(igraph_strvector_init(&problem, 0));
        IGRAPH_FINALLY(igraph_strvector_destroy, &problem);
        IGRAPH_VECTOR_INT_INIT_FINALLY(&label, 0);
        IGRAPH_VECTOR_INIT_FINALLY(&capacity, 0);
        IGRAPH_CHECK(igraph_read_graph_dimacs_flow(ig, f, &problem, &label, &source, &target, &capacity, directed));
        IGRAPH_FINALLY(igraph_destroy, ig);
        if (igraph_vector_size(&capacity) > 0 && igraph_vector_size(&capacity) == igraph_ecount(ig) &&
            cattribute_installed())
            IGRAPH_CHECK(igraph_cattribute_EAN_setv(ig, "capacity", &capacity));
        igraph_vector_destroy(&capacity);
        igraph_vector_int_destroy(&label);
        igraph_strvector_destroy(&problem);
        IGRAPH_FINALLY_CLEAN(4);
        return IGRAPH_SUCCESS;
    }
    default: return IGRAPH_EINVAL;
    }
}

/* Has the token a letter (ASCII, or any byte of a UTF-8 character)? A name, not a mistyped number. */
static int has_letter(const char *t) {
    for (; *t; t++)
        if (isalpha((unsigned char)*t) || (unsigned char)*t >= 0x80) return 1;
    return 0;
}

/* Whether the first line of the text head (n bytes) that is neither empty nor a comment ('#' or
 * '%') holds a comma: no field of an edge list, NCOL or LGL file does (an NCOL name could, but a
 * file of such names that igraph failed to read is a CSV far more often). */
static int first_line_has_comma(const char *head, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t end = i;
        while (end < n && head[end] != '\n') end++;
        size_t j = i;
        while (j < end && isspace((unsigned char)head[j])) j++;
        if (j < end && head[j] != '#' && head[j] != '%') return memchr(head + j, ',', end - j) != NULL;
        i = end + 1;
    }
    return 0;
}

/* Replaces *f (and *copy, the text it reads if any) with the Pajek file's text rewritten so that
 * igraph reads its arcs and edges as one graph (graph_read_pajek.c). On failure *f is closed and
 * NULL. */
/* Reads the stream in whole into *text (len bytes; the caller frees it, also on failure). */
static ag_error_t read_text(FILE *in, char **text, size_t *len, const char *name) {
    const ag_error_t rc = ag_i_read_stream(in, text, len);
    const int e = errno;
    if (rc == AG_SUCCESS) return AG_SUCCESS;
    return rc == AG_ENOMEM ? AG_ERROR(AG_ENOMEM, "%s: out of memory reading it", name)
                           : AG_ERROR(AG_EFILE, "%s: %s", name, strerror(e));
}

/* *f: a stream over text's len bytes, which stay the caller's. */
static ag_error_t open_text(FILE **f, char *text, size_t len, const char *name) {
    if ((*f = fmemopen(text, len, "rb"))) return AG_SUCCESS;
    return AG_ERROR(AG_ENOMEM, "%s: cannot open its %zu bytes as a stream: %s", name, len, strerror(errno));
}

static ag_error_t unmix_pajek(FILE **f, char **copy, const char *name, int direction) {
    char *text = NULL, *unmixed = NULL;
    size_t len = 0, n = 0;
    ag_error_t rc = ag_i_read_stream(*f, &text, &len);
    const int e = errno;
    if (rc == AG_SUCCESS) rc = ag_i_pajek_unmix(text, len, direction, &unmixed, &n);
    ag_i_free(text);
    fclose(*f);
    *f = NULL;
    ag_i_free(*copy);
    *copy = unmixed;
    if (rc == AG_EFILE) return AG_ERROR(AG_EFILE, "%s: %s", name, strerror(e));
    if (rc != AG_SUCCESS) return AG_ERROR(AG_ENOMEM, "%s: out of memory joining its *Arcs and *Edges", name);
    return open_text(f, unmixed, n, name);
}

/* Replaces *f by an in-memory copy of its text (*copy, which replaces the old copy) in which the
 * edge list's comment lines (first field starting with '#' or '%': SNAP's and KONECT's headers)
 * are blanked, since igraph's reader would fail on them; blanking keeps the line numbers. */
static ag_error_t blank_comments(FILE **f, char **copy, const char *name) {
    char *text = NULL;
    size_t len = 0;
    const ag_error_t rc = read_text(*f, &text, &len, name);
    fclose(*f);
    *f = NULL;
    ag_i_free(*copy);
    *copy = text;
    if (rc != AG_SUCCESS) return rc;
    for (size_t i = ag_i_bom_length(text, len); i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n' && isspace((unsigned char)text[j])) j++;
        const int comment = j < len && (text[j] == '#' || text[j] == '%');
        for (; j < len && text[j] != '\n'; j++)
            if (comment) text[j] = ' ';
        i = j + 1;
    }
    return open_text(f, text, len, name); /* not empty: it holds a comment */
}

/* What igraph's messages that name neither a line nor a value mean, by format: what to look for. */
static const char *parse_error_hint(ag_format_t format, const char *msg) {
#define NOT_A_NUMBER "a <data> value of a numeric key (attr.type double, float, int or long) is not a number"
    static const struct {
        ag_format_t format;
        const char *needle, *hint;
    } hints[] = {
        {AG_FORMAT_GRAPHML, "while parsing real number", NOT_A_NUMBER},
        {AG_FORMAT_GRAPHML, "while parsing integer", NOT_A_NUMBER},
        {AG_FORMAT_GML, "Integer or double overflow", "a number is too large for a double (such as 1e999)"},
        {AG_FORMAT_DL, "Invalid string attribute length",
         "is n= more than the vertices the labels name? igraph's DL reader fails so"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (hints[i].format == format && strstr(msg, hints[i].needle)) return hints[i].hint;
    return NULL;
#undef NOT_A_NUMBER
}

/* Whether an edge list's first fault is a line of an odd number of fields, rather than a token
 * that is no id in a line's first two fields (a GML file read as an edge list fails on its first
 * word, and says what it looks like): a weight column's "0.5" or networkx's "{}" is a third field,
 * and the line's field count is what to say about it. */
static int odd_fields_first(const ag_graph_vertex_scan_t *scan) {
    if (!scan->odd_line) return 0;
    return !scan->bad_line || scan->bad_line > scan->odd_line ||
           (scan->bad_line == scan->odd_line && scan->bad_field >= 2);
}

/* An edge list's vertex count given by the caller: not below what the edges name (igraph would
 * fail with its own words), and held to the read limit as a count the file declares. */
static ag_error_t check_given_vertices(const char *name, int64_t given, const ag_graph_vertex_scan_t *scan) {
    if (given < scan->vertices)
        return AG_ERROR(AG_EINVAL, "%s:%lld: vertex id %s needs at least %lld vertices, more than the %lld given "
                        "(--vertices): the count is the largest id + 1 or more", name, (long long)scan->line,
                        scan->token, (long long)scan->vertices, (long long)given);
    int64_t need;
    const int overflow = ag_i_mul_overflow(given, AG_GRAPH_READ_VERTEX_BYTES, &need);
    ag_read_limit_text_t t;
    if (!ag_i_read_limit_exceeded(need, overflow, &t)) return AG_SUCCESS;
    return AG_ERROR(AG_EREADLIMIT, "%s: a vertex count of %lld (--vertices) makes igraph build %s (%d bytes each), "
                    "over the limit of %s (%s); give fewer, or raise the limit (--max-memory)", name,
                    (long long)given, t.need, AG_GRAPH_READ_VERTEX_BYTES, t.limit, t.from);
}

static ag_error_t read_graph(igraph_t *ig, const char *path, const ag_graph_read_options_t *opts) {
    read_warning[0] = '\0';
    n_read_reasons = 0;
    n_read_other = 0;
    read_format = AG_FORMAT_AUTO;
    if (!ig || !path || !opts) return AG_ERROR(AG_EINVAL, "ag_graph_read: NULL argument");
    /* a file that cannot be opened, as a missing one is (AG_EFILE), said as such: the file's name
     * before the reason made ": No such file or directory", naming nothing */
    if (!path[0]) return AG_ERROR(AG_EFILE, "graph file: no path given");
    ag_format_t format = opts->format;
    const int directed = opts->directed, allow_empty = opts->allow_empty;
    if (opts->vertices < 0)
        return AG_ERROR(AG_EINVAL, "%s: a vertex count of %lld (--vertices): a count is 1 or more", path,
                        (long long)opts->vertices);
    if ((int)format < 0 || format >= AG_FORMAT_COUNT)
        return AG_ERROR(AG_EINVAL, "ag_graph_read: invalid format %d", (int)format);
    const int is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    if (format == AG_FORMAT_AUTO && !is_stdin) AG_CHECK(ag_format_from_path(path, &format));
    /* the other formats list their vertices (GML, Pajek's *Vertices) or name them (NCOL): none
     * has an edge list's unnamed top vertices to add */
    if (opts->vertices > 0 && format == AG_FORMAT_AUTO)
        return AG_ERROR(AG_EINVAL, "%s: a vertex count (--vertices) is for an edge list, which standard input is "
                        "not taken for unless its format is given (--format edgelist)", name);
    if (opts->vertices > 0 && format != AG_FORMAT_EDGELIST)
        return AG_ERROR(AG_EINVAL, "%s: a vertex count (--vertices) is for an edge list, not a %s file, which gives "
                        "its own vertices", name, ag_format_name(format));

    FILE *f = NULL; /* the copy of standard input, or the file */
    /* Standard input is read whole into memory, since a pipe cannot be rewound: its format is
     * recognised from its first lines, its vertices counted and a byte-order mark passed over
     * before the parser reads that copy. */
    char *copy = NULL;
    if (is_stdin) {
        size_t len;
        ag_error_t rc = read_text(stdin, &copy, &len, name);
        if (rc != AG_SUCCESS) {
            ag_i_free(copy);
            return rc;
        }
        if (format != AG_FORMAT_AUTO) rc = len > 0 ? AG_SUCCESS : AG_ERROR(AG_EPARSE, "empty input: no graph");
        else rc = ag_format_sniff(copy, len, &format);
        if (rc != AG_SUCCESS) {
            char why[256]; /* the message buffer is about to be rewritten: copy it first */
            snprintf(why, sizeof why, "%s", ag_error_message());
            ag_i_free(copy);
            return AG_ERROR(rc, "%s: %s", name, why);
        }
        if ((rc = open_text(&f, copy, len, name)) != AG_SUCCESS) {
            ag_i_free(copy);
            return rc;
        }
    }
    if (!is_stdin) {
        f = ag_i_fopen_read(path);
        if (!f) return AG_ERROR(AG_EFILE, "%s: %s", path, strerror(errno));
    }
    /* a few bytes can ask igraph for millions of vertices: count them before it allocates */
    ag_graph_vertex_scan_t scan;
    memset(&scan, 0, sizeof scan);
    if (ag_i_graph_format_scanned(format)) {
        ag_i_graph_scan_vertices(f, format, &scan);
        const int scan_failed = ferror(f), scan_errno = errno;
        ag_error_t rc = scan_failed ? AG_ERROR(AG_EFILE, "%s: %s", name, strerror(scan_errno))
                                    : ag_i_graph_check_vertices(name, format, &scan);
        if (rc == AG_SUCCESS && opts->vertices > 0) rc = check_given_vertices(name, opts->vertices, &scan);
        if (rc == AG_SUCCESS && fseek(f, 0, SEEK_SET) != 0)
            rc = AG_ERROR(AG_EFILE, "%s: cannot rewind: %s", name, strerror(errno));
        /* igraph would make a Pajek file's arcs and edges all one kind, by its last header */
        const int unmix = format == AG_FORMAT_PAJEK ? ag_i_pajek_unmix_direction(&scan.pajek) : 0;
        if (rc == AG_SUCCESS && unmix) rc = unmix_pajek(&f, &copy, name, unmix);
        /* igraph reads an edge list as one stream of ids, two by two: a weight column would
         * silently become vertex ids, each edge after it made of the wrong pair */
        if (rc == AG_SUCCESS && format == AG_FORMAT_EDGELIST && odd_fields_first(&scan))
            rc = AG_ERROR(AG_EPARSE, "%s:%lld: %lld field%s, where an edge list has 'from to' on each line%s", name,
                          (long long)scan.odd_line, (long long)scan.odd_fields, scan.odd_fields == 1 ? "" : "s",
                          scan.odd_fields == 1 ? ""
                                               : "; for a third column such as a weight use --format ncol (or a .ncol "
                                                 "extension), which keeps it as edge attribute 'weight' and the ids "
                                                 "as vertex names");
        if (rc == AG_SUCCESS && format == AG_FORMAT_EDGELIST && scan.comment_lines > 0)
            rc = blank_comments(&f, &copy, name);
        if (rc != AG_SUCCESS) {
            if (f) fclose(f);
            ag_i_free(copy);
            return rc;
        }
    }

    /* A UTF-8 byte-order mark (Windows editors write one) is not text igraph's readers know:
     * GML's failed with "unexpected ERROR". libxml reads GraphML's itself. */
    if (format != AG_FORMAT_GRAPHML) {
        unsigned char bom[3];
        const size_t got = fread(bom, 1, 3, f);
        if (!ag_i_bom_length(bom, got) && fseek(f, 0, SEEK_SET) != 0) {
            const int e = errno;
            fclose(f);
            ag_i_free(copy);
            return AG_ERROR(AG_EFILE, "%s: cannot rewind: %s", name, strerror(e));
        }
    }
    /* A GraphML file with an 'id' data key (what igraph writes for a graph read from GML, ours
     * included) keeps that attribute, and igraph then warns that it did not store the <node id>
     * strings in its place: nothing the user can act on, or was lost from their data. */
    static const char own_ids[] = "Could not add vertex ids, there is already an 'id' vertex attribute";
    ag_i_igraph_enter();
    if (format == AG_FORMAT_GRAPHML) ag_i_igraph_ignore_warning(own_ids);
    if (!igraph_has_attribute_table()) igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_error_t irc = parse(ig, f, format, directed, opts->vertices);
    ag_i_igraph_ignore_warning(NULL);
    ag_i_igraph_leave();
    for (int i = 0; i < ag_i_igraph_warning_count(); i++)
        snprintf(read_reasons[n_read_reasons++], WARN_MAX, "%s", ag_i_igraph_warning(i));
    n_read_other = ag_i_igraph_warning_other_count();
    if (n_read_reasons > 0) snprintf(read_warning, sizeof read_warning, "%s: %s", name, read_reasons[0]);
    const int read_failed = ferror(f);
    const int read_errno = errno;
    /* on a parse error only, the first bytes, to say what the text looks like (a GML file given
     * --format graphml gets libxml's "Document is empty"); a pipe cannot be rewound */
    char head[1024];
    size_t n_head = 0;
    if (irc != IGRAPH_SUCCESS && !read_failed && fseek(f, 0, SEEK_SET) == 0) n_head = fread(head, 1, sizeof head, f);
    fclose(f);
    ag_i_free(copy);

    if (irc != IGRAPH_SUCCESS) {
        /* igraph freed the partial graph through its FINALLY stack (the guard's handler runs it). */
        switch (irc) {
        case IGRAPH_ENOMEM: return AG_ERROR(AG_ENOMEM, "%s: out of memory in igraph's %s reader", name,
                                            ag_format_name(format));
        case IGRAPH_UNIMPLEMENTED:
            return ag_i_igraph_error(AG_EFORMAT, __FILE__, __LINE__, "%s: %s is not supported by this igraph build",
                                     name, ag_format_name(format));
        case IGRAPH_EFILE:
            if (read_failed) return AG_ERROR(AG_EFILE, "%s: %s", name, strerror(read_errno));
            return ag_i_igraph_error(AG_EFILE, __FILE__, __LINE__, "%s", name);
        default: {
            /* igraph names no line of an edge list: the scan found the token it failed on */
            const int at_token = format == AG_FORMAT_EDGELIST && scan.bad_line > 0;
            ag_error_t rc = at_token ? ag_i_igraph_error(AG_EPARSE, __FILE__, __LINE__, "%s:%lld", name,
                                                         (long long)scan.bad_line)
                                     : ag_i_igraph_error(AG_EPARSE, __FILE__, __LINE__, "%s", name);
            char msg[512]; /* sniffing sets the message when it recognises nothing */
            snprintf(msg, sizeof msg, "%s", ag_error_message());
            ag_format_t looks;
            if (n_head > 0 && ag_format_sniff(head, n_head, &looks) == AG_SUCCESS && looks != format)
                return AG_ERROR(AG_EPARSE, "%s; read as %s, but its first lines look like %s (--format %s)", msg,
                                ag_format_name(format), ag_format_name(looks), ag_format_name(looks));
            /* a CSV of edges (pandas' and PyG's 'source,target'): its commas, not its names or
             * its header, are what to say first, or the names hint sends it to NCOL, which fails
             * on the same commas */
            if ((format == AG_FORMAT_EDGELIST || format == AG_FORMAT_NCOL || format == AG_FORMAT_LGL) &&
                first_line_has_comma(head, n_head))
                return AG_ERROR(AG_EPARSE, "%s; its lines hold commas, where an %s file separates a line's fields "
                                           "by spaces or tabs (a CSV of edges: replace the commas, e.g. tr ',' ' ', "
                                           "and drop a header line)", msg, ag_format_name(format));
            /* a first line of words over lines of ids only is a header, which the names hint
             * would send to NCOL, where it becomes an edge between vertices 'source' and 'target' */
            if (at_token && scan.bad_first && scan.ids_after > 0 && scan.bad_after == 0)
                return AG_ERROR(AG_EPARSE, "%s; a header line? an edge list has none, and every line after "
                                           "this one holds vertex ids only: remove it (e.g. tail -n +%lld %s)",
                                msg, (long long)scan.bad_line + 1, name);
            if (at_token && scan.bad_first && has_letter(scan.bad_token))
                return AG_ERROR(AG_EPARSE, "%s; vertex names instead of numbers? an edge list numbers its vertices "
                                           "from 0; for names use --format ncol (or a .ncol extension)", msg);
            const char *hint = parse_error_hint(format, msg);
            if (hint) return AG_ERROR(AG_EPARSE, "%s; %s", msg, hint);
            if (n_head == 0 && !at_token) return rc;
            return AG_ERROR(AG_EPARSE, "%s", msg);
        }
        }
    }
    if (read_failed) {
        destroy_guarded(ig);
        return AG_ERROR(AG_EFILE, "%s: %s", name, strerror(read_errno));
    }
    ag_i_igraph_enter();
    const igraph_integer_t nv = igraph_vcount(ig);
    ag_i_igraph_leave();
    if (nv == 0 && !allow_empty) {
        destroy_guarded(ig);
        return AG_ERROR(AG_EPARSE, "%s: the graph has no vertices", name);
    }
    read_format = format;
    return AG_SUCCESS;
}

void ag_graph_read_options_init(ag_graph_read_options_t *opts) {
    if (opts) memset(opts, 0, sizeof *opts);
}

ag_error_t ag_graph_read_with(igraph_t *ig, const char *path, const ag_graph_read_options_t *opts) {
    return read_graph(ig, path, opts);
}

ag_error_t ag_graph_read(igraph_t *ig, const char *path, ag_format_t format, int directed) {
    const ag_graph_read_options_t o = {.format = format, .directed = directed};
    return read_graph(ig, path, &o);
}

ag_error_t ag_graph_read_allow_empty(igraph_t *ig, const char *path, ag_format_t format, int directed) {
    const ag_graph_read_options_t o = {.format = format, .directed = directed, .allow_empty = 1};
    return read_graph(ig, path, &o);
}
