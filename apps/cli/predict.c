/*
 * predict.c: helpers of the prediction commands (classify, label, explain): default models,
 * igraph errors in the program, JSON output, atomic output files, and the option parsing, model
 * loading and forward pass that label and explain share.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "learn.h"
#include "predict.h"
#include "train_support.h"

#ifndef AG_MODELS_INSTALL_DIR
#define AG_MODELS_INSTALL_DIR ""
#endif
#ifndef AG_MODELS_SOURCE_DIR
#define AG_MODELS_SOURCE_DIR ""
#endif

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *cli_default_model(const char *cmd, const char *name, char *buf, size_t cap) {
    const char *env = getenv("ATTN_GRAPH_MODELS");
    const char *dirs[3] = {env && env[0] ? env : NULL, AG_MODELS_INSTALL_DIR, AG_MODELS_SOURCE_DIR};
    for (int i = 0; i < 3; i++) {
        if (!dirs[i] || !dirs[i][0]) continue;
        snprintf(buf, cap, "%s/%s", dirs[i], name);
        if (file_exists(buf)) return buf;
    }
    fprintf(stderr,
            "attn-graph: %s: no --model given and the default model %s is not in $ATTN_GRAPH_MODELS (%s), %s or %s\n",
            cmd, name, env && env[0] ? env : "unset", AG_MODELS_INSTALL_DIR[0] ? AG_MODELS_INSTALL_DIR : "-",
            AG_MODELS_SOURCE_DIR[0] ? AG_MODELS_SOURCE_DIR : "-");
    return NULL;
}

int cli_shares_no_attribute(const ag_bundle_t *b, const igraph_t *ig) {
    const ag_featurizer_t *f = &b->featurizer;
    for (int64_t i = 0; i < f->n_vattrs; i++)
        if (igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, f->vattrs[i].name)) return 0;
    return f->n_vattrs > 0;
}

void cli_default_model_hint(const char *cmd, const char *path) {
    const char *what = strstr(path, "tox21.safetensors") ? "the shipped Tox21 toxicity model, for molecules with the "
                                                           "attributes of the shared Tox21 files"
                       : strstr(path, "karate.safetensors") ? "the shipped model of the Karate club's factions"
                                                            : "a shipped model";
    fprintf(stderr, "attn-graph: note: no --model given: %s used its default model, %s (%s); give --model for "
            "another (docs/cli.md, 'Default models')\n", cmd, what, path);
}

int cli_load_model(const char *path, ag_bundle_t *b) {
    ag_error_t rc = ag_bundle_load(path, b);
    if (rc == AG_SUCCESS) return AG_EXIT_OK;
    fprintf(stderr, "attn-graph: %s\n", ag_error_message());
    /* a model file that cannot be opened or read is still the model's fault, not the graph's */
    return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_MODEL;
}

void cli_bundle_keep_attention(ag_bundle_t *b, int keep) {
    for (int64_t m = 0; m < b->n_members; m++) ag_model_keep_attention(b->members[m], keep);
}

static char igraph_reason[512];

static void catch_igraph_error(const char *reason, const char *file, int line, igraph_error_t err) {
    (void)file;
    (void)line;
    if (igraph_reason[0] == '\0')
        snprintf(igraph_reason, sizeof igraph_reason, "%s (%s)", reason && reason[0] ? reason : "igraph error",
                 igraph_strerror(err));
    IGRAPH_FINALLY_FREE();
}

void cli_igraph_catch(void) {
    igraph_reason[0] = '\0';
    igraph_set_error_handler(catch_igraph_error);
}

const char *cli_igraph_message(void) {
    return igraph_reason[0] ? igraph_reason : "igraph error";
}

unsigned cli_utf8_code(const char *s, size_t len) {
    const unsigned char *p = (const unsigned char *)s;
    return len == 2   ? (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu)
           : len == 3 ? (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu)
           : len == 4 ? (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu)
                      : p[0];
}

size_t cli_unsafe_seq(const char *s, size_t n, unsigned *code, int *raw_byte) {
    const unsigned char *p = (const unsigned char *)s;
    *raw_byte = 0;
    *code = p[0];
    if (p[0] < 0x20 || p[0] == 0x7f) return 1;
    if (p[0] < 0x80) return 0;
    const size_t len = ag_utf8_sequence(s, n);
    if (len == 0) { /* a byte of another encoding: shown as its value, never raw */
        *raw_byte = 1;
        return 1;
    }
    const unsigned cp = cli_utf8_code(s, len);
    *code = cp;
    /* C1 controls (CSI U+009B, NEL), the line and paragraph separators, and the bidirectional
     * marks, embeddings, overrides and isolates, which reorder how a line shows */
    if ((cp >= 0x80 && cp < 0xA0) || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069))
        return len;
    return 0;
}

int cli_text_safe(const char *s) { return cli_text_safe_n(s, strlen(s)); }

int cli_text_safe_n(const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned code;
        int raw;
        if (cli_unsafe_seq(s + i, n - i, &code, &raw)) return 0;
        const size_t len = (unsigned char)s[i] < 0x80 ? 1 : ag_utf8_sequence(s + i, n - i);
        i += len ? len : 1;
    }
    return 1;
}

void cli_json_string(FILE *out, const char *s) { cli_json_string_n(out, s, strlen(s)); }

void cli_json_string_n(FILE *out, const char *s, size_t n) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s, *e = p + n; p < e; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            /* DEL and the C1 controls (U+0080-U+009F) may stand raw in JSON, but escaped no
             * control character of a value reaches a terminal that shows the output */
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(out, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, out);
            } else {
                /* JSON is UTF-8: a byte of another encoding (a Latin-1 name) becomes U+FFFD, as
                 * Python's errors="replace" does, so the output still parses */
                size_t len = ag_utf8_sequence((const char *)p, (size_t)(e - p));
                unsigned code;
                int raw;
                if (len == 0) {
                    fputs("\xEF\xBF\xBD", out);
                } else if (cli_unsafe_seq((const char *)p, (size_t)(e - p), &code, &raw)) {
                    fprintf(out, "\\u%04x", code); /* C1, separators, bidi marks: valid JSON either way */
                    p += len - 1;
                } else {
                    fwrite(p, 1, len, out);
                    p += len - 1;
                }
            }
        }
    }
    fputc('"', out);
}

int cli_value_plain(const char *v) {
    const size_t n = strlen(v);
    if (n == 0) return 0;
    for (size_t i = 0; i < n;) {
        const unsigned char c = (unsigned char)v[i];
        unsigned code;
        int raw;
        if (c <= ' ' || c == '"' || cli_unsafe_seq(v + i, n - i, &code, &raw)) return 0;
        const size_t len = c < 0x80 ? 1 : ag_utf8_sequence(v + i, n - i);
        i += len;
    }
    return 1;
}

void cli_print_value(FILE *out, const char *v, char quote) {
    if (!cli_value_plain(v)) cli_json_string(out, v);
    else if (quote) fprintf(out, "%c%s%c", quote, v, quote);
    else fputs(v, out);
}

const char *cli_display(const char *s, char *buf, size_t cap) {
    if (cli_text_safe(s)) return s;
    /* as a JSON string, the escapes every other place of the program uses ("g\\tx", "\\u009b") */
    FILE *m = cap >= 8 ? fmemopen(buf, cap, "w") : NULL;
    if (!m) return "(a name with control characters)";
    setvbuf(m, NULL, _IONBF, 0);
    cli_json_string(m, s);
    const long at = ftell(m);
    fclose(m);
    if (at < 0 || (size_t)at >= cap) snprintf(buf + cap - 5, 5, "...\"");
    return buf;
}

void cli_json_number(FILE *out, double x) {
    if (!isfinite(x)) fputs("null", out);
    else fprintf(out, "%.6g", x);
}

void cli_json_error(FILE *out, const char *path, const char *kind, const char *message,
                    const ag_cli_warnings_t *warnings) {
    fputs("{\"file\": ", out);
    cli_json_string(out, path);
    if (kind) {
        fputs(", \"kind\": ", out);
        cli_json_string(out, kind);
    }
    fputs(", \"error\": ", out);
    cli_json_string(out, message);
    cli_json_warnings(out, warnings);
    fputs("}\n", out);
}

void cli_json_warnings(FILE *out, const ag_cli_warnings_t *w) {
    if (!w || w->n + w->lost == 0) return;
    fputs(", \"warnings\": [", out);
    for (size_t i = 0; i < w->n; i++) {
        if (i) fputs(", ", out);
        cli_json_string(out, w->text[i]);
    }
    if (w->lost) {
        /* a reader that counts on the array must not take it for all of them */
        char note[160];
        snprintf(note, sizeof note, "%zu more warning%s could not be kept (out of memory): see standard error",
                 w->lost, w->lost == 1 ? "" : "s");
        if (w->n) fputs(", ", out);
        cli_json_string(out, note);
    }
    fputc(']', out);
}

