/*
 * The vertex-count limit of ag_graph_read() (graph_read_limit.c): a text file whose numbers ask
 * igraph for more vertices than the read limit allows is refused with AG_EREADLIMIT before igraph
 * allocates them, with the file, line, count and what to change; files within the limit and the
 * formats with named or listed vertices are read as before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <igraph.h>
#include <attngraph/dataset.h>
#include <attngraph/graph.h>
#include "cli_testutil.h"

#define MIB 1048576
#define LIMIT_SRC "(set by --max-memory or ag_graph_read_set_max_memory())"

static char path[64];

static const char *write_temp(const char *text, const char *suffix) {
    snprintf(path, sizeof path, "/tmp/ag_readlimit_XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* Reads text as format under limit; on success returns the vertex count, else -(code). */
static int64_t read_count(const char *text, const char *suffix, ag_format_t format, int64_t limit) {
    const char *p = write_temp(text, suffix);
    int64_t old = ag_graph_read_set_max_memory(limit);
    igraph_t g;
    ag_error_t rc = ag_graph_read(&g, p, format, 0);
    assert_int_equal(ag_graph_read_set_max_memory(old), limit);
    unlink(p);
    if (rc != AG_SUCCESS) return -(int64_t)rc;
    int64_t n = igraph_vcount(&g);
    igraph_destroy(&g);
    return n;
}

/* The message must be exactly "<path><rest>". */
static void assert_message(const char *rest) {
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, rest);
    assert_string_equal(ag_error_message(), want);
}

