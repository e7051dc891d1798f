/* Tests of splits: split.json, split/fold columns of CSV tables, seeded random and stratified k-fold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>
#include <attngraph/attngraph.h>
#include <attngraph/dataset.h>
#include <attngraph/split.h>
#include "internal.h"

void ag_i_alloc_fail_at(int64_t n);

#define DATA AG_SOURCE_DIR "/tests/data/tables/"

static char *write_temp(const char *text, const char *suffix) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/ag_split_XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void expect_list(const int64_t *got, int64_t n_got, const int64_t *want, int64_t n_want) {
    assert_int_equal(n_got, n_want);
    for (int64_t i = 0; i < n_want; i++) assert_int_equal(got[i], want[i]);
}

static void test_json(void **state) {
    (void)state;
    ag_split_t s;
    assert_int_equal(ag_split_read_json(&s, DATA "split.json", 6), AG_SUCCESS);
    assert_int_equal(s.n_folds, 1);
    assert_int_equal(s.n_items, 6);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){0, 3}, 2);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){1}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){2, 4}, 2);
    ag_split_destroy(&s);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_json(&s, DATA "folds.json", 3), AG_SUCCESS);
    assert_int_equal(s.n_folds, 2);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){0, 1}, 2);
    assert_int_equal(s.folds[0].n_val, 0);
    expect_list(s.folds[1].val, s.folds[1].n_val, (int64_t[]){0}, 1);
    expect_list(s.folds[1].test, s.folds[1].n_test, (int64_t[]){1}, 1);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_json(&s, DATA "split.json", 4), AG_EVALUE);
    assert_non_null(strstr(ag_error_message(), "split.json: \"test\"[0] = 4 is out of range (4 items)"));
    assert_null(s.folds);
    struct {
        const char *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"{\"train\": [0, 1], \"test\": [1]}", AG_EVALUE, ".json: index 1 is in \"test\" and in \"train\""},
        {"{\"train\": [0, 0]}", AG_EVALUE, ".json: index 0 is in \"train\" twice"},
        {"{\"train\": [0.5]}", AG_EPARSE, ".json: \"train\"[0] is not an integer"},
        {"{\"train\": 3}", AG_EPARSE, ".json: \"train\" is not an array"},
        {"{\"test\": [1]}", AG_EPARSE, ".json has no \"train\" list"},
        /* in a list of folds, the fold is named */
        {"{\"folds\": [{\"train\": [0]}, {\"train\": [1], \"val\": [1]}]}", AG_EVALUE,
         ".json: fold 1: index 1 is in \"val\" and in \"train\""},
        {"{\"folds\": [{\"train\": [0]}, 3]}", AG_EPARSE, ".json: fold 1 is not a JSON object"},
        {"{\"folds\": [{\"test\": [0]}]}", AG_EPARSE, ".json: fold 0 has no \"train\" list"},
        {"[1, 2]", AG_EPARSE, "the split is not a JSON object"},
        {"{\"folds\": []}", AG_EPARSE, "\"folds\" is not a non-empty array"},
        {"{\"train\": [0,}", AG_EPARSE, ":1:"},
        {"{\"train\": [-1]}", AG_EVALUE, "\"train\"[0] = -1 is out of range"},
        {"{\"train\": [0], \"train\": [1]}", AG_EPARSE, ".json: \"train\" and \"train\" both give the train list"},
        {"{\"train\": [0], \"val\": [1], \"validation\": [2]}", AG_EPARSE,
         ".json: \"val\" and \"validation\" both give the val list"},
        {"{\"folds\": [{\"train\": [0], \"test\": [1], \"test\": [2]}]}", AG_EPARSE,
         ".json: fold 0: \"test\" and \"test\" both give the test list"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = write_temp(bad[i].text, ".json");
        ag_error_t rc = ag_split_read_json(&s, path, 3);
        if (rc != bad[i].code || !strstr(ag_error_message(), bad[i].fragment))
            fail_msg("case %zu: got %s \"%s\"", i, ag_error_name(rc), ag_error_message());
        unlink(path);
    }
    assert_int_equal(ag_split_read_json(&s, DATA "none.json", 3), AG_EFILE);
    /* a UTF-8 byte-order mark (an editor's) is passed over, as in CSVs; positions still count it */
    char *bom = write_temp("\xEF\xBB\xBF{\"train\": [0, 1], \"test\": [2]}", ".json");
    assert_int_equal(ag_split_read_json(&s, bom, 3), AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train, 2);
    assert_int_equal(s.folds[0].n_test, 1);
    ag_split_destroy(&s);
    unlink(bom);
    bom = write_temp("\xEF\xBB\xBF{\"train\": [0, 1], \"test\": x}", ".json");
    assert_int_equal(ag_split_read_json(&s, bom, 3), AG_EPARSE);
    assert_non_null(strstr(ag_error_message(), ".json:1:"));
    unlink(bom);
    /* "validation" names the validation list as "val" and "valid" do; other keys are not the split's */
    char *path = write_temp("{\"meta\": {\"seed\": 1}, \"train\": [2], \"validation\": [0], \"test\": [1]}", ".json");
    assert_int_equal(ag_split_read_json(&s, path, 3), AG_SUCCESS);
    unlink(path);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){2}, 1);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){0}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){1}, 1);
    ag_split_destroy(&s);
}