int cli_ends_with_ci(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

cli_out_kind_t cli_out_kind(const char *path) {
    if (cli_ends_with_ci(path, ".gml")) return CLI_OUT_GML;
    if (cli_ends_with_ci(path, ".graphml") || cli_ends_with_ci(path, ".xml")) return CLI_OUT_GRAPHML;
    if (cli_ends_with_ci(path, ".csv")) return CLI_OUT_CSV;
    if (cli_ends_with_ci(path, ".svg")) return CLI_OUT_SVG;
    if (cli_ends_with_ci(path, ".json") || cli_ends_with_ci(path, ".jsonl")) return CLI_OUT_JSON;
    return CLI_OUT_UNKNOWN;
}


/* Whether ig has the vertex attribute 'id' as strings (GraphML's node ids, a Pajek file's labels). */
static int string_id_attr(const igraph_t *ig) {
    igraph_attribute_type_t t;
    return igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, "id") &&
           igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_VERTEX, "id") == IGRAPH_SUCCESS &&
           t == IGRAPH_ATTRIBUTE_STRING;
}

/* GML numbers its vertices: igraph's writer takes a numeric 'id' attribute as the numbers and
 * drops a string one, such as the node ids igraph reads from GraphML ("a", "n12"). Returns 1 when
 * the ids are strings, with *key the attribute to write them under instead: the first of 'name'
 * and 'label' the graph lacks, or NULL when both are taken. */
static int string_ids(const igraph_t *ig, const char **key) {
    *key = NULL;
    if (!string_id_attr(ig)) return 0;
    static const char *const keys[2] = {"name", "label"};
    for (int k = 0; k < 2 && !*key; k++)
        if (!igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, keys[k])) *key = keys[k];
    return 1;
}

/* A copy of ig with its string ids under key instead of 'id'; 0, or -1 with the error printed. */
static int move_ids(const char *cmd, const igraph_t *ig, const char *key, igraph_t *out, const char *path) {
    igraph_strvector_t ids;
    if (igraph_strvector_init(&ids, 0) != IGRAPH_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: out of memory writing %s\n", cmd, path);
        return -1;
    }
    int ok = igraph_copy(out, ig) == IGRAPH_SUCCESS;
    if (ok && (igraph_cattribute_VASV(ig, "id", igraph_vss_all(), &ids) != IGRAPH_SUCCESS ||
               igraph_cattribute_VAS_setv(out, key, &ids) != IGRAPH_SUCCESS)) {
        igraph_destroy(out);
        ok = 0;
    }
    igraph_strvector_destroy(&ids);
    if (!ok) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, cli_igraph_message());
        return -1;
    }
    igraph_cattribute_remove_v(out, "id");
    return 0;
}

int cli_write_graph(const char *cmd, const igraph_t *ig, cli_out_kind_t kind, FILE *f, const char *path) {
    cli_igraph_catch();
    const char *key = NULL;
    igraph_t moved;
    int have_moved = 0;
    if (kind == CLI_OUT_GML && string_ids(ig, &key)) {
        if (!key) {
            char pb[512];
            ag_cli_warning("%s: GML numbers its vertices and the graph has 'name' and 'label' already: its string "
                           "vertex ids ('id') are not written; write GraphML (.graphml) to keep them",
                           cli_display(path, pb, sizeof pb));
        } else {
            if (move_ids(cmd, ig, key, &moved, path) < 0) return -1;
            have_moved = 1;
            char pb[512];
            fprintf(stderr, "attn-graph: note: %s: GML numbers its vertices: the text vertex ids (attribute 'id': "
                    "GraphML's node ids, a Pajek file's labels) are written as '%s'\n", cli_display(path, pb, sizeof pb),
                    key);
        }
    }
    ag_cli_warning_path(path); /* GML has no booleans: igraph warns that it wrote them as numbers */
    const igraph_t *w = have_moved ? &moved : ig;
    igraph_error_t e = kind == CLI_OUT_GML
                               ? igraph_write_graph_gml(w, f, IGRAPH_WRITE_GML_DEFAULT_SW, NULL, "attn-graph")
                               : igraph_write_graph_graphml(w, f, 1);
    ag_cli_warning_path(NULL);
    if (have_moved) igraph_destroy(&moved);
    if (e != IGRAPH_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, cli_igraph_message());
        return -1;
    }
    return 0;
}

/* XML 1.0 has no place for the C0 controls but tab, line feed and carriage return: not even as a
 * character reference (&#1; is not well-formed), so igraph's GraphML writer stops at one with a
 * bare "Forbidden control character". */
static int xml_forbidden(unsigned char c) { return c < 0x20 && c != '\t' && c != '\n' && c != '\r'; }

static const char *xml_forbidden_in(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (xml_forbidden(*p)) return (const char *)p;
    return NULL;
}

/* The first string of ig that GraphML cannot hold (an attribute's name or a string value), and
 * how many there are. */
typedef struct xml_misfit_t {
    int64_t count;
    igraph_attribute_elemtype_t kind; /* of the first */
    const char *attr;
    int64_t element;                  /* the vertex or edge; -1: the graph, or the attribute's name */
    const char *text;                 /* the string holding the character */
    unsigned char c;
    int not_utf8;                     /* c is a byte that is not UTF-8 (a Latin-1 file's), else a control */
} xml_misfit_t;

static void xml_misfit_note(xml_misfit_t *m, igraph_attribute_elemtype_t kind, const char *attr, int64_t element,
                            const char *text) {
    /* igraph writes the file as UTF-8 XML: a Latin-1 byte made a file that igraph itself, and
     * every XML reader, then refused ("Input is not proper UTF-8") */
    size_t bad = 0;
    const char *at = xml_forbidden_in(text);
    const int not_utf8 = !at && !ag_utf8_valid(text, &bad);
    if (not_utf8) at = text + bad;
    if (!at) return;
    if (m->count++ == 0) *m = (xml_misfit_t){1, kind, attr, element, text, (unsigned char)*at, not_utf8};
}

/* Refuses (exit 3, naming the attribute, the vertex or edge and the value) a graph whose strings
 * GraphML cannot hold, before OUT is opened. Replacing the character would rewrite names silently
 * (two vertices could end up with one name), so the user chooses: GML carries every byte. */
static int check_graphml(const char *cmd, const igraph_t *ig, const char *path) {
    igraph_strvector_t names[3];
    igraph_vector_int_t types[3];
    static const igraph_attribute_elemtype_t kinds[3] = {IGRAPH_ATTRIBUTE_GRAPH, IGRAPH_ATTRIBUTE_VERTEX,
                                                         IGRAPH_ATTRIBUTE_EDGE};
    if (!igraph_has_attribute_table() || !ig->attr) return AG_EXIT_OK; /* no attributes, nothing to refuse */
    cli_igraph_catch();
    int k = 0;
    for (; k < 3; k++) {
        if (igraph_strvector_init(&names[k], 0) != IGRAPH_SUCCESS) break;
        if (igraph_vector_int_init(&types[k], 0) != IGRAPH_SUCCESS) {
            igraph_strvector_destroy(&names[k]);
            break;
        }
    }
    int ok = k == 3 && igraph_cattribute_list(ig, &names[0], &types[0], &names[1], &types[1], &names[2],
                                              &types[2]) == IGRAPH_SUCCESS;
    xml_misfit_t m = {0};
    for (int j = 0; j < 3 && ok; j++) {
        const int64_t n = kinds[j] == IGRAPH_ATTRIBUTE_GRAPH    ? 1
                          : kinds[j] == IGRAPH_ATTRIBUTE_VERTEX ? (int64_t)igraph_vcount(ig)
                                                                : (int64_t)igraph_ecount(ig);
        for (igraph_integer_t i = 0; i < igraph_strvector_size(&names[j]); i++) {
            const char *a = igraph_strvector_get(&names[j], i);
            xml_misfit_note(&m, kinds[j], a, -1, a);
            if (VECTOR(types[j])[i] != IGRAPH_ATTRIBUTE_STRING) continue;
            for (int64_t e = 0; e < n; e++)
                xml_misfit_note(&m, kinds[j], a, kinds[j] == IGRAPH_ATTRIBUTE_GRAPH ? -1 : e,
                                kinds[j] == IGRAPH_ATTRIBUTE_GRAPH    ? GAS(ig, a)
                                : kinds[j] == IGRAPH_ATTRIBUTE_VERTEX ? VAS(ig, a, e)
                                                                      : EAS(ig, a, e));
        }
    }
    int code = AG_EXIT_OK;
    if (!ok) {
        fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, cli_igraph_message());
        code = AG_EXIT_FAILURE;
    } else if (m.count) {
        const char *what = m.kind == IGRAPH_ATTRIBUTE_GRAPH ? "graph" : m.kind == IGRAPH_ATTRIBUTE_VERTEX ? "vertex" : "edge";
        fprintf(stderr, "attn-graph: %s: cannot write %s: ", cmd, path);
        if (m.text == m.attr) fprintf(stderr, "the name of %s attribute ", what);
        else if (m.element < 0) fputs("graph attribute ", stderr);
        else fprintf(stderr, "%s %lld's attribute ", what, (long long)m.element);
        cli_print_value(stderr, m.attr, '\'');
        fprintf(stderr, m.not_utf8 ? " holds byte 0x%02X" : " holds control character 0x%02X", m.c);
        if (m.text != m.attr) {
            fputs(" (", stderr);
            cli_json_string(stderr, m.text);
            fputc(')', stderr);
        }
        fputs(m.not_utf8 ? ", which GraphML cannot hold (a GraphML file is UTF-8 XML and the byte is not UTF-8: "
                           "readers refuse it"
                         : ", which GraphML cannot hold (XML 1.0 forbids it, even escaped", stderr);
        if (m.count > 1)
            fprintf(stderr, "; %lld more string%s GraphML cannot hold", (long long)(m.count - 1), m.count > 2 ? "s" : "");
        /* the suggestion keeps OUT's name (a.graphml -> a.gml), unless a file has it: often the input
         * itself (label a.gml -o a.graphml), which -o refuses */
        const size_t ext = cli_ends_with_ci(path, ".xml") ? 4 : 8;
        char gml[4096];
        snprintf(gml, sizeof gml, "%.*s.gml", (int)(strlen(path) - ext), path);
        fprintf(stderr, "); write GML (-o %s), which keeps every byte, or %s\n", file_exists(gml) ? "FILE.gml" : gml,
                m.not_utf8 ? "convert the input to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                           : "remove the characters from the graph");
        code = AG_EXIT_INPUT;
    }
    for (int j = 0; j < k; j++) {
        igraph_strvector_destroy(&names[j]);
        igraph_vector_int_destroy(&types[j]);
    }
    return code;
}

