/* Tests of `attn-graph info`, run as a program: output lines, JSON, errors and exit codes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "cli_testutil.h"

/* ---- a strict JSON syntax check (RFC 8259), enough to know the output parses */
static const char *json_value(const char *p);

static const char *json_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static const char *json_string(const char *p) {
    if (*p++ != '"') return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *json_number(const char *p) {
    char *end;
    if (*p != '-' && (*p < '0' || *p > '9')) return NULL;
    strtod(p, &end);
    return end == p ? NULL : end;
}

static const char *json_value(const char *p) {
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (!(p = json_string(json_ws(p)))) return NULL;
                p = json_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = json_value(p))) return NULL;
            p = json_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
        }
    }
    if (*p == '"') return json_string(p);
    if (!strncmp(p, "true", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    if (!strncmp(p, "null", 4)) return p + 4;
    return json_number(p);
}

static int json_line_ok(const char *line, size_t len) {
    char *copy = strndup(line, len);
    const char *end = json_value(copy);
    int ok = end && *json_ws(end) == '\0' && copy[0] == '{';
    free(copy);
    return ok;
}

static void test_text_output(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info graphs/molecules/aspirin.gml graphs/social/karate.gml");
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "");
    const char *aspirin = strstr(r.out, "file: graphs/molecules/aspirin.gml\n");
    const char *karate = strstr(r.out, "file: graphs/social/karate.gml\n");
    assert_non_null(aspirin);
    assert_non_null(karate);
    assert_true(aspirin < karate);
    /* the lines of each file, in order */
    const char *n13 = strstr(aspirin, "\nnodes: 13\nedges: 13\n");
    assert_non_null(n13);
    assert_true(n13 < karate);
    assert_non_null(strstr(karate, "\nnodes: 34\nedges: 78\n"));
    assert_non_null(strstr(aspirin, "format: gml\ndirected: no\n"));
    assert_non_null(strstr(aspirin, "self-loops: 0\nmulti-edges: 0\ncomponents: 1\ndegree: min 1, mean 2, max 3\n"));
    /* attribute rows: kind, name, type, missing, feature width, example */
    assert_non_null(strstr(aspirin, "  vertex  element        string         0              3  \"C\" (2 distinct)\n"));
    assert_non_null(strstr(aspirin, "  edge    bond_type      string         0              4  \"SINGLE\" (3 distinct)\n"));
    assert_non_null(strstr(aspirin, "  graph   smiles         string         0              -  \"CC(=O)Oc1ccccc1C(=O)O\"\n"));
    assert_non_null(strstr(karate, "degree: min 1, mean 4.588, max 17\n"));
}

static void test_json_output(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --json graphs/molecules/aspirin.gml graphs/social/karate.gml graphs/formats/sample.dimacs");
    assert_int_equal(r.code, 0);
    assert_int_equal(ag_cli_count_lines(r.out), 3);
    const char *line = r.out;
    for (int i = 0; i < 3; i++) {
        const char *nl = strchr(line, '\n');
        if (!json_line_ok(line, (size_t)(nl - line))) fail_msg("not JSON: %.*s", (int)(nl - line), line);
        line = nl + 1;
    }
    const char *karate = strstr(r.out, "{\"file\": \"graphs/social/karate.gml\"");
    assert_non_null(karate);
    assert_non_null(strstr(r.out, "\"nodes\": 13, \"edges\": 13,"));
    assert_non_null(strstr(karate, "\"nodes\": 34, \"edges\": 78,"));
    assert_true(strstr(r.out, "\"nodes\": 13") < karate);
    assert_non_null(strstr(r.out, "{\"kind\": \"vertex\", \"name\": \"element\", \"type\": \"string\", \"example\": \"C\", "
                                  "\"missing\": 0, \"distinct\": 2, \"feature_width\": 3}"));
    assert_non_null(strstr(r.out, "{\"kind\": \"edge\", \"name\": \"capacity\", \"type\": \"numeric\", \"example\": 1, "
                                  "\"missing\": 0, \"feature_width\": 1}"));
    /* a string with quotes and a backslash is escaped */
    char path[] = "/tmp/ag_cli_info_XXXXXX.gml";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    /* GML writes a quote as &quot;; the tab is a raw control character JSON must escape */
    fputs("graph [\n directed 1\n note \"say &quot;hi&quot; C:\\ tab\there\"\n node [ id 0 ]\n node [ id 1 ]\n"
          " edge [ source 0 target 1 ]\n edge [ source 1 target 1 ]\n]\n", f);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args, "info --json %s", path);
    ag_cli_run(&r, NULL, args);
    unlink(path);
    assert_int_equal(r.code, 0);
    assert_true(json_line_ok(r.out, strlen(r.out) - 1));
    assert_non_null(strstr(r.out, "\"directed\": true, \"nodes\": 2, \"edges\": 2, \"self_loops\": 1"));
    assert_non_null(strstr(r.out, "\"in_degree\": {\"min\": 0, \"max\": 2}"));
    assert_non_null(strstr(r.out, "\"example\": \"say \\\"hi\\\" C:\\\\ tab\\there\""));
}