static void test_csv(void **state) {
    (void)state;
    ag_split_t s;
    /* dataset order g2, g1, g3 (as loaded from dataset/labels.csv) */
    const char *files[] = {"graphs/g2.gml", "graphs/g1.gml", "graphs/g3.gml"};
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "random_split", files, 3), AG_SUCCESS);
    assert_int_equal(s.n_folds, 1);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){2}, 1);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){1}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){0}, 1);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "scaffold_split", files, 3), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){1}, 1);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){0}, 1);
    ag_split_destroy(&s);
    /* without file names, row i is item i */
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "random_split", NULL, 3), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){0}, 1);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/folds.csv", "fold", files, 3), AG_SUCCESS);
    assert_int_equal(s.n_folds, 2);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){0}, 1);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){1, 2}, 2);
    expect_list(s.folds[1].test, s.folds[1].n_test, (int64_t[]){1, 2}, 2);
    assert_int_equal(s.folds[1].n_val, 0);
    ag_split_destroy(&s);

    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "nope", files, 3), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), "split.csv:1: no column 'nope' in the header"));
    /* the labels table's file column, when the split has it; else 'file' */
    char *named = write_temp("graph,part\ngraphs/g3.gml,train\ngraphs/g2.gml,test\ngraphs/g1.gml,val\n", ".csv");
    assert_int_equal(ag_split_read_csv_named(&s, named, "part", "graph", files, 3), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){2}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){0}, 1);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_csv(&s, named, "part", files, 3), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), ":1: no 'file' column in the header"));
    assert_int_equal(ag_split_read_csv_named(&s, named, "part", "mol", files, 3), AG_EATTR);
    assert_non_null(strstr(ag_error_message(), ":1: no 'mol' or 'file' column in the header"));
    unlink(named);
    assert_int_equal(ag_split_read_csv_named(&s, DATA "dataset/split.csv", "random_split", "mol", files, 3), AG_SUCCESS);
    ag_split_destroy(&s);
    /* a split's spelling of a dataset file: ./graphs/g3.gml and graphs//g1.gml are the dataset's */
    char *spelt = write_temp("file,part\n./graphs/g3.gml,train\ngraphs/x/../g2.gml,test\ngraphs//g1.gml,val\n", ".csv");
    assert_int_equal(ag_split_read_csv(&s, spelt, "part", files, 3), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){2}, 1);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){1}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){0}, 1);
    ag_split_destroy(&s);
    unlink(spelt);
    const char *two[] = {"graphs/g2.gml", "graphs/g1.gml"};
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "random_split", two, 2), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "split.csv:2: file 'graphs/g3.gml' is not in the dataset"));
    const char *four[] = {"graphs/g2.gml", "graphs/g1.gml", "graphs/g3.gml", "graphs/g4.gml"};
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "random_split", four, 4), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "split.csv: dataset file 'graphs/g4.gml' (item 3) has no row"));
    assert_int_equal(ag_split_read_csv(&s, DATA "dataset/split.csv", "random_split", NULL, 2), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), "split.csv:4: more rows than the 2 items"));
    struct {
        const char *text;
        ag_error_t code;
        const char *fragment;
    } bad[] = {
        {"file,s\na,train\nb,holdout\n", AG_EVALUE,
         ":3: column 's': 'holdout' is neither train/val/test nor a fold number"},
        {"file,s\na,train\nb,1\n", AG_EVALUE, ":3: column 's': '1' mixes fold numbers with train/val/test"},
        {"file,s\na,train\na,test\n", AG_EMISMATCH, ":3: file 'a' appears twice (first on line 2)"},
        {"file,s\na,train\n./a,test\n", AG_EMISMATCH, ":3: file './a' appears twice (first on line 2)"},
        {"file,s\na,train,x\n", AG_EPARSE, ":2: 3 fields, the header has 2"},
        {"s\ntrain\n", AG_EATTR, ":1: no 'file' column"},
        /* fold numbers bound the fold count: found by fuzz_split (32666648 folds of 3-item lists) */
        {"file,s\na,32666648\nb,1\n", AG_EVALUE, ":2: column 's': fold 32666648 is out of range for 2 items"},
        {"file,s\na,0\nb,2\n", AG_EVALUE, ":3: column 's': fold 2 is out of range for 2 items"},
        {"file,s\na,1\nb,1\n", AG_EVALUE, "column 's': no item is in fold 0 (folds are numbered from 0 to 1"},
    };
    const char *ab[] = {"a", "b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = write_temp(bad[i].text, ".csv");
        ag_error_t rc = ag_split_read_csv(&s, path, "s", ab, 2);
        if (rc != bad[i].code || !strstr(ag_error_message(), bad[i].fragment) || !strstr(ag_error_message(), path))
            fail_msg("case %zu: got %s \"%s\"", i, ag_error_name(rc), ag_error_message());
        assert_null(s.folds);
        unlink(path);
    }
    /* an empty cell leaves the item out */
    char *path = write_temp("file,s\na,train\nb,\n", ".csv");
    assert_int_equal(ag_split_read_csv(&s, path, "s", ab, 2), AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train + s.folds[0].n_val + s.folds[0].n_test, 1);
    ag_split_destroy(&s);
    unlink(path);
}