/* The key igraph's GML writer gives an attribute (igraph 0.10's gml.c): its letters and digits
 * (C locale), after "igraph" when it does not start with a letter. */
static void gml_key(char *key, size_t cap, const char *name) {
    size_t k = 0;
    if (!isalpha((unsigned char)name[0])) k = (size_t)snprintf(key, cap, "igraph");
    for (const char *c = name; *c && k + 1 < cap; c++)
        if (isalnum((unsigned char)*c)) key[k++] = *c;
    key[k < cap ? k : cap - 1] = '\0';
}

/* Refuses (exit 3) a graph two of whose attributes of one kind the GML writer would give one key
 * (club_name and clubname; a graph's prob-0 beside the prob0 label writes): the file would hold
 * the key twice, and igraph keeps the last of them, other readers a list. */
static int check_gml_keys(const char *cmd, const igraph_t *ig, const char *path) {
    if (!igraph_has_attribute_table() || !ig->attr) return AG_EXIT_OK;
    igraph_strvector_t names[3];
    static const char *const what[3] = {"graph", "vertex", "edge"};
    int k = 0;
    for (; k < 3; k++)
        if (igraph_strvector_init(&names[k], 0) != IGRAPH_SUCCESS) break;
    cli_igraph_catch();
    int code = k == 3 && igraph_cattribute_list(ig, &names[0], NULL, &names[1], NULL, &names[2], NULL) == IGRAPH_SUCCESS
                   ? AG_EXIT_OK
                   : AG_EXIT_FAILURE;
    if (code) fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, cli_igraph_message());
    for (int j = 0; j < 3 && !code; j++) {
        const igraph_integer_t n = igraph_strvector_size(&names[j]);
        for (igraph_integer_t a = 0; a < n && !code; a++) {
            char ka[512], kb[512], alnum[512];
            const char *name = igraph_strvector_get(&names[j], a);
            gml_key(ka, sizeof ka, name);
            /* a reader finds an attribute under its letters and digits (features.c's graph_name):
             * a key with "igraph" in front (a name of CJK letters alone, or starting with a digit)
             * is a name no model knows */
            size_t m = 0;
            for (const char *c = name; *c && m + 1 < sizeof alnum; c++)
                if (isalnum((unsigned char)*c)) alnum[m++] = *c;
            alnum[m] = '\0';
            if (strcmp(ka, alnum)) {
                char pb[512];
                ag_cli_warning_t w;
                FILE *out = ag_cli_warning_begin(&w);
                fprintf(out, "%s: %s attribute ", cli_display(path, pb, sizeof pb), what[j]);
                cli_print_value(out, name, '\'');
                fprintf(out, " is written as '%s' (GML keys start with a letter and hold ASCII letters and digits "
                             "only), a name no model reads back; write GraphML (-o FILE.graphml) to keep it", ka);
                ag_cli_warning_end(&w);
            }
            for (igraph_integer_t b = a + 1; b < n && !code; b++) {
                gml_key(kb, sizeof kb, igraph_strvector_get(&names[j], b));
                if (strcmp(ka, kb)) continue;
                fprintf(stderr, "attn-graph: %s: cannot write %s: %s attributes ", cmd, path, what[j]);
                cli_print_value(stderr, igraph_strvector_get(&names[j], a), '\'');
                fputs(" and ", stderr);
                cli_print_value(stderr, igraph_strvector_get(&names[j], b), '\'');
                fprintf(stderr, " would both be written as '%s' (GML keys hold letters and digits only), and a reader "
                                "would keep one; rename one of them, or write GraphML (-o FILE.graphml), which keeps "
                                "both names\n", ka);
                code = AG_EXIT_INPUT;
            }
        }
    }
    for (int j = 0; j < k; j++) igraph_strvector_destroy(&names[j]);
    return code;
}

int cli_write_graph_file(const char *cmd, const igraph_t *ig, cli_out_kind_t kind, const char *path) {
    if (kind == CLI_OUT_GRAPHML || kind == CLI_OUT_GML) {
        int code = kind == CLI_OUT_GRAPHML ? check_graphml(cmd, ig, path) : check_gml_keys(cmd, ig, path);
        if (code) return code;
    }
    cli_atomic_t out;
    if (cli_atomic_open(&out, cmd, path) < 0) return AG_EXIT_FAILURE;
    if (cli_write_graph(cmd, ig, kind, out.f, path) < 0) {
        cli_atomic_abort(&out);
        return AG_EXIT_FAILURE;
    }
    return cli_atomic_commit(&out, cmd) < 0 ? AG_EXIT_FAILURE : AG_EXIT_OK;
}

void cli_say_read_warnings(const char *path) {
    /* every one: each is data igraph left out (a GML file with two lists loses both), and the
     * first alone hid the others; named as ag_graph_read_warning() names its first */
    const char *name = cli_shown_path(path);
    const int n = ag_graph_read_warning_count(), other = ag_graph_read_warnings_other();
    for (int i = 0; i < n; i++) ag_cli_warning("%s: %s", name, ag_graph_read_warning_reason(i));
    if (other > 0)
        ag_cli_warning("%s: igraph warned of %d other thing%s than the %d above", name, other, other == 1 ? "" : "s",
                       n);
}

int cli_read_graph(igraph_t *ig, const char *path, const ag_graph_read_options_t *opts) {
    ag_error_t rc = ag_graph_read_with(ig, path, opts);
    cli_say_read_warnings(path);
    return rc ? ag_cli_fail(rc) : AG_EXIT_OK;
}

/* Warns of each string attribute the model reads that some of ig's vertices or edges lack (an
 * empty value: no column of it is set): a prediction made on missing values gave no word (a QA
 * pass: 12 of 13 atoms without an element, a changed prediction, exit 0), and one blank atom gave
 * none either. The shipped datasets have no blanks, so data like theirs stay quiet. */
static void warn_missing(const ag_bundle_t *b, const igraph_t *ig, const char *path) {
    const ag_featurizer_t *f = &b->featurizer;
    for (int is_edge = 0; is_edge < 2; is_edge++) {
        const ag_feature_attr_t *attrs = is_edge ? f->eattrs : f->vattrs;
        const int64_t n_attrs = is_edge ? f->n_eattrs : f->n_vattrs;
        const int64_t total = is_edge ? igraph_ecount(ig) : igraph_vcount(ig);
        for (int64_t i = 0; i < n_attrs; i++) {
            int64_t empty = 0;
            if (ag_featurizer_missing(f, ig, is_edge, i, &empty) != AG_SUCCESS || empty == 0) continue;
            const char *el = is_edge ? "edge" : "vertex", *els = is_edge ? "edges" : "vertices";
            char pb[512];
            ag_cli_warning_t w;
            FILE *out = ag_cli_warning_begin(&w);
            fprintf(out, "%s: %lld of %lld %s %s no value of %s attribute ", cli_display(path, pb, sizeof pb),
                    (long long)empty, (long long)total, total == 1 ? el : els, empty == 1 ? "has" : "have", el);
            cli_print_value(out, attrs[i].name, '\'');
            fprintf(out, " (empty): none of its columns is set for %s, so the prediction rests on the other "
                    "attributes", empty == 1 ? "it" : "them");
            ag_cli_warning_end(&w);
        }
    }
}

