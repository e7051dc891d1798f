/* Golden-output tests of the attn-graph program on the shipped files (issue 5): every case of
 * tests/golden/cli/cases.tsv (classify with the Tox21, ESOL and MUTAG models, label and explain
 * with the shipped models, info, eval, train) is run and its output compared with the stored file
 * (golden_testutil.h: text exact, numbers to their last printed digits), each golden file is shown
 * to fail the comparison once a digit or a letter of it changes, GraphML outputs are well-formed
 * XML, and the SVGs of explain and train --plot are well-formed XML with one <line> per edge and
 * one <circle> per vertex (explain) or one <polyline> per curve (train). The comparator and the
 * XML checker are tested on hand-made inputs first. tests/golden/cli/README.md says how and when
 * to regenerate the golden files. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <igraph.h>
#include "cli_testutil.h"
#include "golden_testutil.h"

#define GOLDEN_DIR AG_SOURCE_DIR "/tests/golden/cli"

static char dir[64];

static int setup(void **state) {
    (void)state;
    return ag_test_temp_dir(dir, sizeof dir, "cli_golden", 0);
}

static int teardown(void **state) {
    (void)state;
    return ag_test_remove_dir(dir);
}

static int matches(const char *expected, const char *actual) {
    int tolerated;
    char why[512];
    return ag_golden_compare(expected, actual, &tolerated, why, sizeof why);
}

/* The comparator: text exact, integers exact, fractions within two units of the last printed
 * digit (or 1e-5 relative, 1e-6 absolute); digits inside words are text. */
static void test_compare(void **state) {
    (void)state;
    int tol;
    char why[512];
    char *exact = getenv("AG_GOLDEN_EXACT") ? strdup(getenv("AG_GOLDEN_EXACT")) : NULL;
    unsetenv("AG_GOLDEN_EXACT"); /* the tolerant comparison is the one under test */
    assert_true(ag_golden_compare("a\tp=0.0385\n", "a\tp=0.0385\n", &tol, why, sizeof why));
    assert_int_equal(tol, 0);
    assert_true(ag_golden_compare("a\tp=0.0385\n", "a\tp=0.0386\n", &tol, why, sizeof why));
    assert_int_equal(tol, 1);
    assert_true(matches("p=0.0385", "p=0.0383"));
    assert_false(matches("p=0.0385", "p=0.0388")); /* three units */
    assert_false(matches("p=0.0385", "p=0.0485"));
    assert_true(matches("0.553531", "0.55353"));   /* measured between two BLIS kernels */
    assert_true(matches("1.45683e-05", "1.45684e-05"));
    assert_false(matches("1.45683e-05", "1.55683e-05"));
    assert_true(matches("x 0.906716108322144\n", "x 0.906716108322150\n"));
    assert_false(matches("x 0.906716108322144\n", "x 0.906816108322144\n"));
    assert_true(matches("-1.92865", "-1.92866"));
    assert_false(matches("-1.92865", "1.92865"));
    assert_true(matches("1", "0.999999")); /* %.6g of a probability next to 1 */
    assert_false(matches("nodes: 13\n", "nodes: 14\n"));
    assert_false(matches("(n 32)", "(n 31)"));
    assert_false(matches("prob0 0.5", "prob1 0.5"));
    assert_false(matches("SR-p53=0.1", "SR-p54=0.1"));
    assert_false(matches("attnL0H1Fwd", "attnL0H2Fwd"));
    assert_false(matches("a 0.5\n", "a 0.5\nb\n"));
    assert_false(matches("a 0.5\nb\n", "a 0.5\n"));
    assert_false(matches("a\tb", "a b"));
    assert_true(ag_golden_compare("", "", &tol, why, sizeof why));
    assert_false(ag_golden_compare("x 1.5\ny 2.5\n", "x 1.5\ny 2.9\n", &tol, why, sizeof why));
    assert_non_null(strstr(why, "line 2: numbers differ"));
    assert_non_null(strstr(why, "expected: y 2.5"));
    assert_non_null(strstr(why, "actual:   y 2.9"));
    setenv("AG_GOLDEN_EXACT", "1", 1);
    assert_false(matches("p=0.0385", "p=0.0386"));
    assert_true(matches("p=0.0385", "p=0.0385"));
    if (exact) setenv("AG_GOLDEN_EXACT", exact, 1);
    else unsetenv("AG_GOLDEN_EXACT");
    free(exact);
}