static void test_edgelist_huge_id(void **state) {
    (void)state;
    assert_int_equal(read_count("0 1\n2 3\n21474831 0\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EREADLIMIT);
    assert_message(":3: vertex id 21474831 makes igraph build 21474832 vertices, about 819.2 MiB (40 bytes each), "
                   "over the limit of 1.0 MiB " LIMIT_SRC "; edge-list vertex ids are 0-based and every id up to the "
                   "largest is a vertex: renumber the vertices from 0, or use NCOL for named vertices, or raise the "
                   "limit (--max-memory)");
    /* signs and leading zeros are read as igraph reads them */
    assert_int_equal(read_count("+0000021474831 0\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EREADLIMIT);
    assert_message(":1: vertex id +0000021474831 makes igraph build 21474832 vertices, about 819.2 MiB (40 bytes "
                   "each), over the limit of 1.0 MiB " LIMIT_SRC "; edge-list vertex ids are 0-based and every id up "
                   "to the largest is a vertex: renumber the vertices from 0, or use NCOL for named vertices, or "
                   "raise the limit (--max-memory)");
    /* a number beyond int64 */
    assert_int_equal(read_count("1 2\n99999999999999999999999 0\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EREADLIMIT);
    assert_message(":2: vertex id 99999999999999999999999 makes igraph build more than 9223372036854775806 vertices, "
                   "more than 8 EiB (40 bytes each), over the limit of 1.0 MiB " LIMIT_SRC "; edge-list vertex ids "
                   "are 0-based and every id up to the largest is a vertex: renumber the vertices from 0, or use "
                   "NCOL for named vertices, or raise the limit (--max-memory)");
    /* within the limit: read as before (3 vertices need 120 bytes) */
    assert_int_equal(read_count("0 1\n1 2\n", ".edges", AG_FORMAT_EDGELIST, 120), 3);
    assert_int_equal(read_count("0 1\n1 2\n", ".edges", AG_FORMAT_EDGELIST, 119), -AG_EREADLIMIT);
    assert_message(":2: vertex id 2 makes igraph build 3 vertices, about 120 B (40 bytes each), over the limit of "
                   "119 B " LIMIT_SRC "; edge-list vertex ids are 0-based and every id up to the largest is a "
                   "vertex: renumber the vertices from 0, or use NCOL for named vertices, or raise the limit "
                   "(--max-memory)");
    /* no limit, and the default (the available memory) */
    assert_int_equal(read_count("100000 0\n", ".edges", AG_FORMAT_EDGELIST, -1), 100001);
    assert_int_equal(read_count("100000 0\n", ".edges", AG_FORMAT_EDGELIST, 0), 100001);
    /* a malformed token is left to igraph's parser */
    assert_int_equal(read_count("0 1\n1e9 0\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EPARSE);
}

static void test_pajek_vertices(void **state) {
    (void)state;
    assert_int_equal(read_count("% a comment\n*Vertices 5000000\n*Edges\n1 2\n", ".net", AG_FORMAT_PAJEK, MIB),
                     -AG_EREADLIMIT);
    assert_message(":2: *Vertices 5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over "
                   "the limit of 1.0 MiB " LIMIT_SRC "; correct the count of *Vertices, or raise the limit "
                   "(--max-memory)");
    /* the keyword in any case; edge lines and weights do not count */
    assert_int_equal(read_count("*VERTICES 3\n*Edges\n1 2 5000000\n", ".net", AG_FORMAT_PAJEK, 120), 3);
    assert_int_equal(read_count("*vertices 3\n", ".net", AG_FORMAT_PAJEK, 119), -AG_EREADLIMIT);
    /* a count glued to the keyword is igraph's parse error */
    assert_int_equal(read_count("*Vertices5000000\n", ".net", AG_FORMAT_PAJEK, MIB), -AG_EPARSE);
}

/* A UTF-8 byte-order mark, which the reader skips, hides no count from the scan: it had glued
 * itself to the first token, so the first line's id or *Vertices went unchecked and igraph built
 * them all. The parse error's line stays the file's. */
static void test_byte_order_mark(void **state) {
    (void)state;
    assert_int_equal(read_count("\xef\xbb\xbf" "21474831 0\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EREADLIMIT);
    assert_message(":1: vertex id 21474831 makes igraph build 21474832 vertices, about 819.2 MiB (40 bytes each), "
                   "over the limit of 1.0 MiB " LIMIT_SRC "; edge-list vertex ids are 0-based and every id up to the "
                   "largest is a vertex: renumber the vertices from 0, or use NCOL for named vertices, or raise the "
                   "limit (--max-memory)");
    assert_int_equal(read_count("\xef\xbb\xbf" "*Vertices 30000000\n", ".net", AG_FORMAT_PAJEK, MIB), -AG_EREADLIMIT);
    assert_message(":1: *Vertices 30000000 makes igraph build 30000000 vertices, about 1.1 GiB (40 bytes each), over "
                   "the limit of 1.0 MiB " LIMIT_SRC "; correct the count of *Vertices, or raise the limit "
                   "(--max-memory)");
    assert_int_equal(read_count("\xef\xbb\xbf" "p edge 30000000 1\n", ".dimacs", AG_FORMAT_DIMACS, MIB), -AG_EREADLIMIT);
    /* within the limit, read as without the mark */
    assert_int_equal(read_count("\xef\xbb\xbf" "0 1\n1 2\n", ".edges", AG_FORMAT_EDGELIST, MIB), 3);
    assert_int_equal(read_count("\xef\xbb\xbf" "0 1\n1 2\n2 x\n", ".edges", AG_FORMAT_EDGELIST, MIB), -AG_EPARSE);
    assert_non_null(strstr(ag_error_message(), ".edges:3: Unexpected character 'x'"));
    assert_null(strstr(ag_error_message(), "vertex names"));
}

static void test_dimacs_count_and_ids(void **state) {
    (void)state;
    assert_int_equal(read_count("c flow\np max 5000000 1\na 1 2 3\n", ".dimacs", AG_FORMAT_DIMACS, MIB), -AG_EREADLIMIT);
    assert_message(":2: 'p' line vertex count 5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes "
                   "each), over the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the "
                   "vertex ids, or raise the limit (--max-memory)");
    /* igraph adds the vertices of ids above the declared count */
    assert_int_equal(read_count("p max 3 1\na 1 5000000 4\n", ".dimacs", AG_FORMAT_DIMACS, MIB), -AG_EREADLIMIT);
    assert_message(":2: vertex id 5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over "
                   "the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the vertex ids, "
                   "or raise the limit (--max-memory)");
    assert_int_equal(read_count("p max 3 1\na 1 30 4\n", ".dimacs", AG_FORMAT_DIMACS, -1), 30);
    /* fuzz_graph_text: igraph reads a line's type with "%2c", so "a2147483647" is an arc from
     * 147483647 (2.4 GB in igraph before the scan read DIMACS as igraph does); "%ld" skips newlines
     * and a comment line of one character swallows the next line */
    assert_int_equal(read_count("c x\np max 6 6\nn 5\n  s\na2147483647 1 2\n", ".dimacs", AG_FORMAT_DIMACS, MIB),
                     -AG_EREADLIMIT);
    assert_message(":5: vertex id 147483647 makes igraph build 147483647 vertices, about 5.5 GiB (40 bytes each), "
                   "over the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the vertex "
                   "ids, or raise the limit (--max-memory)");
    assert_int_equal(read_count("p max 3 1\nc\na 1 5000000 4\na\n1\n5000000 7\n", ".dimacs", AG_FORMAT_DIMACS, MIB),
                     -AG_EREADLIMIT);
    assert_message(":4: vertex id 5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over "
                   "the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the vertex ids, "
                   "or raise the limit (--max-memory)");
    /* fuzz_graph_text again (CI's 60 s run): the same arc after "n 5" and "s" at the start of its own
     * line. igraph reads a max problem's node line as "%ld %1s", so "n 5\ns" is one record; the
     * scan read "n 5" alone, took "s\n" for a record of its own and skipped the arc line after it */
    assert_int_equal(read_count("c x\np max 6 6\nn 5\ns\na2147483647 1 2\n", ".dimacs", AG_FORMAT_DIMACS, MIB),
                     -AG_EREADLIMIT);
    assert_message(":5: vertex id 147483647 makes igraph build 147483647 vertices, about 5.5 GiB (40 bytes each), "
                   "over the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the vertex "
                   "ids, or raise the limit (--max-memory)");
    /* an arc reads its capacity even from the next line ("%ld %ld %lf"): the record after it starts
     * after that line, where igraph looks for it */
    assert_int_equal(read_count("p max 3 2\na 1 2\n5\na 5000000 1 1\n", ".dimacs", AG_FORMAT_DIMACS, MIB),
                     -AG_EREADLIMIT);
    assert_message(":4: vertex id 5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over "
                   "the limit of 1.0 MiB " LIMIT_SRC "; correct the vertex count of the 'p' line or the vertex ids, "
                   "or raise the limit (--max-memory)");
    assert_int_equal(read_count("p max 3 2\na 1 2\n5\na 3 1 1\n", ".dimacs", AG_FORMAT_DIMACS, -1), 3);
    /* capacities and the edge count do not count */
    assert_int_equal(read_count("p max 3 5000000\na 1 2 5000000\n", ".dimacs", AG_FORMAT_DIMACS, 120), 3);
}

static void test_dl_n(void **state) {
    (void)state;
    assert_int_equal(read_count("DL n=5000000\nformat=edgelist1\ndata:\n1 2\n", ".dl", AG_FORMAT_DL, MIB), -AG_EREADLIMIT);
    assert_message(":1: n=5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over the "
                   "limit of 1.0 MiB " LIMIT_SRC "; correct n= in the header, or raise the limit (--max-memory)");
    assert_int_equal(read_count("dl\nN = 5000000\n", ".dl", AG_FORMAT_DL, MIB), -AG_EREADLIMIT);
    assert_message(":2: n=5000000 makes igraph build 5000000 vertices, about 190.7 MiB (40 bytes each), over the "
                   "limit of 1.0 MiB " LIMIT_SRC "; correct n= in the header, or raise the limit (--max-memory)");
    /* the data do not count */
    assert_int_equal(read_count("DL n=3\nformat=edgelist1\ndata:\n1 2 5000000\n", ".dl", AG_FORMAT_DL, 120), 3);
}

/* NCOL and LGL name their vertices: a number is a name, one vertex. */
static void test_named_formats_not_limited(void **state) {
    (void)state;
    assert_int_equal(read_count("21474831 0\n", ".ncol", AG_FORMAT_NCOL, 80), 2);
    assert_int_equal(read_count("# 21474831\n0\n", ".lgl", AG_FORMAT_LGL, 80), 2);
}

/* The limit's refusal has its own code, AG_EREADLIMIT, apart from AG_ELIMIT (a size that
 * overflows) and the reader's other errors, whichever call made it: a dataset loader passes it on
 * for the graph it stopped at. */
static void test_over_limit_code(void **state) {
    (void)state;
    char dir[64], p[128];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "readlimit", 1), 0);
    static const char *const files[3][2] = {{"huge.edges", "0 1\n21474831 0\n"},
                                            {"bad.edges", "0 1\n1 x\n"},
                                            {"huge.csv", "file,label\nbad.edges,0\nhuge.edges,1\n"}};
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[k][0]);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(files[k][1], f);
        assert_int_equal(fclose(f), 0);
    }
    const int64_t old = ag_graph_read_set_max_memory(MIB);
    igraph_t g;
    snprintf(p, sizeof p, "%s/huge.edges", dir);
    assert_int_equal(ag_graph_read(&g, p, AG_FORMAT_AUTO, 0), AG_EREADLIMIT);
    assert_int_equal(ag_error_code(), AG_EREADLIMIT);
    assert_string_equal(ag_error_name(AG_EREADLIMIT), "AG_EREADLIMIT");
    snprintf(p, sizeof p, "%s/bad.edges", dir);
    assert_int_equal(ag_graph_read(&g, p, AG_FORMAT_AUTO, 0), AG_EPARSE);
    snprintf(p, sizeof p, "%s/huge.edges", dir);
    assert_int_equal(ag_graph_read_allow_empty(&g, p, AG_FORMAT_AUTO, 0), AG_EREADLIMIT);
    assert_int_equal(ag_graph_read(&g, p, AG_FORMAT_NCOL, 0), AG_SUCCESS); /* names: not limited */
    igraph_destroy(&g);
    /* a dataset stops at the first graph that fails: bad.edges' parse error is not the limit's,
     * though huge.edges, listed after it, is over the limit; listed alone, huge.edges is */
    ag_dataset_t ds;
    snprintf(p, sizeof p, "%s/huge.csv", dir);
    assert_int_equal(ag_dataset_load(&ds, p, NULL), AG_EPARSE);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("file,label\nhuge.edges,1\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(ag_dataset_load(&ds, p, NULL), AG_EREADLIMIT);
    assert_non_null(strstr(ag_error_message(), "(listed in data row 1 of "));
    assert_int_equal(ag_graph_read_set_max_memory(old), MIB);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

/* The program: --max-memory is also the read limit, of train and of the commands that read a
 * graph to predict or describe it, and the refusal exits 3 (a bad input file) with the library's
 * message before anything is built, a dataset's graph as one given alone. */
static void test_cli_max_memory(void **state) {
    (void)state;
    char dir[64];
    assert_int_equal(ag_test_temp_dir(dir, sizeof dir, "readlimit", 1), 0);
    char p[128];
    snprintf(p, sizeof p, "%s/huge.edges", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("0 1\n21474831 0\n", f);
    assert_int_equal(fclose(f), 0);
    ag_cli_run_t *r = malloc(sizeof *r);
    assert_non_null(r);
    static const char *const cmds[5] = {"train huge.edges --label-attr club --max-memory 100M -o m.safetensors",
                                        "info --max-memory 100M huge.edges",
                                        "label --max-memory 100M huge.edges -o x.csv",
                                        "explain --max-memory 100M --model " AG_SOURCE_DIR
                                        "/graphs/models/karate.safetensors huge.edges -o x.gml",
                                        "classify --max-memory 100M --format edgelist huge.edges"};
    for (int k = 0; k < 5; k++) {
        ag_cli_run(r, dir, cmds[k]);
        if (r->code != 3) fail_msg("%s: exit %d: %s", cmds[k], r->code, r->err);
        assert_string_equal(r->err, "attn-graph: huge.edges:2: vertex id 21474831 makes igraph build 21474832 vertices, "
                                    "about 819.2 MiB (40 bytes each), over the limit of 100.0 MiB " LIMIT_SRC "; edge-list "
                                    "vertex ids are 0-based and every id up to the largest is a vertex: renumber the "
                                    "vertices from 0, or use NCOL for named vertices, or raise the limit (--max-memory)\n");
    }
    /* a dataset's graph over the limit too, in train and eval, named where it was listed */
    snprintf(p, sizeof p, "%s/list.csv", dir);
    assert_non_null(f = fopen(p, "w"));
    fputs("file,label\nhuge.edges,1\n", f);
    assert_int_equal(fclose(f), 0);
    static const char *const data_cmds[2] = {"train --labels list.csv --max-memory 100M -o m.safetensors",
                                             "eval --model " AG_SOURCE_DIR "/graphs/models/mutag.safetensors "
                                             "--labels list.csv --max-memory 100M"};
    for (int k = 0; k < 2; k++) {
        ag_cli_run(r, dir, data_cmds[k]);
        if (r->code != 3) fail_msg("%s: exit %d: %s", data_cmds[k], r->code, r->err);
        assert_string_equal(r->err, "attn-graph: ./huge.edges:2: vertex id 21474831 makes igraph build 21474832 "
                                    "vertices, about 819.2 MiB (40 bytes each), over the limit of 100.0 MiB " LIMIT_SRC
                                    "; edge-list vertex ids are 0-based and every id up to the largest is a vertex: "
                                    "renumber the vertices from 0, or use NCOL for named vertices, or raise the limit "
                                    "(--max-memory) (listed in data row 1 of list.csv)\n");
    }
    ag_cli_run(r, dir, "info --max-memory 2X huge.edges");
    assert_int_equal(r->code, 2);
    assert_string_equal(r->err, "attn-graph: info: --max-memory takes a size like 4G, 512M or 100000000, not '2X'\n");
    free(r);
    assert_int_equal(ag_test_remove_dir(dir), 0);
}

int main(void) {
    igraph_set_attribute_table(&igraph_cattribute_table);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edgelist_huge_id),  cmocka_unit_test(test_pajek_vertices),
        cmocka_unit_test(test_dimacs_count_and_ids), cmocka_unit_test(test_dl_n),
        cmocka_unit_test(test_named_formats_not_limited), cmocka_unit_test(test_cli_max_memory),
        cmocka_unit_test(test_byte_order_mark), cmocka_unit_test(test_over_limit_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