void cli_warn_unseen(const ag_bundle_t *b, const igraph_t *ig, const char *path) {
    warn_missing(b, ig, path);
    ag_unseen_t u;
    if (ag_featurizer_unseen(&b->featurizer, ig, &u) != AG_SUCCESS || !u.attr) return;
    const char *el = u.is_edge ? "edge" : "vertex", *els = u.total == 1 ? el : u.is_edge ? "edges" : "vertices";
    char pb[512];
    path = cli_display(path, pb, sizeof pb);
    ag_cli_warning_t w;
    FILE *out = ag_cli_warning_begin(&w);
    if (u.count == u.total)
        fprintf(out, "%s: no %s has a value of ", path, el);
    else
        fprintf(out, "%s: %lld of %lld %s %s a value of ", path, (long long)u.count, (long long)u.total, els,
                u.count == 1 ? "has" : "have");
    cli_print_value(out, u.attr, '\'');
    fputs(u.count == u.total ? " the model saw in training (e.g. " : " the model never saw in training (e.g. ", out);
    cli_print_value(out, u.example, '\''); /* the graph's bytes: a control character is escaped */
    if (u.count == u.total)
        fputs("): all get its 'other' column (is this the kind of graph the model was trained on? 'attn-graph info "
              "MODEL' lists the values it knows)", out);
    else
        fprintf(out, "): %s its 'other' column", u.count == 1 ? "it gets" : "they get");
    ag_cli_warning_end(&w);
}

/* Column c of M (N x F) on this graph: its mean, standard deviation, largest magnitude and the
 * (first) row holding it. For a standardised column these are in training standard deviations
 * around the training mean. */
static void column_stats(const ag_fmat_t *M, int64_t c, double *mean, double *sd, double *amax, int64_t *at) {
    double s = 0.0, q = 0.0, a = 0.0;
    for (int64_t i = 0; i < M->rows; i++) s += M->data[i * M->cols + c];
    const double m = M->rows ? s / (double)M->rows : 0.0;
    *at = 0;
    for (int64_t i = 0; i < M->rows; i++) {
        const double x = M->data[i * M->cols + c];
        q += (x - m) * (x - m);
        if (fabs(x) > a) a = fabs(x), *at = i;
    }
    *mean = m;
    *sd = M->rows ? sqrt(q / (double)M->rows) : 0.0;
    *amax = a;
}

int cli_column_standardised(const ag_featurizer_t *f, const ag_table_norm_t *t, cli_col_part_t part, int64_t c,
                            float *mean, float *std) {
    const float *m = part == CLI_COL_EDGE    ? f->edge_mean
                     : part == CLI_COL_TABLE ? (t && t->norm == AG_NORM_STANDARDIZE ? t->mean : NULL)
                                             : (f->norm == AG_NORM_STANDARDIZE ? f->mean : NULL);
    if (!m) return 0; /* (t may be NULL only when there is no table part to read) */
    const float *s = part == CLI_COL_EDGE ? f->edge_std : part == CLI_COL_TABLE ? t->std : f->std;
    if (m[c] == 0.0f && s[c] == 1.0f) return 0;
    *mean = m[c];
    *std = s[c];
    return 1;
}

/* Five deviations: the mean of a large graph's vertices does not wander that far by chance, nor
 * their spread grow fivefold (a centred column given x10 kept its mean, and accuracy went from
 * 0.985 to 0.51 unwarned). */
#define SHIFT_LIMIT 5.0
/* A graph of a graph-level model is small (a molecule): its mean and spread are its own, not its
 * dataset's, so only one value far beyond anything plausible is taken as another unit or scale.
 * 100 deviations: the real molecules of Tox21 and ESOL reach 29 under the shipped models (a charge
 * of +3, bismuth's atomic number). */
#define VALUE_LIMIT 100.0

/* One numeric input column of a featurised graph, measured against the model's training values. */
typedef struct {
    cli_col_part_t part;
    const ag_feature_attr_t *attr; /* NULL for a node-table column */
    int64_t i;                     /* the column's index within its part */
    int64_t col;                   /* its column in X (or E) */
    int as_is;                     /* not standardised: training values were within [-1, 1] */
    float mean, sd;                /* training mean and deviation when standardised */
    double m, s, amax;             /* here: mean, deviation, largest magnitude (training units) */
    int64_t at;                    /* the vertex or edge of amax */
    double x;                      /* its value in X or E */
} shifted_col_t;

/* 1 when column i of part k of this graph lies far from the training values (by the graph-level
 * or node-level rule), with *out filled; 0 otherwise (also for a column that cannot drift). */
static int shifted_column(const ag_bundle_t *b, const ag_fmat_t *X, const ag_fmat_t *E, int graph_level,
                          cli_col_part_t k, int64_t i, shifted_col_t *out) {
    const ag_featurizer_t *f = &b->featurizer;
    const ag_fmat_t *M = k == CLI_COL_EDGE ? E : X;
    /* under --normalize none the training range is unknown: nothing to compare with */
    const int fitted = k == CLI_COL_EDGE ? f->edge_mean != NULL
                       : k == CLI_COL_TABLE ? b->table.norm == AG_NORM_STANDARDIZE
                                            : f->norm == AG_NORM_STANDARDIZE;
    if (!M || M->rows < (graph_level ? 1 : 2) || !fitted) return 0;
    const ag_feature_attr_t *a = k == CLI_COL_VERTEX ? &f->vattrs[i] : k == CLI_COL_EDGE ? &f->eattrs[i] : NULL;
    if (a && a->type != AG_ATTR_NUMERIC) return 0; /* one-hot and 0/1 columns cannot drift in scale */
    const int64_t c = a ? a->offset : i;
    memset(out, 0, sizeof *out);
    out->part = k;
    out->attr = a;
    out->i = i;
    out->col = k == CLI_COL_TABLE ? f->n_features + i : c; /* the table's follow the graph's in X */
    out->mean = 0.0f;
    out->sd = 1.0f;
    /* not standardised: its training values were all within [-1, 1] (--normalize auto left it as
     * it was), so that values here, taken as they are, compare with the same limit */
    out->as_is = !cli_column_standardised(f, &b->table, k, c, &out->mean, &out->sd);
    column_stats(M, out->col, &out->m, &out->s, &out->amax, &out->at);
    out->x = M->data[out->at * M->cols + out->col];
    return graph_level ? out->amax > VALUE_LIMIT : fabs(out->m) > SHIFT_LIMIT || out->s > SHIFT_LIMIT;
}

/* The number of input columns of part k. */
static int64_t part_width(const ag_bundle_t *b, cli_col_part_t k) {
    const ag_featurizer_t *f = &b->featurizer;
    return k == CLI_COL_VERTEX ? f->n_vattrs : k == CLI_COL_TABLE ? b->table.width : f->n_eattrs;
}

/* "vertex attribute 'x'" (or the node table's column by name or number) */
static void print_column_name(FILE *out, const ag_bundle_t *b, const shifted_col_t *sc) {
    static const char *const part_name[3] = {"vertex attribute", "node-table column", "edge attribute"};
    if (sc->attr) fprintf(out, "%s '%s'", part_name[sc->part], sc->attr->name);
    else if (b->table.columns) fprintf(out, "%s '%s'", part_name[sc->part], b->table.columns[sc->i]);
    else fprintf(out, "%s %lld", part_name[sc->part], (long long)sc->i + 1);
}

/* What is far about the column, in the training units. */
static void print_shift(FILE *out, const shifted_col_t *sc, int graph_level) {
    const char *el = sc->part == CLI_COL_EDGE ? "edge" : "vertex";
    if (graph_level && sc->as_is)
        fprintf(out, "its value on %s %lld is %.4g while in training all were within [-1, 1], so the model "
                "takes it as it is", el, (long long)sc->at, sc->x);
    else if (graph_level)
        fprintf(out, "its value on %s %lld is %.4g, %.0f standard deviations %s the training mean (%.4g, std %.4g)",
                el, (long long)sc->at, sc->mean + sc->x * sc->sd, sc->amax, sc->x > 0 ? "above" : "below",
                (double)sc->mean, (double)sc->sd);
    else if (sc->as_is)
        fprintf(out, "its values here reach %.4g (mean %.4g, std %.4g) while in training all were within "
                "[-1, 1], so the model takes them as they are", sc->amax, sc->m, sc->s);
    else if (fabs(sc->m) > SHIFT_LIMIT)
        fprintf(out, "its mean here is %.1f standard deviations %s the training mean (%.4g, std %.4g)",
                fabs(sc->m), sc->m > 0 ? "above" : "below", (double)sc->mean, (double)sc->sd);
    else
        fprintf(out, "its values here spread %.1f times as wide as in training (std %.4g against %.4g; mean %.4g "
                "against %.4g)", sc->s, sc->s * sc->sd, (double)sc->sd, sc->mean + sc->m * sc->sd, (double)sc->mean);
}