/* A node task's table: rows matched to vertices by the id column in any order, a vertex without a
 * row in no part; without the column, by position. */
static void test_csv_vertices(void **state) {
    (void)state;
    ag_split_t s;
    const char *ids[] = {"10", "11", "12", "13"};
    char *t = write_temp("id,part\n13,train\n10,test\n12,val\n", ".csv");
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", "id", ids, 4), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){3}, 1);
    expect_list(s.folds[0].val, s.folds[0].n_val, (int64_t[]){2}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){0}, 1);
    ag_split_destroy(&s); /* vertex 1 has no row: in no part */
    unlink(t);
    t = write_temp("node,fold\n11,1\n13,0\n10,1\n12,0\n", ".csv");
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "fold", "node", ids, 4), AG_SUCCESS);
    assert_int_equal(s.n_folds, 2);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){2, 3}, 2);
    expect_list(s.folds[1].test, s.folds[1].n_test, (int64_t[]){0, 1}, 2);
    ag_split_destroy(&s);
    /* no 'id' column: row i is vertex i, every vertex needs its row */
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "fold", "id", ids, 4), AG_SUCCESS);
    expect_list(s.folds[1].test, s.folds[1].n_test, (int64_t[]){0, 2}, 2);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "fold", "id", ids, 3), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ":5: more rows than the 3 items"));
    unlink(t);
    /* a spreadsheet's 12.0 is the id 12 */
    t = write_temp("id,part\n13.0,train\n1.2e1,test\n", ".csv");
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", "id", ids, 4), AG_SUCCESS);
    expect_list(s.folds[0].train, s.folds[0].n_train, (int64_t[]){3}, 1);
    expect_list(s.folds[0].test, s.folds[0].n_test, (int64_t[]){2}, 1);
    ag_split_destroy(&s);
    unlink(t);
    t = write_temp("id,part\n13,train\n14,test\n", ".csv");
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", "id", ids, 4), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ".csv:3: column 'id': no vertex has id '14'"));
    assert_int_equal(s.n_folds, 0);
    unlink(t);
    t = write_temp("id,part\n13,train\n12,test\n13,val\n", ".csv");
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", "id", ids, 4), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ".csv:4: vertex id '13' appears twice (first on line 2)"));
    const char *twice[] = {"a", "b", "a"};
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", "id", twice, 3), AG_EMISMATCH);
    assert_non_null(strstr(ag_error_message(), ".csv: vertices 0 and 2 share the id 'a' (column 'id'), so a row "
                                               "cannot name one of them"));
    assert_int_equal(ag_split_read_csv_vertices(&s, t, "part", NULL, ids, 4), AG_EINVAL);
    unlink(t);
}