static int xml_ok(const char *doc) {
    char why[256];
    int64_t n;
    return ag_xml_check(doc, NULL, &n, why, sizeof why);
}

static void expect_xml_error(const char *doc, const char *reason) {
    char why[256];
    int64_t n;
    if (ag_xml_check(doc, NULL, &n, why, sizeof why)) fail_msg("accepted: %s", doc);
    if (!strstr(why, reason)) fail_msg("'%s': reason '%s', expected '%s'", doc, why, reason);
}

static void test_xml_checker(void **state) {
    (void)state;
    char why[256];
    int64_t n;
    const char *svg = "<?xml version=\"1.0\"?>\n<!-- c -->\n<svg a=\"1\" b='&lt;2&#38;&#x41;'>\n"
                      "<line x1=\"0\"/><g><line/><title>a &amp; b</title></g><![CDATA[ <x> & ]]>\n"
                      "<path d=\"M0 0\"></path></svg>\n<!-- after -->\n";
    assert_true(ag_xml_check(svg, "line", &n, why, sizeof why));
    assert_int_equal(n, 2);
    assert_true(ag_xml_check(svg, "path", &n, why, sizeof why));
    assert_int_equal(n, 1);
    assert_true(xml_ok("<!DOCTYPE svg><svg/>"));
    assert_true(xml_ok("<a:b xmlns:a=\"u\">caf\xc3\xa9</a:b>"));
    expect_xml_error("", "no root element");
    expect_xml_error("<a>", "end of document inside element 'a'");
    expect_xml_error("<a><b></a></b>", "'</a>' closes 'b'");
    expect_xml_error("<a></a><b/>", "content after the root element");
    expect_xml_error("x<a/>", "text before the root element");
    expect_xml_error("<a x=\"1\" x=\"2\"/>", "attribute 'x' repeated");
    expect_xml_error("<a x=1/>", "attribute value not quoted");
    expect_xml_error("<a x=\"<\"/>", "'<' in an attribute value");
    expect_xml_error("<a x=\"1\"y=\"2\"/>", "no white space before attribute 'y'");
    expect_xml_error("<a>&nbsp;</a>", "'&' that starts no character");
    expect_xml_error("<a>AT&T</a>", "'&' that starts no character");
    expect_xml_error("<a>]]></a>", "']]>' in text");
    expect_xml_error("<a><!-- x -- y --></a>", "'--' inside a comment");
    expect_xml_error("<a><!-- x </a>", "comment not closed");
    expect_xml_error("<a><![CDATA[ x </a>", "CDATA section not closed");
    expect_xml_error("<a>< b/></a>", "'<' not followed by an element name");
    expect_xml_error("<1a/>", "'<' not followed by an element name");
    expect_xml_error("<a>\x01</a>", "control character 0x01");
    expect_xml_error("<a>\xc3</a>", "truncated UTF-8 sequence");
    expect_xml_error("<a>\xff</a>", "invalid UTF-8 byte 0xff");
    expect_xml_error("<a></a >x", "content after the root element");
}

/* One case of cases.tsv. */
typedef struct golden_case_t {
    char name[128];
    char args[2048];
} golden_case_t;

static int read_cases(golden_case_t *cases, int cap) {
    FILE *f = fopen(GOLDEN_DIR "/cases.tsv", "r");
    assert_non_null(f);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        if (len == 0 || line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        if (!tab) fail_msg("cases.tsv: no tab in '%s'", line);
        *tab = '\0';
        assert_true(n < cap);
        assert_true(strlen(line) < sizeof cases[n].name && strlen(tab + 1) < sizeof cases[n].args);
        strcpy(cases[n].name, line);
        strcpy(cases[n].args, tab + 1);
        n++;
    }
    fclose(f);
    return n;
}

static int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* A copy of text with one byte changed: the first digit of its first number with a fraction (or
 * of its first number), and failing that its first letter. */
static char *mutated(const char *text) {
    char *m = strdup(text);
    assert_non_null(m);
    char *at = NULL;
    for (char *p = m; *p && !at; p++)
        if (*p >= '0' && *p <= '9' && (p == m || p[-1] == ' ' || p[-1] == '=' || p[-1] == '\t' || p[-1] == ':'))
            for (char *q = p; (*q >= '0' && *q <= '9') || *q == '.'; q++)
                if (*q == '.') at = p;
    if (!at)
        for (char *p = m; *p && !at; p++)
            if (*p >= '0' && *p <= '9') at = p;
    if (at) {
        *at = *at == '9' ? '1' : (char)(*at + 2); /* two units of its place: beyond any tolerance */
        return m;
    }
    for (char *p = m; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
            *p = *p == 'x' ? 'y' : 'x';
            break;
        }
    return m;
}

