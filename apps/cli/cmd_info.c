/*
 * cmd_info.c: `attn-graph info`, what a graph file holds and what features it would give.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <attngraph/graph.h>
#include <attngraph/safetensors.h>
#include <attngraph/summary.h>
#include "cli.h"
#include "predict.h"

static void info_usage(FILE *out) {
    fprintf(out,
            "usage: attn-graph info [--format F] [--directed] [--vertices N] [--json] [--max-memory SIZE]\n"
            "                        FILE...\n"
            "\n"
            "Prints, per graph file: format, directedness, node and edge counts, self-loops,\n"
            "multi-edges, weakly connected components, degrees, and every vertex, edge and graph\n"
            "attribute with its type, an example value, missing values and feature width.\n"
            "Per model file (*.safetensors): its task and outputs, the attributes a graph must\n"
            "carry (string ones with the values the model knows), its structural columns,\n"
            "architecture, parameter count and ensemble size, and for a node model the graph\n"
            "it was trained on (its vertex and edge counts).\n"
            "Per training checkpoint (the file --checkpoint of train writes, any name): the\n"
            "command that started the run, its epoch, its best epoch so far, and whether it can be\n"
            "resumed. Model and checkpoint files are recognised by their content.\n"
            "\n"
            "  --format F   gml, graphml, edgelist, ncol, lgl, pajek, dimacs, dl or auto (the\n"
            "               default: by file extension; for '-', stdin, by its text: GML,\n"
            "               GraphML, Pajek, DL or LGL; others need --format).\n"
            "  --directed   read edge list, NCOL, LGL, DIMACS and DL files as directed\n"
            "  --vertices N an edge list's vertex count (default: its largest id + 1): the\n"
            "               vertices after the largest id, which no edge names, exist too\n"
            "  --max-memory SIZE  the most reading a graph may take (e.g. 4G; default: the\n"
            "               available memory): a file whose counts ask for more is refused\n"
            "  --json       one JSON object per file per line; a file that failed gets\n"
            "               {\"file\": ..., \"kind\": \"error\", \"error\": ...}, its stderr line;\n"
            "               reading's warnings end a file's object as \"warnings\": [...]\n"
            "  --help       this message\n"
            "\n"
            "Every file is processed; the exit code is that of the first file that failed\n"
            "(3: bad input, 4: bad model file), 2 for a bad command line, 0 if all succeeded.\n");
}

/* The shortest of %.15g and %.17g that reads back to x; JSON has no NaN or infinity. */
static void json_number(FILE *out, double x) {
    char buf[32];
    if (!isfinite(x)) {
        fputs("null", out);
        return;
    }
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, sizeof buf, "%.17g", x);
    fputs(buf, out);
}

static void json_example(FILE *out, const ag_attr_summary_t *a) {
    if (!a->has_example) fputs("null", out);
    else if (a->type == AG_ATTR_STRING) cli_json_string(out, a->string);
    else if (a->type == AG_ATTR_BOOLEAN) fputs(a->number != 0.0 ? "true" : "false", out);
    else json_number(out, a->number);
}

static void print_json(FILE *out, const char *path, ag_format_t format, const ag_graph_summary_t *s,
                       const ag_cli_warnings_t *warnings) {
    fputs("{\"file\": ", out);
    cli_json_string(out, path);
    fprintf(out, ", \"format\": \"%s\", \"directed\": %s", ag_format_name(format), s->directed ? "true" : "false");
    fprintf(out, ", \"nodes\": %lld, \"edges\": %lld, \"self_loops\": %lld, \"multi_edges\": %lld, \"components\": %lld",
            (long long)s->nodes, (long long)s->edges, (long long)s->self_loops, (long long)s->multi_edges,
            (long long)s->components);
    fprintf(out, ", \"degree\": {\"min\": %lld, \"mean\": ", (long long)s->degree_min);
    json_number(out, s->degree_mean);
    fprintf(out, ", \"max\": %lld}", (long long)s->degree_max);
    if (s->directed)
        fprintf(out, ", \"in_degree\": {\"min\": %lld, \"max\": %lld}, \"out_degree\": {\"min\": %lld, \"max\": %lld}",
                (long long)s->in_degree_min, (long long)s->in_degree_max, (long long)s->out_degree_min,
                (long long)s->out_degree_max);
    fputs(", \"attributes\": [", out);
    ag_featurizer_config_t defaults;
    ag_featurizer_config_init(&defaults);
    for (int64_t i = 0; i < s->n_attrs; i++) {
        const ag_attr_summary_t *a = &s->attrs[i];
        /* as the text's '-': what train leaves out by default adds no column ('id') */
        const int left_out = a->kind != AG_ATTR_GRAPH && ag_featurizer_config_excludes(&defaults, a->name);
        fputs(i ? ", {\"kind\": " : "{\"kind\": ", out);
        cli_json_string(out, ag_attr_kind_name(a->kind));
        fputs(", \"name\": ", out);
        cli_json_string(out, a->name);
        fprintf(out, ", \"type\": \"%s\", \"example\": ", ag_attr_type_name(a->type));
        json_example(out, a);
        fprintf(out, ", \"missing\": %lld", (long long)a->missing);
        if (a->type == AG_ATTR_STRING) fprintf(out, ", \"distinct\": %lld", (long long)a->distinct);
        fprintf(out, ", \"feature_width\": %lld%s}", left_out ? 0LL : (long long)a->feature_width,
                left_out ? ", \"default_excluded\": true" : "");
    }
    fputc(']', out);
    cli_json_warnings(out, warnings);
    fputs("}\n", out);
}