/* Every item in exactly one of the lists of a fold (or, for k-fold, in exactly one test list). */
static void test_random(void **state) {
    (void)state;
    ag_split_t a, b, c;
    assert_int_equal(ag_split_random(&a, 1000, 0.8, 0.1, 7), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, 800);
    assert_int_equal(a.folds[0].n_val, 100);
    assert_int_equal(a.folds[0].n_test, 100);
    int seen[1000] = {0};
    const ag_fold_t *f = &a.folds[0];
    for (int64_t i = 0; i < f->n_train; i++) seen[f->train[i]]++;
    for (int64_t i = 0; i < f->n_val; i++) seen[f->val[i]]++;
    for (int64_t i = 0; i < f->n_test; i++) seen[f->test[i]]++;
    for (int i = 0; i < 1000; i++) assert_int_equal(seen[i], 1);
    for (int64_t i = 1; i < f->n_train; i++) assert_true(f->train[i - 1] < f->train[i]);
    assert_int_equal(ag_split_random(&b, 1000, 0.8, 0.1, 7), AG_SUCCESS);
    assert_memory_equal(a.folds[0].test, b.folds[0].test, 100 * sizeof(int64_t));
    assert_int_equal(ag_split_random(&c, 1000, 0.8, 0.1, 8), AG_SUCCESS);
    assert_true(memcmp(a.folds[0].test, c.folds[0].test, 100 * sizeof(int64_t)) != 0);
    /* a random test set of 100 out of 1000 is not the first or last 100 */
    assert_true(a.folds[0].test[99] - a.folds[0].test[0] > 500);
    ag_split_destroy(&a);
    ag_split_destroy(&b);
    ag_split_destroy(&c);
    assert_int_equal(ag_split_random(&a, 10, 0.25, 0.25, 1), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, 3); /* round(2.5) */
    assert_int_equal(a.folds[0].n_val, 3);
    assert_int_equal(a.folds[0].n_test, 4);
    ag_split_destroy(&a);
    /* Few items: rounding alone leaves a part empty (7 at 0.8/0.1/0.1: 6, 1, 0); a part asked for
     * takes one item from the largest while there are items for every part. */
    static const int64_t few[][4] = {{1, 1, 0, 0}, {2, 2, 0, 0}, {3, 1, 1, 1}, {4, 2, 1, 1}, {5, 3, 1, 1},
                                     {6, 4, 1, 1}, {7, 5, 1, 1}, {8, 6, 1, 1},  {10, 8, 1, 1}};
    for (size_t k = 0; k < sizeof few / sizeof few[0]; k++) {
        assert_int_equal(ag_split_random(&a, few[k][0], 0.8, 0.1, 3), AG_SUCCESS);
        assert_int_equal(a.folds[0].n_train, few[k][1]);
        assert_int_equal(a.folds[0].n_val, few[k][2]);
        assert_int_equal(a.folds[0].n_test, few[k][3]);
        ag_split_destroy(&a);
    }
    /* no test part asked for: none made; 0.9/0.1 of 4 rounds val to 0, so it takes one */
    assert_int_equal(ag_split_random(&a, 4, 0.9, 0.1, 3), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, 3);
    assert_int_equal(a.folds[0].n_val, 1);
    assert_int_equal(a.folds[0].n_test, 0);
    ag_split_destroy(&a);
    assert_int_equal(ag_split_random(&a, 10, 0.8, 0.3, 1), AG_EINVAL);
    assert_int_equal(ag_split_random(&a, 10, -0.1, 0.3, 1), AG_EINVAL);
    assert_int_equal(ag_split_random(&a, 10, NAN, 0.3, 1), AG_EINVAL);
}