/* Reads a GML file of the source tree (path relative to it). */
static void read_graph(igraph_t *g, const char *path) {
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", AG_SOURCE_DIR, path);
    igraph_set_attribute_table(&igraph_cattribute_table);
    FILE *f = fopen(full, "r");
    assert_non_null(f);
    assert_int_equal(igraph_read_graph_gml(g, f), IGRAPH_SUCCESS);
    fclose(f);
}

static void test_golden_cases(void **state) {
    (void)state;
    static golden_case_t cases[64];
    int n = read_cases(cases, 64), failures = 0;
    assert_true(n >= 20);
    for (int c = 0; c < n; c++) {
        const golden_case_t *gc = &cases[c];
        char out[512], args[4096], expected_path[512];
        snprintf(out, sizeof out, "%s/%.128s", dir, gc->name);
        snprintf(expected_path, sizeof expected_path, "%s/%.128s", GOLDEN_DIR, gc->name);
        /* {out} -> the output file */
        const char *ph = strstr(gc->args, "{out}");
        if (ph) snprintf(args, sizeof args, "%.*s%s%s", (int)(ph - gc->args), gc->args, out, ph + 5);
        else snprintf(args, sizeof args, "%s", gc->args);
        static ag_cli_run_t r;
        ag_cli_run(&r, NULL, args);
        if (r.code != 0 || r.err[0]) {
            print_error("%s: exit %d, stderr: %s\n", gc->name, r.code, r.err);
            failures++;
            continue;
        }
        size_t len;
        char *expected = (char *)ag_test_read_file(expected_path, &len);
        char *actual = ph ? (char *)ag_test_read_file(out, &len) : strdup(r.out);
        assert_non_null(actual);
        int tolerated;
        char why[1024];
        if (!ag_golden_compare(expected, actual, &tolerated, why, sizeof why)) {
            print_error("%s differs from %s: %s\n", gc->name, expected_path, why);
            failures++;
        } else if (tolerated > 0) {
            print_message("note: %s: %d numbers equal to their last printed digits only\n", gc->name, tolerated);
        }
        /* the comparison can fail: one changed digit (or letter) of the golden file is caught */
        char *m = mutated(expected);
        assert_string_not_equal(m, expected);
        if (ag_golden_compare(m, actual, &tolerated, why, sizeof why)) {
            print_error("%s: a changed golden file still matches\n", gc->name);
            failures++;
        }
        free(m);
        if (ends_with(gc->name, ".graphml")) {
            /* well-formed, with the input graph's vertices and edges */
            char graph[256] = "";
            for (const char *p = strstr(gc->args, "graphs/"); p && !graph[0]; p = strstr(p + 1, "graphs/"))
                if (sscanf(p, "%255s", graph) == 1 && !ends_with(graph, ".gml")) graph[0] = '\0';
            assert_true(graph[0]);
            igraph_t g;
            read_graph(&g, graph);
            int64_t nodes, edges;
            if (!ag_xml_check(actual, "node", &nodes, why, sizeof why)) {
                print_error("%s: not well-formed XML: %s\n", gc->name, why);
                failures++;
            } else {
                assert_true(ag_xml_check(actual, "edge", &edges, why, sizeof why));
                assert_int_equal(nodes, igraph_vcount(&g));
                assert_int_equal(edges, igraph_ecount(&g));
            }
            igraph_destroy(&g);
        }
        free(expected);
        free(actual);
    }
    if (failures) fail_msg("%d of %d golden cases failed (tests/golden/cli/README.md)", failures, n);
}

/* explain --svg on shipped molecules (Tox21 and MUTAG models) and on karate (its GAT): well-formed,
 * one <path> per edge, one <circle> per vertex (plus the class legend for karate), a <line> beside
 * each double or aromatic bond (caffeine: 2 C=O and 10 aromatic bonds; 3-nitrophenol: the nitro
 * group's N=O and 6 aromatic; benzidine: 12 aromatic) and none on karate, and the prediction said
 * under the title. */