void cli_warn_shifted(const ag_bundle_t *b, const ag_fmat_t *X, const ag_fmat_t *E, const char *path,
                      const char *table_path) {
    const int graph_level = ag_task_is_graph_level(ag_model_config(b->model)->task);
    shifted_col_t sc;
    for (cli_col_part_t k = CLI_COL_VERTEX; k <= CLI_COL_EDGE; k++)
        for (int64_t i = 0; i < part_width(b, k); i++) {
            if (!shifted_column(b, X, E, graph_level, k, i, &sc)) continue;
            char pb[512];
            ag_cli_warning_t w;
            FILE *out = ag_cli_warning_begin(&w);
            fprintf(out, "%s: ", cli_display(k == CLI_COL_TABLE ? table_path : path, pb, sizeof pb));
            print_column_name(out, b, &sc);
            fputs(" lies far from its training values: ", out);
            print_shift(out, &sc, graph_level);
            fputs("; another unit or scale? The model has not seen such values", out);
            ag_cli_warning_end(&w);
        }
}

/* Begins a warning about n_far of the n graphs a command scored: "CMD: the one graph scored has
 * WHAT (e.g. " or "CMD: 3 of the 50 graphs scored have WHAT (e.g. ", the verb agreeing with n_far;
 * the caller names the first such graph and ends the warning. */
static FILE *graphs_warning_begin(ag_cli_warning_t *w, const char *cmd, int64_t n_far, int64_t n, const char *verb_one,
                                  const char *verb_many, const char *what) {
    FILE *out = ag_cli_warning_begin(w);
    if (n == 1) fprintf(out, "%s: the one graph scored %s %s (e.g. ", cmd, verb_one, what);
    else
        fprintf(out, "%s: %lld of the %lld graphs scored %s %s (e.g. ", cmd, (long long)n_far, (long long)n,
                n_far == 1 ? verb_one : verb_many, what);
    return out;
}

void cli_warn_shifted_graphs(const ag_bundle_t *b, const ag_example_t *examples, const int64_t *idx, int64_t n,
                             const char *const *files, const char *cmd) {
    int64_t n_far = 0, first = -1;
    shifted_col_t sc, sc0;
    for (int64_t j = 0; j < n; j++) {
        const ag_example_t *ex = &examples[idx[j]];
        int far = 0;
        for (cli_col_part_t k = CLI_COL_VERTEX; k <= CLI_COL_EDGE && !far; k++)
            for (int64_t i = 0; i < part_width(b, k) && !far; i++)
                far = shifted_column(b, &ex->X, &ex->E, 1, k, i, &sc);
        if (far && n_far++ == 0) {
            first = idx[j];
            sc0 = sc;
        }
    }
    if (n_far == 0) return;
    ag_cli_warning_t w;
    FILE *out = graphs_warning_begin(&w, cmd, n_far, n, "has", "have", "a value far from anything in training");
    print_column_name(out, b, &sc0);
    fputs(" in ", out);
    cli_print_value(out, files ? files[first] : "?", 0);
    fputs(": ", out);
    print_shift(out, &sc0, 1);
    fputs("); another unit or scale? The model has not seen such values", out);
    ag_cli_warning_end(&w);
}

void cli_print_size_range(FILE *out, const ag_bundle_t *b) {
    const int64_t *v = b->size_vertices, *e = b->size_edges;
    fputs("graphs of ", out);
    if (v[0] == v[1]) fprintf(out, "%lld vert%s", (long long)v[0], v[0] == 1 ? "ex" : "ices");
    else fprintf(out, "%lld to %lld vertices", (long long)v[0], (long long)v[1]);
    if (e[0] == e[1]) fprintf(out, " and %lld edge%s", (long long)e[0], e[0] == 1 ? "" : "s");
    else fprintf(out, " and %lld to %lld edges", (long long)e[0], (long long)e[1]);
}

/* "300 vertices, more than twice the largest training graph's 30" (or fewer than half the smallest) */
static void print_size_outside(FILE *out, const ag_bundle_t *b, int64_t vertices, int side) {
    if (side > 0)
        fprintf(out, "%lld vertices, more than twice the largest training graph's %lld", (long long)vertices,
                (long long)b->size_vertices[1]);
    else
        fprintf(out, "%lld vert%s, fewer than half the smallest training graph's %lld", (long long)vertices,
                vertices == 1 ? "ex" : "ices", (long long)b->size_vertices[0]);
}

void cli_warn_graph_size(const ag_bundle_t *b, const igraph_t *ig, const char *path) {
    const int64_t nv = igraph_vcount(ig);
    const int side = ag_bundle_graph_size_outside(b, nv);
    if (!side) return;
    char pb[512];
    ag_cli_warning_t w;
    FILE *out = ag_cli_warning_begin(&w);
    fprintf(out, "%s has ", cli_display(path, pb, sizeof pb));
    print_size_outside(out, b, nv, side);
    fputs(" (the model was trained on ", out);
    cli_print_size_range(out, b);
    fputs("): its prediction is an extrapolation, which may be confident and wrong", out);
    ag_cli_warning_end(&w);
}

void cli_warn_graph_sizes(const ag_bundle_t *b, const igraph_t *graphs, const int64_t *idx, int64_t n,
                          const char *const *files, const char *cmd) {
    int64_t n_far = 0, first = -1;
    for (int64_t j = 0; j < n; j++)
        if (ag_bundle_graph_size_outside(b, igraph_vcount(&graphs[idx[j]])) && n_far++ == 0) first = idx[j];
    if (n_far == 0) return;
    const int64_t nv = igraph_vcount(&graphs[first]);
    ag_cli_warning_t w;
    FILE *out = graphs_warning_begin(&w, cmd, n_far, n, "lies", "lie", "far outside the sizes the model was trained on");
    cli_print_value(out, files ? files[first] : "?", 0);
    fputs(": ", out);
    print_size_outside(out, b, nv, ag_bundle_graph_size_outside(b, nv));
    fputs("; it was trained on ", out);
    cli_print_size_range(out, b);
    fprintf(out, "): %s predictions are extrapolations, and the figures say little of graphs of the sizes trained on",
            n_far == 1 ? "its" : "their");
    ag_cli_warning_end(&w);
}

const char *cli_shown_path(const char *path) { return strcmp(path, "-") ? path : "<stdin>"; }

void cli_warn_other_graph(const ag_bundle_t *b, const igraph_t *ig, const char *path) {
    const int64_t k = b->featurizer.lap_pe_k;
    ag_graph_print_t p; /* ig's, computed once (refinement sorts the colours every round) */
    const int other = k ? ag_bundle_other_graph(b, ig, &p) : 0;
    if (!other) return;
    char pb[512];
    path = cli_display(path, pb, sizeof pb);
    const char *cols = k == 1 ? "column" : "columns";
    if (other == 2) {
        /* a basis of a repeated eigenvalue's eigenvectors depends on the numbering (karate's
         * eigenvalue 1 six times: 2 of its 34 predictions changed) */
        fprintf(stderr, "attn-graph: note: %s is the graph the model was trained on, its vertices numbered otherwise: "
                "where the graph's Laplacian has a repeated eigenvalue, the model's %lld Laplacian %s there depend "
                "on the numbering, and predictions may differ from those on the training file\n", path, (long long)k,
                cols);
        return;
    }
    ag_cli_warning_t w;
    FILE *out = ag_cli_warning_begin(&w);
    fprintf(out, "%s is not the graph the model was trained on (", path);
    if (p.vertices == b->graph.vertices && p.edges == b->graph.edges && p.directed == b->graph.directed)
        fprintf(out, "%lld vertices and %lld edge%s as that one, but joined otherwise", (long long)p.vertices,
                (long long)p.edges, p.edges == 1 ? "" : "s");
    else if (p.directed != b->graph.directed)
        fprintf(out, "%s; that one was %s", p.directed ? "directed" : "undirected",
                b->graph.directed ? "directed" : "undirected");
    else
        fprintf(out, "%lld vertices and %lld edge%s; that one had %lld and %lld", (long long)p.vertices,
                (long long)p.edges, p.edges == 1 ? "" : "s", (long long)b->graph.vertices, (long long)b->graph.edges);
    fprintf(out, "), and the model reads %lld Laplacian eigenvector %s, which describe that graph alone (an "
            "eigenvector's sign and place are its graph's own): its predictions here mean little", (long long)k, cols);
    /* the one difference an option undoes: the model was trained with --vertices */
    if (ag_graph_read_format() == AG_FORMAT_EDGELIST && p.edges == b->graph.edges && p.directed == b->graph.directed &&
        p.vertices < b->graph.vertices)
        fprintf(out, "; if that one was this edge list read with --vertices %lld, give it here too",
                (long long)b->graph.vertices);
    ag_cli_warning_end(&w);
}