/* The terminal columns UTF-8 text s takes: one per character, two for the East Asian wide ones
 * (CJK, Hangul, full-width forms), so that a table of Chinese attribute names lines up (padding by
 * bytes counted each of their characters three times). */
static int columns_of(const char *s) {
    int w = 0;
    for (size_t i = 0, n = strlen(s); i < n;) {
        const size_t len = (unsigned char)s[i] < 0x80 ? 1 : ag_utf8_sequence(s + i, n - i);
        const unsigned cp = cli_utf8_code(s + i, len);
        const int wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
        w += wide ? 2 : 1;
        i += len ? len : 1;
    }
    return w;
}

static void print_text(FILE *out, const char *path, ag_format_t format, const ag_graph_summary_t *s) {
    fprintf(out, "file: %s\nformat: %s\ndirected: %s\n", path, ag_format_name(format), s->directed ? "yes" : "no");
    fprintf(out, "nodes: %lld\nedges: %lld\n", (long long)s->nodes, (long long)s->edges);
    fprintf(out, "self-loops: %lld\nmulti-edges: %lld\ncomponents: %lld\n", (long long)s->self_loops,
            (long long)s->multi_edges, (long long)s->components);
    fprintf(out, "degree: min %lld, mean %.4g, max %lld\n", (long long)s->degree_min, s->degree_mean,
            (long long)s->degree_max);
    if (s->directed) {
        fprintf(out, "in-degree: min %lld, max %lld\n", (long long)s->in_degree_min, (long long)s->in_degree_max);
        fprintf(out, "out-degree: min %lld, max %lld\n", (long long)s->out_degree_min, (long long)s->out_degree_max);
    }
    if (s->n_attrs == 0) {
        fputs("attributes: none\n", out);
        return;
    }
    int name_w = 4;
    for (int64_t i = 0; i < s->n_attrs; i++) {
        char shown[256];
        const int len = columns_of(cli_display(s->attrs[i].name, shown, sizeof shown));
        if (len > name_w) name_w = len;
    }
    fprintf(out, "attributes:\n  %-6s  %-*s  %-7s  %7s  %13s  %s\n", "kind", name_w, "name", "type", "missing",
            "feature width", "example");
    /* what training leaves out whatever the data ('id', attn-graph's own outputs) gives no column */
    ag_featurizer_config_t defaults;
    ag_featurizer_config_init(&defaults);
    for (int64_t i = 0; i < s->n_attrs; i++) {
        const ag_attr_summary_t *a = &s->attrs[i];
        const int left_out = a->kind != AG_ATTR_GRAPH && ag_featurizer_config_excludes(&defaults, a->name);
        char shown[256];
        const char *name = cli_display(a->name, shown, sizeof shown);
        fprintf(out, "  %-6s  %s%*s  %-7s  %7lld  ", ag_attr_kind_name(a->kind), name, name_w - columns_of(name), "",
                ag_attr_type_name(a->type), (long long)a->missing);
        if (a->kind == AG_ATTR_GRAPH || left_out) fprintf(out, "%13s  ", "-");
        else fprintf(out, "%13lld  ", (long long)a->feature_width);
        if (!a->has_example) fputs("(all missing)", out);
        else if (a->type == AG_ATTR_STRING) cli_json_string(out, a->string); /* quoted, control chars escaped */
        else if (a->type == AG_ATTR_BOOLEAN) fputs(a->number != 0.0 ? "true" : "false", out);
        else fprintf(out, "%.15g", a->number);
        if (a->type == AG_ATTR_STRING && a->kind != AG_ATTR_GRAPH) fprintf(out, " (%lld distinct)", (long long)a->distinct);
        if (left_out)
            fprintf(out, " (not a feature unless named: --%s-attrs)", a->kind == AG_ATTR_EDGE ? "edge" : "vertex");
        fputc('\n', out);
    }
}