static void test_explain_svg(void **state) {
    (void)state;
    const struct {
        const char *graph, *model;
        int legend, marks;
        const char *said; /* the prediction line under the title */
    } runs[4] = {{"graphs/molecules/caffeine.gml", NULL, 0, 12,
                  ">no task predicted positive (highest: NR-ER, p 0.040); node colour: attention received, "},
                 {"graphs/molecules/3-nitrophenol.gml", NULL, 0, 7,
                  ">tasks predicted positive: SR-ARE,SR-MMP; node colour: attention received, "},
                 {"graphs/molecules/benzidine.gml", "graphs/models/mutag.safetensors", 0, 12,
                  ">prediction: 0 (p 0.857); node colour: attention received, "},
                 {"graphs/social/karate.gml", "graphs/models/karate.safetensors", 2, 0,
                  ">node colour: predicted class<"}};
    for (int k = 0; k < 4; k++) {
        char args[1024], svg[256], out[256], why[256];
        snprintf(svg, sizeof svg, "%s/explain%d.svg", dir, k);
        snprintf(out, sizeof out, "%s/explain%d.graphml", dir, k);
        snprintf(args, sizeof args, "explain %s%s %s -o %s --svg %s", runs[k].model ? "--model " : "",
                 runs[k].model ? runs[k].model : "", runs[k].graph, out, svg);
        ag_cli_run_t r;
        ag_cli_run(&r, NULL, args);
        if (r.code != 0) fail_msg("%s: exit %d: %s", args, r.code, r.err);
        igraph_t g;
        read_graph(&g, runs[k].graph);
        size_t len;
        char *doc = (char *)ag_test_read_file(svg, &len);
        int64_t lines, circles, paths;
        if (!ag_xml_check(doc, "path", &paths, why, sizeof why)) fail_msg("%s: %s", svg, why);
        assert_true(ag_xml_check(doc, "circle", &circles, why, sizeof why));
        assert_true(ag_xml_check(doc, "line", &lines, why, sizeof why));
        assert_int_equal(paths, igraph_ecount(&g));
        assert_int_equal(circles, igraph_vcount(&g) + runs[k].legend);
        assert_int_equal(lines, runs[k].marks);
        assert_true(!strstr(doc, "; thin lines: bond order (dashed: aromatic)<") == !runs[k].marks);
        assert_memory_equal(doc, "<svg ", 5);
        if (!strstr(doc, runs[k].said)) fail_msg("%s: no '%s'", svg, runs[k].said);
        /* the caption's lines end inside the canvas (0.62 em per character, the drawing's estimate) */
        double width;
        assert_int_equal(sscanf(doc, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf\"", &width), 1);
        for (const char *q = doc; (q = strstr(q, "<text x=\"10\" y=\"")) != NULL; q++) {
            const char *gt = strchr(q, '>'), *end = strstr(q, "</text>");
            int chars = 0;
            for (const char *c = gt + 1; c < end; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
            double px = strstr(q, "font-size=\"14\"") == strstr(q, "font-size=") ? 14 : 11;
            if (10 + 0.62 * px * chars > width + 1) fail_msg("%s: a caption line of %d characters passes %.0f", svg, chars,
                                                              width);
        }
        /* no two vertices drawn over each other (Kamada-Kawai put Karate's 33 and 34 so) */
        double cxy[64][2], rad = 0;
        int nv = 0;
        for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++) {
            double cx, cy, rr;
            assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &cx, &cy, &rr), 3);
            if (rr == 5.0) continue; /* the legend's */
            assert_true(nv < 64);
            cxy[nv][0] = cx;
            cxy[nv][1] = cy;
            rad = rr;
            nv++;
        }
        assert_int_equal(nv, igraph_vcount(&g));
        for (int i = 0; i < nv; i++)
            for (int j = i + 1; j < nv; j++)
                if (hypot(cxy[i][0] - cxy[j][0], cxy[i][1] - cxy[j][1]) < 2 * rad - 0.2)
                    fail_msg("%s: vertices %d and %d overlap", svg, i, j);
        free(doc);
        doc = (char *)ag_test_read_file(out, &len);
        int64_t edges;
        if (!ag_xml_check(doc, "edge", &edges, why, sizeof why)) fail_msg("%s: %s", out, why);
        assert_int_equal(edges, igraph_ecount(&g));
        free(doc);
        igraph_destroy(&g);
    }
}