static void test_bad_file(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info tests/data/broken/truncated.gml");
    assert_int_equal(r.code, 3);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    assert_string_equal(r.err, "attn-graph: tests/data/broken/truncated.gml: Parse error in GML file, line 10 "
                               "(syntax error, unexpected end of file, expecting string or number or [) (Parse error)\n");
    assert_string_equal(r.out, "");

    /* all files are processed; the failure decides the exit code */
    ag_cli_run(&r, NULL, "info graphs/social/karate.gml no-such-file.gml graphs/molecules/aspirin.gml");
    assert_int_equal(r.code, 3);
    assert_string_equal(r.err, "attn-graph: no-such-file.gml: No such file or directory\n");
    assert_non_null(strstr(r.out, "nodes: 34\n"));
    assert_non_null(strstr(r.out, "nodes: 13\n"));

    ag_cli_run(&r, NULL, "info graphs/social/karate-labels.csv");
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "attn-graph: graphs/social/karate-labels.csv: unknown file extension"));
    assert_int_equal(ag_cli_count_lines(r.err), 1);
}

static void test_warning_is_printed(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info tests/data/composite.gml");
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err, "attn-graph: warning: tests/data/composite.gml: Composite vertex attribute 'xs' "
                               "ignored in GML file.\n");
    assert_non_null(strstr(r.out, "nodes: 2\nedges: 1\n"));
}

static void test_usage(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --bogus graphs/social/karate.gml");
    assert_int_equal(r.code, 2);
    assert_string_equal(r.err, "attn-graph: info: unknown option '--bogus' (see 'attn-graph info --help')\n");
    ag_cli_run(&r, NULL, "info");
    assert_int_equal(r.code, 2);
    assert_int_equal(ag_cli_count_lines(r.err), 1);
    ag_cli_run(&r, NULL, "info --format csv graphs/social/karate.gml");
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "unknown graph format 'csv'"));
    ag_cli_run(&r, NULL, "info --format");
    assert_int_equal(r.code, 2);
    ag_cli_run(&r, NULL, "info --help");
    assert_int_equal(r.code, 0);
    assert_true(!strncmp(r.out, "usage: attn-graph info ", 23));
    assert_string_equal(r.err, "");
}

static void test_stdin_and_format(void **state) {
    (void)state;
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, "info --format edgelist --directed - < graphs/formats/sample.edgelist");
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "format: edgelist\ndirected: yes\nnodes: 5\nedges: 6\n"));
    assert_non_null(strstr(r.out, "in-degree: min 0, max 2\nout-degree: min 0, max 2\n"));
    ag_cli_run(&r, NULL, "info - < graphs/formats/sample.edgelist");
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "pass --format"));
    /* formats recognised from the text: info names the one read */
    ag_cli_run(&r, NULL, "info - < graphs/formats/sample.net");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "file: -\nformat: pajek\ndirected: no\nnodes: 5\nedges: 6\n"));
    ag_cli_run(&r, NULL, "info --json - < graphs/formats/sample.graphml");
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "\"format\": \"graphml\""));
    ag_cli_run(&r, NULL, "info --format=pajek graphs/formats/sample.net");
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "format: pajek\n"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_output),
        cmocka_unit_test(test_json_output),
        cmocka_unit_test(test_bad_file),
        cmocka_unit_test(test_warning_is_printed),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_stdin_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