/* A random split of the members only: their counts by the fractions, the others in no list; with
 * every item a member, the parts of ag_split_random (the figures of fully labelled data stay). */
static void test_random_among(void **state) {
    (void)state;
    enum { N = 202 };
    unsigned char member[N] = {0};
    for (int i = 0; i < N; i += 10) member[i] = 1; /* 21 labelled among 202, as a user's graph */
    ag_split_t a, b, all;
    assert_int_equal(ag_split_random_among(&a, N, member, 0.8, 0.1, 1), AG_SUCCESS);
    const ag_fold_t *f = &a.folds[0];
    assert_int_equal(a.n_items, N);
    assert_int_equal(f->n_train, 17); /* round(16.8) */
    assert_int_equal(f->n_val, 2);    /* round(2.1) */
    assert_int_equal(f->n_test, 2);
    int seen[N] = {0};
    for (int64_t i = 0; i < f->n_train; i++) seen[f->train[i]]++;
    for (int64_t i = 0; i < f->n_val; i++) seen[f->val[i]]++;
    for (int64_t i = 0; i < f->n_test; i++) seen[f->test[i]]++;
    for (int i = 0; i < N; i++) assert_int_equal(seen[i], member[i]);
    for (int64_t i = 1; i < f->n_test; i++) assert_true(f->test[i - 1] < f->test[i]);
    assert_int_equal(ag_split_random_among(&b, N, member, 0.8, 0.1, 1), AG_SUCCESS);
    assert_memory_equal(f->train, b.folds[0].train, (size_t)f->n_train * sizeof(int64_t));
    assert_memory_equal(f->test, b.folds[0].test, (size_t)f->n_test * sizeof(int64_t));
    ag_split_destroy(&a);
    ag_split_destroy(&b);
    /* every item a member, or none given: exactly the split of all items, for several sizes and seeds */
    for (int n = 1; n <= N; n += 67)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            unsigned char every[N];
            memset(every, 1, sizeof every);
            assert_int_equal(ag_split_random(&all, n, 0.6, 0.2, seed), AG_SUCCESS);
            for (int k = 0; k < 2; k++) {
                assert_int_equal(ag_split_random_among(&a, n, k ? every : NULL, 0.6, 0.2, seed), AG_SUCCESS);
                const ag_fold_t *x = &a.folds[0], *y = &all.folds[0];
                assert_int_equal(x->n_train, y->n_train);
                assert_int_equal(x->n_val, y->n_val);
                assert_int_equal(x->n_test, y->n_test);
                assert_memory_equal(x->train, y->train, (size_t)x->n_train * sizeof(int64_t));
                assert_memory_equal(x->val, y->val, (size_t)x->n_val * sizeof(int64_t));
                assert_memory_equal(x->test, y->test, (size_t)x->n_test * sizeof(int64_t));
                ag_split_destroy(&a);
            }
            ag_split_destroy(&all);
        }
    /* no member: every list empty */
    memset(member, 0, sizeof member);
    assert_int_equal(ag_split_random_among(&a, N, member, 0.8, 0.1, 1), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train + a.folds[0].n_val + a.folds[0].n_test, 0);
    ag_split_destroy(&a);
    assert_int_equal(ag_split_random_among(&a, N, member, 0.8, 0.3, 1), AG_EINVAL);
}