/* Benzene's six bonds get the same attention up to float32 rounding: drawn alike, and so are its
 * six atoms (the scale once stretched that rounding from grey to dark red). */
static void test_explain_flat_scale(void **state) {
    (void)state;
    char gml[2048], path[256], args[1024], svg[256];
    int len = snprintf(gml, sizeof gml, "graph [\n directed 0\n");
    for (int i = 0; i < 6; i++)
        len += snprintf(gml + len, sizeof gml - (size_t)len,
                        " node [ id %d element \"C\" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization \"SP2\" "
                        "degree 2 in_ring 1 ]\n", i);
    for (int i = 0; i < 6; i++)
        len += snprintf(gml + len, sizeof gml - (size_t)len,
                        " edge [ source %d target %d bond 1.5 bond_type \"AROMATIC\" conjugated 1 in_ring 1 ]\n", i, (i + 1) % 6);
    snprintf(gml + len, sizeof gml - (size_t)len, "]\n");
    snprintf(path, sizeof path, "%s/benzene.gml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(gml, f);
    fclose(f);
    snprintf(svg, sizeof svg, "%s/benzene.svg", dir);
    snprintf(args, sizeof args, "explain %s -o %s/benzene.graphml --svg %s", path, dir, svg);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("%s: exit %d: %s", args, r.code, r.err);
    size_t n;
    char *doc = (char *)ag_test_read_file(svg, &n);
    char first[64] = "";
    int paths = 0;
    for (const char *q = doc; (q = strstr(q, "<path d=\"")) != NULL; q++, paths++) {
        const char *s = strstr(q, " stroke=\"");
        char here[64];
        assert_int_equal(sscanf(s, " stroke=\"%63[^>]", here), 1);
        if (!first[0]) snprintf(first, sizeof first, "%s", here);
        else if (strcmp(here, first)) fail_msg("bond %d drawn %s, bond 0 %s", paths, here, first);
    }
    assert_int_equal(paths, 6);
    first[0] = '\0';
    int circles = 0;
    for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++, circles++) {
        char here[32];
        assert_int_equal(sscanf(strstr(q, " fill=\""), " fill=\"%31[^\"]", here), 1);
        if (!first[0]) snprintf(first, sizeof first, "%s", here);
        else if (strcmp(here, first)) fail_msg("atom %d filled %s, atom 0 %s", circles, here, first);
    }
    assert_int_equal(circles, 6);
    free(doc);
}

/* A long chain of carbons, built here (hexacosane's 26, and 90 past the 60 atoms that get 12 px
 * circles): well-formed, one <path> per bond and one <circle> per atom, and every bond shows at
 * least 3/4 of a circle's width of stroke between its two circles, the atoms' letters still 8 px
 * or more; the drawing lies along the canvas's width, a zigzag. Fitted to the square canvas,
 * hexacosane's bonds were 26 px under 12 px circles, 2 px of stroke, in a column; Kamada-Kawai
 * drew it a shallow arch. */