int cli_run_model(ag_bundle_t *b, const igraph_t *ig, const ag_fmat_t *table, const char *path, const char *table_path,
                  cli_run_t *r) {
    memset(r, 0, sizeof *r);
    path = cli_shown_path(path);
    const ag_model_config_t *mc = ag_model_config(b->model);
    ag_error_t rc = ag_bundle_featurize(b, ig, table, &r->X, &r->E);
    if (rc == AG_SUCCESS) cli_warn_unseen(b, ig, path);
    if (rc == AG_SUCCESS) cli_warn_other_graph(b, ig, path);
    if (rc == AG_SUCCESS) cli_warn_shifted(b, &r->X, &r->E, path, table_path);
    if (rc == AG_SUCCESS) cli_warn_graph_size(b, ig, path);
    if (rc == AG_SUCCESS) rc = ag_graph_from_igraph(&r->g, ig);
    if (rc != AG_SUCCESS) {
        ag_cli_error("%s: %s", path, ag_error_message());
        cli_run_destroy(r);
        return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_INPUT;
    }
    r->rows = ag_task_is_graph_level(mc->task) ? 1 : r->g.n_nodes;
    r->Y = malloc((size_t)(r->rows > 0 ? r->rows : 1) * (size_t)mc->n_out * sizeof(float));
    if (!r->Y) {
        fprintf(stderr, "attn-graph: out of memory\n");
        cli_run_destroy(r);
        return AG_EXIT_FAILURE;
    }
    ag_batch_init(&r->batch, &r->g, r->X.data, mc->edge_dim > 0 ? r->E.data : NULL);
    r->have_batch = 1;
    rc = ag_bundle_predict_batch(b, &r->batch, r->Y);
    if (rc != AG_SUCCESS) {
        fprintf(stderr, "attn-graph: %s: %s\n", path, ag_error_message());
        cli_run_destroy(r);
        return rc == AG_ENOMEM ? AG_EXIT_FAILURE : AG_EXIT_INPUT;
    }
    return AG_EXIT_OK;
}

void cli_run_destroy(cli_run_t *r) {
    if (r->have_batch) ag_batch_destroy(&r->batch);
    ag_graph_destroy(&r->g);
    ag_fmat_destroy(&r->X);
    ag_fmat_destroy(&r->E);
    free(r->Y);
    memset(r, 0, sizeof *r);
}

const char *cli_table_key(const igraph_t *ig, const char *id_attr) {
    if (id_attr) return id_attr;
    if (igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, "id")) return "id";
    /* an NCOL or LGL graph names its vertices; an edge list's are its 0-based indices */
    return igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, "name") ? "name" : NULL;
}

/* Whether every vertex v has the string id "n<v>", as GraphML writers name nodes in file order:
 * only then do a table's row indices mean the vertices (a file listing n5 before n0 would match
 * row 0 to n5, its first vertex, and silently give every vertex another's features). */
static int ids_in_order(const igraph_t *ig) {
    if (!string_id_attr(ig)) return 0;
    for (igraph_integer_t v = 0; v < igraph_vcount(ig); v++) {
        char want[32];
        snprintf(want, sizeof want, "n%lld", (long long)v);
        if (strcmp(VAS(ig, "id", v), want) != 0) return 0;
    }
    return 1;
}

void cli_vertex_ids_free(char **ids, igraph_integer_t n) {
    for (igraph_integer_t v = 0; ids && v < n; v++) free(ids[v]);
    free(ids);
}

char **cli_vertex_ids(const igraph_t *ig, const char *id_attr, int *missing) {
    const char *key = cli_table_key(ig, id_attr);
    *missing = key && !igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, key);
    if (*missing) return NULL;
    if (key && !id_attr && !strcmp(key, "id") && ids_in_order(ig)) key = NULL;
    igraph_attribute_type_t t = IGRAPH_ATTRIBUTE_STRING;
    if (key && igraph_cattribute_table.gettype(ig, &t, IGRAPH_ATTRIBUTE_VERTEX, key) != IGRAPH_SUCCESS) return NULL;
    igraph_integer_t n = igraph_vcount(ig);
    char **ids = calloc((size_t)(n > 0 ? n : 1), sizeof *ids);
    for (igraph_integer_t v = 0; ids && v < n; v++) {
        char num[40];
        const char *text = num;
        if (!key) {
            snprintf(num, sizeof num, "%lld", (long long)v);
        } else if (t == IGRAPH_ATTRIBUTE_NUMERIC) {
            double x = VAN(ig, key, v);
            /* GML writes ids as integers, and a table's cell says 3, not 3.0 */
            if (x == floor(x) && fabs(x) < 1e15) snprintf(num, sizeof num, "%lld", (long long)x);
            else snprintf(num, sizeof num, "%.17g", x);
        } else if (t == IGRAPH_ATTRIBUTE_BOOLEAN) {
            snprintf(num, sizeof num, "%d", VAB(ig, key, v) ? 1 : 0);
        } else {
            text = VAS(ig, key, v);
        }
        if (!(ids[v] = strdup(text))) {
            cli_vertex_ids_free(ids, n);
            return NULL;
        }
    }
    return ids;
}

/* Says that a node table's columns were matched to the model's by name (and that some were left
 * out), so that a user who reordered or added columns knows it was understood. */
static void table_by_name_note(const char *table_path, int some_left_out) {
    fprintf(stderr, "attn-graph: note: %s: the node table's columns are taken by name in the model's order%s\n",
            table_path, some_left_out ? "; those the model was not trained with are left out" : "");
}

ag_error_t cli_table_read(ag_node_table_t *t, const igraph_t *ig, ag_format_t format, const char *table_path,
                          const char *id_attr, const char *label_attr, const ag_table_norm_t *model) {
    ag_table_options_t topt;
    ag_table_options_init(&topt);
    topt.vertex_attr = cli_table_key(ig, id_attr);
    topt.match_index = topt.vertex_attr == NULL;
    /* PyG's x.csv is indexed 0..N-1 while GraphML names every vertex ("n0", ...): a key the user
     * did not choose gives way to the indices when not one id matches it. Not an NCOL or LGL
     * file's names: their vertices are numbered in the order the edges first name them, which a
     * table's row numbers are unlikely to follow */
    topt.index_fallback = !id_attr && topt.vertex_attr && !strcmp(topt.vertex_attr, "id") && ids_in_order(ig);
    if (format == AG_FORMAT_EDGELIST)
        topt.absent_note = "a vertex with no edge in an edge list does not exist in the graph (its vertices are 0 "
                           "to the largest id an edge names, unless --vertices N gives their count: 0 to N-1)";
    else if (format == AG_FORMAT_NCOL)
        topt.absent_note = "a vertex with no edge in an NCOL file does not exist in the graph (its vertices are the "
                           "names its edges give)";
    const size_t n = strlen(table_path);
    if (n > 8 && !strcmp(table_path + n - 8, ".content")) topt.last_is_label = 1; /* LINQS: the class ends each line */
    /* without the label attribute in the graph, the labels may be a column of the table (an edge
     * list has no attributes: PyG's and OGB's layout), read as labels, not a feature */
    else if (label_attr && !igraph_cattribute_has_attr(ig, IGRAPH_ATTRIBUTE_VERTEX, label_attr))
        topt.label_column = label_attr;
    if (model && model->width > 0) {
        /* a sparse table's absent entries are 0: one in which no row has the model's top index is
         * still its table, but by itself would be one column short (the dense forms ignore this) */
        topt.width = model->width;
        topt.width_of = "the model";
    }
    ag_error_t rc = ag_table_read(t, table_path, ig, &topt);
    if (rc == AG_EATTR && topt.label_column) {
        /* not there: the graph's missing attribute is said where it is needed. Any other defect of
         * this kind (the id column, the vertices' ids) is the table's own and the read gives it again */
        topt.label_column = NULL;
        rc = ag_table_read(t, table_path, ig, &topt);
    }
    if (rc == AG_EPARSE && model && model->columns && model->width > 0) {
        /* a column the model does not read (a name, a date) need not be a number: read again taking
         * the model's columns alone; a defect of the file itself or of one of those columns is
         * found again (the model's columns are not taken up front, so that one the table lacks is
         * said by cli_align_table, naming the model) */
        topt.columns = (const char *const *)model->columns;
        topt.n_columns = model->width;
        rc = ag_table_read(t, table_path, ig, &topt);
        /* the table is then in the model's order already, and cli_align_table has nothing to move
         * or say: the note it gives for a table read whole is said here */
        if (rc == AG_SUCCESS) table_by_name_note(table_path, 1);
    }
    if (rc == AG_SUCCESS && t->by_index) {
        char pb[512];
        fprintf(stderr, "attn-graph: note: %s: the table's ids match no vertex '%s' and are all vertex indices "
                "0..%lld: rows matched by index; --table-id-attr NAME to match an attribute\n",
                cli_display(table_path, pb, sizeof pb), topt.vertex_attr, (long long)igraph_vcount(ig) - 1);
    }
    return rc;
}