static void test_stratified_kfold(void **state) {
    (void)state;
    enum { N = 103, K = 5, C = 3 };
    int32_t y[N];
    int64_t class_size[C] = {0, 0, 0};
    for (int i = 0; i < N; i++) {
        y[i] = i % 7 == 0 ? 2 : (i % 3 == 0 ? 1 : 0); /* uneven classes */
        class_size[y[i]]++;
    }
    ag_split_t a, b, c;
    assert_int_equal(ag_split_stratified_kfold(&a, y, N, K, 42), AG_SUCCESS);
    assert_int_equal(a.n_folds, K);
    int tested[N] = {0};
    for (int f = 0; f < K; f++) {
        const ag_fold_t *fold = &a.folds[f];
        assert_int_equal(fold->n_train + fold->n_test, N);
        assert_int_equal(fold->n_val, 0);
        assert_true(fold->n_test == N / K || fold->n_test == N / K + 1);
        int64_t count[C] = {0, 0, 0};
        for (int64_t i = 0; i < fold->n_test; i++) {
            tested[fold->test[i]]++;
            count[y[fold->test[i]]]++;
        }
        for (int k = 0; k < C; k++) {
            /* within one of the exact proportion: floor or ceil of class size / K */
            assert_true(count[k] == class_size[k] / K || count[k] == (class_size[k] + K - 1) / K);
        }
    }
    for (int i = 0; i < N; i++) assert_int_equal(tested[i], 1);
    assert_int_equal(ag_split_stratified_kfold(&b, y, N, K, 42), AG_SUCCESS);
    for (int f = 0; f < K; f++) {
        assert_int_equal(a.folds[f].n_test, b.folds[f].n_test);
        assert_memory_equal(a.folds[f].test, b.folds[f].test, (size_t)a.folds[f].n_test * sizeof(int64_t));
    }
    assert_int_equal(ag_split_stratified_kfold(&c, y, N, K, 43), AG_SUCCESS);
    int differs = 0;
    for (int f = 0; f < K; f++)
        differs |= a.folds[f].n_test != c.folds[f].n_test ||
                   memcmp(a.folds[f].test, c.folds[f].test, (size_t)a.folds[f].n_test * sizeof(int64_t)) != 0;
    assert_true(differs);
    ag_split_destroy(&a);
    ag_split_destroy(&b);
    ag_split_destroy(&c);
    assert_int_equal(ag_split_stratified_kfold(&a, y, N, 1, 0), AG_EINVAL);
    assert_int_equal(ag_split_stratified_kfold(&a, y, 3, 4, 0), AG_EINVAL);
    for (int which = 0; which < 7; which++) {
        int reached = 0;
        const char *files[] = {"graphs/g2.gml", "graphs/g1.gml", "graphs/g3.gml"};
        for (int64_t k = 1; k < 100 && !reached; k++) {
            ag_error_t rc;
            ag_i_alloc_fail_at(k);
            switch (which) {
            case 0: rc = ag_split_stratified_kfold(&a, y, N, K, 42); break;
            case 1: rc = ag_split_random(&a, N, 0.5, 0.25, 1); break;
            case 2: rc = ag_split_read_csv(&a, DATA "dataset/folds.csv", "fold", files, 3); break;
            case 3: rc = ag_split_read_csv(&a, DATA "dataset/split.csv", "random_split", files, 3); break;
            case 4: rc = ag_split_read_json(&a, DATA "folds.json", 3); break;
            case 5: rc = ag_split_stratified(&a, y, N, 0.5, 0.25, 1); break;
            case 6: rc = ag_split_stratified_among(&a, y, N, NULL, 0.5, 0.25, 1); break;
            default: rc = AG_EINVAL; break;
            }
            ag_i_alloc_fail_at(0);
            if (rc == AG_SUCCESS) {
                ag_split_destroy(&a);
                reached = 1;
                continue;
            }
            assert_int_equal(rc, AG_ENOMEM);
            assert_null(a.folds);
        }
        assert_true(reached);
    }
}