static void test_explain_long_chain(void **state) {
    (void)state;
    static const int lengths[2] = {26, 90};
    for (int k = 0; k < 2; k++) {
        const int n = lengths[k];
        char path[256], svg[256], args[1024], why[256];
        snprintf(path, sizeof path, "%s/chain%d.gml", dir, n);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("graph [\n directed 0\n", f);
        for (int i = 0; i < n; i++) {
            const int end = i == 0 || i == n - 1;
            fprintf(f, " node [ id %d element \"C\" atomic_num 6 charge 0 aromatic 0 hydrogens %d "
                       "hybridization \"SP3\" degree %d in_ring 0 ]\n", i, end ? 3 : 2, end ? 1 : 2);
        }
        for (int i = 0; i + 1 < n; i++)
            fprintf(f, " edge [ source %d target %d bond 1 bond_type \"SINGLE\" conjugated 0 in_ring 0 ]\n", i, i + 1);
        fputs("]\n", f);
        fclose(f);
        snprintf(svg, sizeof svg, "%s/chain%d.svg", dir, n);
        snprintf(args, sizeof args, "explain %s -o %s/chain%d.graphml --svg %s", path, dir, n, svg);
        ag_cli_run_t r;
        ag_cli_run(&r, NULL, args);
        if (r.code != 0) fail_msg("%s: exit %d: %s", args, r.code, r.err);
        size_t len;
        char *doc = (char *)ag_test_read_file(svg, &len);
        int64_t paths, circles;
        if (!ag_xml_check(doc, "path", &paths, why, sizeof why)) fail_msg("%s: %s", svg, why);
        assert_true(ag_xml_check(doc, "circle", &circles, why, sizeof why));
        assert_int_equal(paths, n - 1);
        assert_int_equal(circles, n);
        double xy[90][3], x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        int nv = 0;
        for (const char *q = doc; (q = strstr(q, "<circle cx=\"")) != NULL; q++, nv++) {
            assert_true(nv < n);
            double *c = xy[nv];
            assert_int_equal(sscanf(q, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &c[0], &c[1], &c[2]), 3);
            x0 = fmin(x0, c[0]);
            x1 = fmax(x1, c[0]);
            y0 = fmin(y0, c[1]);
            y1 = fmax(y1, c[1]);
        }
        assert_int_equal(nv, n);
        int bonds = 0;
        for (const char *q = doc; (q = strstr(q, "<title>")) != NULL; q++) {
            int u, v;
            if (sscanf(q, "<title>%d-%d:", &u, &v) != 2) continue; /* a circle's */
            assert_true(u >= 0 && u < n && v >= 0 && v < n);
            double seen = hypot(xy[u][0] - xy[v][0], xy[u][1] - xy[v][1]) - xy[u][2] - xy[v][2];
            if (seen < 0.75 * 2 * xy[u][2])
                fail_msg("%s: bond %d-%d shows %.1f px of stroke between circles of radius %.1f", svg, u, v, seen,
                         xy[u][2]);
            bonds++;
        }
        assert_int_equal(bonds, n - 1);
        for (int i = 1; i + 1 < n; i++) { /* a zigzag: each atom's two neighbours level, it beside them */
            const double rise = xy[i][1] - xy[i - 1][1], bond = hypot(xy[i][0] - xy[i - 1][0], rise);
            if (fabs(xy[i + 1][1] - xy[i - 1][1]) > 1.0 || fabs(rise) < 0.4 * bond)
                fail_msg("%s: atoms %d, %d, %d at heights %.1f, %.1f, %.1f (bond %.1f px): not a zigzag", svg, i - 1, i,
                         i + 1, xy[i - 1][1], xy[i][1], xy[i + 1][1], bond);
        }
        int letters = 0;
        for (const char *q = doc; (q = strstr(q, "text-anchor=\"middle\"")) != NULL; q++, letters++) {
            const char *tag = q;
            while (tag > doc && *tag != '<') tag--;
            const char *px = strstr(tag, "font-size=\"");
            assert_true(px && px < q);
            if (atof(px + strlen("font-size=\"")) < 8) fail_msg("%s: a letter at %s", svg, px);
        }
        assert_int_equal(letters, n);
        if (x1 - x0 < 2 * (y1 - y0)) fail_msg("%s: the chain spans %.0f x %.0f px", svg, x1 - x0, y1 - y0);
        free(doc);
    }
}

/* train --plot: well-formed, one <polyline> per curve (loss, training and validation metric)
 * and one dot per epoch on each. */
static void test_train_plot_svg(void **state) {
    (void)state;
    char args[1024], svg[256], why[256];
    snprintf(svg, sizeof svg, "%s/curves.svg", dir);
    snprintf(args, sizeof args,
             "train graphs/social/karate.gml --label-attr club --split-random 0.5,0.25 --preset gat --epochs 20 "
             "--threads 1 --quiet --plot %s", svg);
    ag_cli_run_t r;
    ag_cli_run(&r, NULL, args);
    if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
    size_t len;
    char *doc = (char *)ag_test_read_file(svg, &len);
    int64_t polylines, circles;
    if (!ag_xml_check(doc, "polyline", &polylines, why, sizeof why)) fail_msg("%s: %s", svg, why);
    assert_true(ag_xml_check(doc, "circle", &circles, why, sizeof why));
    assert_int_equal(polylines, 3);
    assert_int_equal(circles, 3 * 20);
    free(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_xml_checker),
        cmocka_unit_test(test_golden_cases),
        cmocka_unit_test(test_explain_svg),
        cmocka_unit_test(test_explain_flat_scale),
        cmocka_unit_test(test_explain_long_chain),
        cmocka_unit_test(test_train_plot_svg),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