int cli_number_text(const char *s) {
    char *end;
    const double x = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(x);
}

/* The table's labels (one string per vertex, "" for none) as vertex attribute name: numeric when
 * every label is a number (so that classes sort as numbers and node regression reads values; an
 * empty one is NaN), else strings. -1 when igraph runs out of memory. */
int cli_labels_to_attr(igraph_t *g, const char *name, char *const *labels, const char *table_path) {
    const igraph_integer_t N = igraph_vcount(g);
    /* R's NA among class codes became a class "NA" of its own, its vertices labelled with it */
    const int64_t word = ag_missing_word_find((const char *const *)labels, N, 1);
    if (word >= 0) {
        /* a missing word is ASCII without control characters: shown as it is */
        fprintf(stderr, "attn-graph: %s: column '%s': vertex %lld's label '%s' is not a number, where the column's "
                "other labels are: an unlabelled vertex has an empty cell here; empty such cells (pandas: "
                "to_csv(na_rep=''); R: write.csv(na = ''))\n", cli_shown_path(table_path), name, (long long)word,
                labels[word]);
        return -2;
    }
    int numeric = 1;
    for (igraph_integer_t v = 0; v < N && numeric; v++) numeric = !labels[v][0] || cli_number_text(labels[v]);
    for (igraph_integer_t v = 0; v < N; v++) {
        igraph_error_t e = numeric ? igraph_cattribute_VAN_set(g, name, v, labels[v][0] ? strtod(labels[v], NULL) : NAN)
                                   : igraph_cattribute_VAS_set(g, name, v, labels[v]);
        if (e != IGRAPH_SUCCESS) return -1;
    }
    return 0;
}

int cli_read_node_table(const char *cmd, const ag_bundle_t *b, const char *model_path, const char *table_path,
                        const char *id_attr, const igraph_t *ig, ag_format_t format, ag_node_table_t *t, int *have) {
    *have = 0;
    if (b->table.width == 0) {
        if (!table_path) return AG_EXIT_OK;
        /* a table of the graph's labels alone (an edge list's classes, as the model was trained
         * with) is read for them; one with features is of the wrong width (none): refused as eval
         * refuses it, rather than ignored, since it usually means another model was meant */
        if (b->label_attr &&
            cli_table_read(t, ig, format, table_path, id_attr, b->label_attr, &b->table) == AG_SUCCESS) {
            if (t->features.cols == 0) {
                *have = 1;
                return AG_EXIT_OK;
            }
            ag_node_table_destroy(t);
        }
        return cli_check_table_width(cmd, table_path, -1, model_path, 0);
    }
    if (!table_path) {
        fprintf(stderr, "attn-graph: %s: %s takes a node table of %lld columns: give --node-table FILE\n", cmd,
                model_path, (long long)b->table.width);
        return AG_EXIT_USAGE;
    }
    ag_error_t rc = cli_table_read(t, ig, format, table_path, id_attr, b->label_attr, &b->table);
    if (rc) return ag_cli_fail(rc);
    *have = 1;
    return cli_align_table(cmd, table_path, model_path, &b->table, t);
}

int cli_align_table(const char *cmd, const char *table_path, const char *model_path, const ag_table_norm_t *tn,
                    ag_node_table_t *t) {
    const int64_t W = t->features.cols;
    if (W == 0 && tn->width == 0) return AG_EXIT_OK; /* a table of labels alone, for a model that takes none */
    if (!tn->columns || !t->columns) {
        const int code = cli_check_table_width(cmd, table_path, W, model_path, tn->width);
        if (code != AG_EXIT_OK || (!tn->columns && !t->columns)) return code;
        /* one side has names, the other none: nothing can be checked, and columns in another
         * order would be read wrong without a word (0.33 accuracy against 1.00) */
        char names[256] = "";
        const char *const *c = (const char *const *)(tn->columns ? tn->columns : t->columns);
        for (int64_t j = 0; j < W && j < 5; j++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s'%s'", j ? ", " : "", c[j]);
        }
        if (tn->columns)
            fprintf(stderr, "attn-graph: note: %s: the table has no header, so its columns are taken by position "
                    "as the model's (%s%s, in that order): a header would let them be matched by name\n", table_path,
                    names, W > 5 ? ", ..." : "");
        else
            fprintf(stderr, "attn-graph: note: %s: the model was trained on a table without a header, so the "
                    "columns are taken by position, not by their names (%s%s)\n", table_path, names,
                    W > 5 ? ", ..." : "");
        return code;
    }
    int moved;
    ag_error_t rc = ag_node_table_select(t, (const char *const *)tn->columns, tn->width, &moved);
    if (rc == AG_EVALUE) {
        fprintf(stderr, "attn-graph: %s: %s: %s, which the model %s was trained with (its %lld columns are matched by "
                "name)\n", cmd, table_path, ag_error_message(), model_path, (long long)tn->width);
        return AG_EXIT_INPUT;
    }
    if (rc != AG_SUCCESS) return ag_cli_fail(rc);
    if (moved) table_by_name_note(table_path, W > tn->width);
    return AG_EXIT_OK;
}

int cli_check_table_width(const char *cmd, const char *table_path, int64_t width, const char *model_path,
                          int64_t expected) {
    if (width == expected) return AG_EXIT_OK;
    if (expected == 0) {
        fprintf(stderr, "attn-graph: %s: %s: the model %s takes no node table (it was trained without one, or with "
                "one that held the labels alone)\n", cmd, table_path, model_path);
        return AG_EXIT_INPUT;
    }
    fprintf(stderr, "attn-graph: %s: %s: the node table has %lld feature column%s; the model %s expects %lld (the "
            "width of the table it was trained with)\n", cmd, table_path, (long long)width, width == 1 ? "" : "s",
            model_path, (long long)expected);
    return AG_EXIT_INPUT;
}

/* The letters and digits of name: what igraph's GML writer keeps of a key. */
static void alnum_only(char *buf, size_t cap, const char *prefix, const char *name) {
    size_t k = 0;
    for (const char *p = prefix; *p && k + 1 < cap; p++) buf[k++] = *p;
    for (const unsigned char *p = (const unsigned char *)name; *p && k + 1 < cap; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) buf[k++] = (char)*p;
    buf[k] = '\0';
}

void cli_attr_name(char *buf, size_t cap, const char *prefix, const char *const *names, int64_t n, int64_t c) {
    size_t plen = strlen(prefix);
    char other[512];
    int by_index = 0;
    alnum_only(buf, cap, prefix, names[c]);
    for (int64_t i = 0; i < n && !by_index; i++) {
        alnum_only(other, sizeof other, prefix, names[i]);
        by_index = strlen(other) == plen; /* a name without a letter or digit */
        for (int64_t j = i + 1; j < n && !by_index; j++) {
            char third[512];
            alnum_only(third, sizeof third, prefix, names[j]);
            by_index = !strcmp(other, third);
        }
    }
    if (by_index) snprintf(buf, cap, "%s%lld", prefix, (long long)c);
}

/* What cli_attr_remove replaced since the last cli_attr_replaced_warn: a count and the first. */
static int64_t n_replaced;
static char first_replaced[160];

void cli_attr_remove(igraph_t *ig, igraph_attribute_elemtype_t kind, const char *name) {
    if (!igraph_cattribute_has_attr(ig, kind, name)) return;
    if (n_replaced++ == 0)
        snprintf(first_replaced, sizeof first_replaced, "%s attribute '%.100s'",
                 kind == IGRAPH_ATTRIBUTE_VERTEX ? "vertex" : kind == IGRAPH_ATTRIBUTE_EDGE ? "edge" : "graph", name);
    if (kind == IGRAPH_ATTRIBUTE_VERTEX) igraph_cattribute_remove_v(ig, name);
    else if (kind == IGRAPH_ATTRIBUTE_EDGE) igraph_cattribute_remove_e(ig, name);
    else igraph_cattribute_remove_g(ig, name);
}

void cli_attr_replaced_warn(const char *cmd, const char *graph_path) {
    if (n_replaced > 0) {
        ag_cli_warning_t w;
        FILE *out = ag_cli_warning_begin(&w);
        cli_print_value(out, graph_path, 0);
        fprintf(out, ": the graph's own %s", first_replaced);
        if (n_replaced > 1) fprintf(out, " and %lld more", (long long)(n_replaced - 1));
        fprintf(out, " %s replaced by what %s writes under the same name%s", n_replaced > 1 ? "are" : "is", cmd,
                n_replaced > 1 ? "s" : "");
        ag_cli_warning_end(&w);
    }
    n_replaced = 0;
}