/* A safetensors file (model or checkpoint), whatever its name: its first bytes say so. */
static int is_safetensors(const char *path) {
    if (strcmp(path, "-") == 0) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char b[9];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return ag_safetensors_sniff(b, n);
}

/* Reads and summarises one file; prints the summary (its JSON with the warnings said about the
 * file) or the error. Returns an exit code. */
static int info_file(const char *path, const ag_graph_read_options_t *ro, int json, int first,
                     const ag_cli_warnings_t *warned) {
    if (ro->format == AG_FORMAT_AUTO && (cli_ends_with_ci(path, ".safetensors") || is_safetensors(path)))
        return ag_cli_info_model(path, json, first);
    igraph_t ig;
    /* a valid file of no vertices is described (0 nodes), not refused: only the commands that
     * work on vertices need some */
    int code = cli_read_graph(&ig, path, ro);
    if (code) return code;
    const ag_format_t format = ag_graph_read_format();
    ag_graph_summary_t s;
    ag_error_t rc = ag_graph_summarize(&ig, &s);
    igraph_destroy(&ig);
    if (rc) return ag_cli_fail(rc);
    if (json) {
        print_json(stdout, path, format, &s, warned);
    } else {
        if (!first) fputc('\n', stdout);
        print_text(stdout, path, format, &s);
    }
    ag_graph_summary_destroy(&s);
    fflush(stdout);
    return AG_EXIT_OK;
}

int ag_cmd_info(int argc, char **argv) {
    ag_format_t format = AG_FORMAT_AUTO;
    int directed = 0, json = 0, n_files = 0;
    int64_t vertices = 0;
    /* options may follow the files, as GNU tools allow; after "--" every argument is a file */
    const char **files = malloc(sizeof *files * (size_t)(argc > 0 ? argc : 1)); /* (argc) the files in order */
    if (!files) {
        fprintf(stderr, "attn-graph: info: out of memory\n");
        return AG_EXIT_FAILURE;
    }
    int code = AG_EXIT_OK, only_files = 0;
    for (int i = 1; i < argc && code == AG_EXIT_OK; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            files[n_files++] = a;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            info_usage(stdout);
            free(files);
            return AG_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--directed")) {
            directed = 1;
        } else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            const char *value = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value) {
                fprintf(stderr, "attn-graph: info: --format needs a value\n");
                code = AG_EXIT_USAGE;
            } else if (ag_format_from_name(value, &format)) {
                fprintf(stderr, "attn-graph: info: %s\n", ag_error_message());
                code = AG_EXIT_USAGE;
            }
        } else {
            int r = cli_max_memory_option("info", argc, argv, &i);
            if (r == 0) r = cli_vertices_option("info", argc, argv, &i, &vertices);
            if (r == 0) fprintf(stderr, "attn-graph: info: unknown option '%s' (see 'attn-graph info --help')\n", a);
            if (r <= 0) code = AG_EXIT_USAGE;
        }
    }
    if (code == AG_EXIT_OK && n_files == 0) {
        fprintf(stderr, "attn-graph: info: no graph file given (see 'attn-graph info --help')\n");
        code = AG_EXIT_USAGE;
    }
    /* Keep going after a bad file so that one run reports on all of them. */
    for (int f = 0, first = 1; f < n_files && code != AG_EXIT_USAGE; f++) {
        /* each file's warnings (igraph's, reading it) go with its own object */
        ag_cli_warnings_t warned;
        ag_cli_warnings_t *was = ag_cli_warnings_start(&warned);
        const ag_graph_read_options_t ro = {.format = format, .directed = directed, .allow_empty = 1,
                                            .vertices = vertices};
        int c = info_file(files[f], &ro, json, first, &warned);
        ag_cli_warnings_collect(was);
        if (c == AG_EXIT_OK) {
            first = 0;
        } else {
            if (code == AG_EXIT_OK) code = c;
            /* every failure reports through ag_cli_error: its stderr line is the JSON's message */
            if (json) {
                cli_json_error(stdout, files[f], "error", ag_cli_last_error(), &warned);
                fflush(stdout);
            }
        }
        ag_cli_warnings_clear(&warned);
    }
    free(files);
    return code;
}