static void test_stratified(void **state) {
    (void)state;
    /* classes of 10, 7 and 3 items: 60/20/20 gives 6/2/2, 4/1/2 (round(4.2), round(1.4)), 2/1/0
     * (round(1.8), round(0.6), nothing left) */
    enum { N = 20 };
    int32_t y[N];
    for (int i = 0; i < N; i++) y[i] = i < 10 ? 5 : i < 17 ? -1 : 2;
    ag_split_t a, b;
    assert_int_equal(ag_split_stratified(&a, y, N, 0.6, 0.2, 3), AG_SUCCESS);
    int64_t want[3][3] = {{6, 2, 2}, {4, 1, 2}, {2, 1, 0}}; /* rows: class 5, -1, 2; cols: train, val, test */
    int64_t got[3][3] = {{0}};
    int seen[N] = {0};
    const ag_fold_t *f = &a.folds[0];
    const int64_t *lists[3] = {f->train, f->val, f->test};
    const int64_t sizes[3] = {f->n_train, f->n_val, f->n_test};
    for (int l = 0; l < 3; l++) {
        for (int64_t i = 0; i < sizes[l]; i++) {
            int64_t item = lists[l][i];
            seen[item]++;
            got[y[item] == 5 ? 0 : y[item] == -1 ? 1 : 2][l]++;
        }
    }
    for (int i = 0; i < N; i++) assert_int_equal(seen[i], 1);
    for (int c = 0; c < 3; c++)
        for (int l = 0; l < 3; l++) assert_int_equal(got[c][l], want[c][l]);
    assert_int_equal(ag_split_stratified(&b, y, N, 0.6, 0.2, 3), AG_SUCCESS);
    assert_memory_equal(a.folds[0].train, b.folds[0].train, (size_t)a.folds[0].n_train * sizeof(int64_t));
    assert_memory_equal(a.folds[0].val, b.folds[0].val, (size_t)a.folds[0].n_val * sizeof(int64_t));
    ag_split_destroy(&b);
    assert_int_equal(ag_split_stratified(&b, y, N, 0.6, 0.2, 4), AG_SUCCESS);
    assert_true(memcmp(a.folds[0].train, b.folds[0].train, (size_t)a.folds[0].n_train * sizeof(int64_t)) != 0);
    ag_split_destroy(&a);
    ag_split_destroy(&b);
    assert_int_equal(ag_split_stratified(&a, y, N, 0.9, 0.2, 3), AG_EINVAL);
    assert_int_equal(ag_split_stratified(&a, NULL, N, 0.6, 0.2, 3), AG_EINVAL);
}

/* Ten classes of three at 0.8/0.1: rounding each class gave 2/0/1 apiece, 20 training items,
 * none to validate and 10 to test. The largest remainders give the plain split's 24/3/3, each
 * class within one item of its share; over members only, the others in no list. */
static void test_stratified_totals(void **state) {
    (void)state;
    enum { N = 40 };
    int32_t y[N];
    unsigned char member[N];
    for (int i = 0; i < N; i++) {
        y[i] = i < 30 ? 9 - i % 10 : 1000 + i; /* the 10 non-members' classes are never read */
        member[i] = i < 30;
    }
    ag_split_t a, b;
    assert_int_equal(ag_split_stratified_among(&a, y, N, member, 0.8, 0.1, 5), AG_SUCCESS);
    const ag_fold_t *f = &a.folds[0];
    assert_int_equal(f->n_train, 24);
    assert_int_equal(f->n_val, 3);
    assert_int_equal(f->n_test, 3);
    int64_t got[10][3] = {{0}};
    const int64_t *lists[3] = {f->train, f->val, f->test};
    const int64_t sizes[3] = {f->n_train, f->n_val, f->n_test};
    for (int l = 0; l < 3; l++)
        for (int64_t i = 0; i < sizes[l]; i++) {
            assert_true(lists[l][i] < 30);
            got[y[lists[l][i]]][l]++;
        }
    /* ties go to the lower class values: classes 0-3 train 3; 4-6 validate one; 7-9 test one */
    for (int c = 0; c < 10; c++) {
        assert_int_equal(got[c][0], c < 4 ? 3 : 2);
        assert_int_equal(got[c][1], c >= 4 && c < 7);
        assert_int_equal(got[c][2], c >= 7);
    }
    /* every item a member: the same as ag_split_stratified */
    ag_split_destroy(&a);
    assert_int_equal(ag_split_stratified_among(&a, y, 30, NULL, 0.8, 0.1, 5), AG_SUCCESS);
    assert_int_equal(ag_split_stratified(&b, y, 30, 0.8, 0.1, 5), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, b.folds[0].n_train);
    assert_memory_equal(a.folds[0].train, b.folds[0].train, (size_t)b.folds[0].n_train * sizeof(int64_t));
    assert_memory_equal(a.folds[0].test, b.folds[0].test, (size_t)b.folds[0].n_test * sizeof(int64_t));
    ag_split_destroy(&a);
    ag_split_destroy(&b);
    /* 2 members of one class at 0.8/0.1/0.1: as ag_split_random_among, 2 items cannot fill 3 parts */
    memset(member, 0, sizeof member);
    member[3] = member[13] = 1;
    assert_int_equal(ag_split_stratified_among(&a, y, N, member, 0.8, 0.1, 5), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, 2);
    assert_int_equal(a.folds[0].n_val + a.folds[0].n_test, 0);
    ag_split_destroy(&a);
    /* 3 members: one to each part, as the plain split's rule for a part left empty */
    member[23] = 1;
    assert_int_equal(ag_split_stratified_among(&a, y, N, member, 0.8, 0.1, 5), AG_SUCCESS);
    assert_int_equal(a.folds[0].n_train, 1);
    assert_int_equal(a.folds[0].n_val, 1);
    assert_int_equal(a.folds[0].n_test, 1);
    ag_split_destroy(&a);
    assert_int_equal(ag_split_stratified_among(&a, NULL, N, member, 0.8, 0.1, 5), AG_EINVAL);
    assert_null(a.folds);
}