int64_t cli_argmax(const float *y, int64_t C) {
    int64_t best = 0;
    for (int64_t c = 1; c < C; c++)
        if (y[c] > y[best]) best = c;
    return best;
}

void cli_graph_opts_init(cli_graph_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->format = AG_FORMAT_AUTO;
}

int cli_model_once(const char *cmd, const char **model_path, const char *v) {
    if (*model_path) {
        fprintf(stderr, "attn-graph: %s: --model given twice ('%s', '%s'): %s takes one model file (train --ensemble K "
                        "makes one file of K models)\n", cmd, *model_path, v, cmd);
        return -1;
    }
    *model_path = v;
    return 1;
}

int cli_max_memory_option(const char *cmd, int argc, char **argv, int *i) {
    const char *v = NULL;
    int r = cli_opt(cmd, "--max-memory", argc, argv, i, &v);
    if (r <= 0) return r;
    return cli_set_read_limit(cmd, v) < 0 ? -1 : 1; /* as train and eval read it */
}

int cli_vertices_option(const char *cmd, int argc, char **argv, int *i, int64_t *n) {
    const char *v = NULL;
    int r = cli_opt(cmd, "--vertices", argc, argv, i, &v);
    if (r <= 0) return r;
    return cli_int(cmd, "--vertices", v, 1, INT64_MAX, n) < 0 ? -1 : 1;
}

int cli_graph_option(cli_graph_opts_t *o, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i], *v = NULL;
    if (a[0] != '-' || !strcmp(a, "-")) {
        if (o->graph_path) {
            fprintf(stderr, "attn-graph: %s: more than one GRAPH argument ('%s', '%s')\n", cmd, o->graph_path, a);
            return -1;
        }
        o->graph_path = a;
        return 1;
    }
    int r = cli_opt(cmd, "--model", argc, argv, i, &v);
    if (r > 0) return cli_model_once(cmd, &o->model_path, v);
    if (r == 0) r = cli_max_memory_option(cmd, argc, argv, i);
    if (r == 0) r = cli_vertices_option(cmd, argc, argv, i, &o->vertices);
    if (r != 0) return r;
    if ((r = cli_opt(cmd, "-o", argc, argv, i, &v)) > 0) o->out_path = v;
    else if (r == 0 && (r = cli_opt(cmd, "--output", argc, argv, i, &v)) > 0) o->out_path = v;
    else if (r == 0 && (r = cli_opt(cmd, "--format", argc, argv, i, &v)) > 0) o->format_name = v;
    else if (r == 0 && (r = cli_opt(cmd, "--node-table", argc, argv, i, &v)) > 0) o->table_path = v;
    else if (r == 0 && (r = cli_opt(cmd, "--table-id-attr", argc, argv, i, &v)) > 0) o->table_id = v;
    else if (r == 0 && (r = cli_opt(cmd, "--threads", argc, argv, i, &v)) > 0) {
        if (cli_int(cmd, "--threads", v, 1, AG_THREADS_MAX, &o->threads) < 0) r = -1;
    } else if (r == 0 && !strcmp(a, "--directed")) o->directed = r = 1;
    return r;
}

int cli_graph_opts_check(cli_graph_opts_t *o, const char *cmd) {
    o->format = AG_FORMAT_AUTO;
    if (o->format_name && ag_format_from_name(o->format_name, &o->format)) {
        fprintf(stderr, "attn-graph: %s: --format: %s\n", cmd, ag_error_message());
        return AG_EXIT_USAGE;
    }
    return AG_EXIT_OK;
}

int cli_prediction_load(cli_prediction_t *p, cli_graph_opts_t *o, const char *cmd, const char *default_model) {
    memset(p, 0, sizeof *p);
    if (!o->model_path &&
        !(o->model_path = cli_default_model(cmd, default_model, o->default_path, sizeof o->default_path)))
        return AG_EXIT_MODEL;
    if (o->threads > 0) ag_threads_set((int)o->threads);
    int code = cli_load_model(o->model_path, &p->b);
    p->have_bundle = code == AG_EXIT_OK;
    return code;
}

int cli_prediction_run(cli_prediction_t *p, const cli_graph_opts_t *o, const char *cmd) {
    const ag_graph_read_options_t ro = {.format = o->format, .directed = o->directed, .vertices = o->vertices};
    int code = cli_read_graph(&p->ig, o->graph_path, &ro);
    if (code) return code;
    p->have_graph = 1;
    code = cli_read_node_table(cmd, &p->b, o->model_path, o->table_path, o->table_id, &p->ig, ag_graph_read_format(),
                               &p->table, &p->have_table);
    /* the table's labels are the graph's known classes, which Correct and Smooth propagates */
    if (code == AG_EXIT_OK && p->have_table && p->table.labels && p->b.label_attr &&
        !igraph_cattribute_has_attr(&p->ig, IGRAPH_ATTRIBUTE_VERTEX, p->b.label_attr)) {
        int lr = cli_labels_to_attr(&p->ig, p->b.label_attr, p->table.labels, o->table_path);
        if (lr == -2) code = AG_EXIT_INPUT;
        else if (lr < 0) {
            fprintf(stderr, "attn-graph: %s: out of memory\n", cmd);
            code = AG_EXIT_FAILURE;
        }
    }
    if (code == AG_EXIT_OK)
        code = cli_run_model(&p->b, &p->ig, p->have_table && p->b.table.width ? &p->table.features : NULL,
                             o->graph_path, o->table_path, &p->run);
    /* a graph of another kind than the model the user did not choose: say which model that was */
    if (code == AG_EXIT_INPUT && o->model_path == o->default_path && cli_shares_no_attribute(&p->b, &p->ig))
        cli_default_model_hint(cmd, o->model_path);
    return code;
}

void cli_prediction_destroy(cli_prediction_t *p) {
    cli_run_destroy(&p->run);
    if (p->have_table) ag_node_table_destroy(&p->table);
    if (p->have_graph) igraph_destroy(&p->ig);
    if (p->have_bundle) ag_bundle_destroy(&p->b);
    memset(p, 0, sizeof *p);
}

int cli_prediction_smooth(cli_prediction_t *p, const cli_graph_opts_t *o, const cli_smooth_t *s, const char *cmd) {
    const char *attr = p->b.label_attr;
    const ag_smooth_config_t *cfg = &s->cfg;
    if (!s->given && !attr) {
        /* ag_net_train_nodes takes the labels as a vector: such a model names no attribute */
        fprintf(stderr, "attn-graph: note: %s stores Correct and Smooth weights but names no vertex attribute of "
                "known classes to propagate (a model trained through the C API: ag_bundle_set_label_attr names one): "
                "the model's own predictions are written\n", o->model_path);
        return AG_EXIT_OK;
    }
    if (!s->given && !igraph_cattribute_has_attr(&p->ig, IGRAPH_ATTRIBUTE_VERTEX, attr)) {
        /* the model's own weights: a graph without known classes is still labelled, by the model */
        fprintf(stderr, "attn-graph: note: %s's Correct and Smooth propagates the known classes of vertex attribute "
                "'%s', which %s does not have: the model's own predictions are written\n", o->model_path, attr,
                o->graph_path);
        return AG_EXIT_OK;
    }
    if (!attr) {
        fprintf(stderr, "attn-graph: %s: --smooth: %s does not name the vertex attribute of its classes\n", cmd,
                o->model_path);
        return AG_EXIT_MODEL;
    }
    if (!igraph_cattribute_has_attr(&p->ig, IGRAPH_ATTRIBUTE_VERTEX, attr)) {
        fprintf(stderr, "attn-graph: %s: --smooth propagates the known classes, read from vertex attribute '%s': "
                "%s has no such attribute\n", cmd, attr, o->graph_path);
        return AG_EXIT_INPUT;
    }
    cli_smooth_note(s, o->model_path);
    ag_labels_t known;
    ag_error_t rc = ag_labels_from_attr(&known, &p->ig, attr, (const char *const *)p->b.names, p->b.n_names);
    if (rc) return ag_cli_fail_in(cli_shown_path(o->graph_path), rc);
    const int64_t N = p->run.rows, C = p->b.n_names;
    float *out = malloc(sizeof(float) * (size_t)(N > 0 ? N : 1) * (size_t)C); /* (N x C) */
    if (!out) rc = AG_ENOMEM;
    if (rc == AG_SUCCESS) rc = ag_label_smooth_csr(&p->run.g, p->run.Y, C, known.y, cfg, out);
    if (rc == AG_SUCCESS) memcpy(p->run.Y, out, sizeof(float) * (size_t)N * (size_t)C);
    free(out);
    ag_labels_destroy(&known);
    if (rc == AG_ENOMEM) {
        fprintf(stderr, "attn-graph: out of memory\n");
        return AG_EXIT_FAILURE;
    }
    return rc ? ag_cli_fail_in(cli_shown_path(o->graph_path), rc) : AG_EXIT_OK;
}