static void test_shared(void **state) {
    (void)state;
    ag_split_t s;
    if (access(AG_SHARED_DATASETS "/cora/split.json", R_OK) != 0) skip();
    assert_int_equal(ag_split_read_json(&s, AG_SHARED_DATASETS "/cora/split.json", 2708), AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train, 140);
    assert_int_equal(s.folds[0].n_val, 500);
    assert_int_equal(s.folds[0].n_test, 1000);
    assert_int_equal(s.folds[0].train[0], 36);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_json(&s, AG_SHARED_DATASETS "/twitch-en/split.json", 7126), AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train, 4276);
    assert_int_equal(s.folds[0].n_val, 1426);
    assert_int_equal(s.folds[0].n_test, 1424);
    ag_split_destroy(&s);
    assert_int_equal(ag_split_read_json(&s, AG_SHARED_DATASETS "/lastfm-asia/split.json", 7624), AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train + s.folds[0].n_val + s.folds[0].n_test, 7624);
    ag_split_destroy(&s);

    /* tox21: file names as the dataset lists them (the labels table's order) */
    ag_targets_t t;
    assert_int_equal(ag_targets_read_csv(&t, AG_SHARED_DATASETS "/tox21/labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(ag_split_read_csv(&s, AG_SHARED_DATASETS "/tox21/split.csv", "random_split",
                                       (const char *const *)t.files, t.n_graphs),
                     AG_SUCCESS);
    assert_int_equal(s.folds[0].n_train, 6264);
    assert_int_equal(s.folds[0].n_val, 783);
    assert_int_equal(s.folds[0].n_test, 784);
    assert_int_equal(s.folds[0].test[0], 0); /* molecules/0001.gml is test in random_split */
    ag_split_destroy(&s);
    ag_targets_destroy(&t);

    assert_int_equal(ag_targets_read_csv(&t, AG_SHARED_DATASETS "/mutag/labels.csv", NULL), AG_SUCCESS);
    assert_int_equal(
        ag_split_read_csv(&s, AG_SHARED_DATASETS "/mutag/folds.csv", "fold", (const char *const *)t.files, t.n_graphs),
        AG_SUCCESS);
    assert_int_equal(s.n_folds, 10);
    int tested[188] = {0};
    for (int f = 0; f < 10; f++) {
        assert_int_equal(s.folds[f].n_test + s.folds[f].n_train, 188);
        assert_int_equal(s.folds[f].n_test, f < 8 ? 19 : 18);
        for (int64_t i = 0; i < s.folds[f].n_test; i++) tested[s.folds[f].test[i]]++;
    }
    for (int g = 0; g < 188; g++) assert_int_equal(tested[g], 1);
    ag_split_destroy(&s);
    ag_targets_destroy(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),   cmocka_unit_test(test_csv), cmocka_unit_test(test_csv_vertices),
        cmocka_unit_test(test_random), cmocka_unit_test(test_random_among),
        cmocka_unit_test(test_stratified_kfold),
        cmocka_unit_test(test_stratified), cmocka_unit_test(test_stratified_totals),
        cmocka_unit_test(test_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
