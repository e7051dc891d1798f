/*
 * split.c: train/val/test splits and k-fold cross-validation (see split.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "attngraph/rng.h"
#include "attngraph/split.h"
#include "csv.h"
#include "internal.h"
#include "json.h"

/* Records the first failure and jumps to the cleanup at `done`. */
#define TRY(expr) do { rc = (expr); if (rc != AG_SUCCESS) goto done; } while (0)

/* Random streams of the two generators, so they never share draws for one seed. */
#define STREAM_RANDOM 0x53504c4954000001ULL
#define STREAM_KFOLD 0x53504c4954000002ULL
#define STREAM_STRATIFIED 0x53504c4954000003ULL

enum { PART_NONE = 0, PART_TRAIN = 1, PART_VAL = 2, PART_TEST = 3 };
static const char *const part_names[] = {"none", "train", "val", "test"};

void ag_split_destroy(ag_split_t *split) {
    if (!split) return;
    for (int64_t f = 0; f < split->n_folds && split->folds; f++) {
        ag_i_free(split->folds[f].train);
        ag_i_free(split->folds[f].val);
        ag_i_free(split->folds[f].test);
    }
    ag_i_free(split->folds);
    memset(split, 0, sizeof *split);
}

static ag_error_t alloc_folds(ag_split_t *split, int64_t n_items, int64_t k) {
    void *p;
    memset(split, 0, sizeof *split);
    AG_CHECK(ag_i_alloc_array(&p, k, sizeof(ag_fold_t), "folds"));
    split->folds = p;
    split->n_folds = k;
    split->n_items = n_items;
    return AG_SUCCESS;
}

/* Builds fold lists from a part per item (PART_*), in ascending item order. */
static ag_error_t fold_from_parts(ag_fold_t *fold, const unsigned char *part, int64_t n) {
    int64_t count[4] = {0, 0, 0, 0};
    void *p;
    for (int64_t i = 0; i < n; i++) count[part[i]]++;
    AG_CHECK(ag_i_alloc_array(&p, count[PART_TRAIN], sizeof(int64_t), "train list"));
    fold->train = p;
    AG_CHECK(ag_i_alloc_array(&p, count[PART_VAL], sizeof(int64_t), "val list"));
    fold->val = p;
    AG_CHECK(ag_i_alloc_array(&p, count[PART_TEST], sizeof(int64_t), "test list"));
    fold->test = p;
    for (int64_t i = 0; i < n; i++) {
        if (part[i] == PART_TRAIN)
            fold->train[fold->n_train++] = i;
        else if (part[i] == PART_VAL)
            fold->val[fold->n_val++] = i;
        else if (part[i] == PART_TEST)
            fold->test[fold->n_test++] = i;
    }
    return AG_SUCCESS;
}

static int part_of(const char *s) {
    if (strcmp(s, "train") == 0) return PART_TRAIN;
    if (strcmp(s, "val") == 0 || strcmp(s, "valid") == 0 || strcmp(s, "validation") == 0) return PART_VAL;
    if (strcmp(s, "test") == 0) return PART_TEST;
    return PART_NONE;
}

/* ---- split.json */

/* Where a message points: "PATH: fold F" in a list of folds, "PATH" in a plain split (fold < 0). */
static const char *json_where(char *buf, size_t cap, const char *path, int64_t fold) {
    if (fold < 0) snprintf(buf, cap, "%s", path);
    else snprintf(buf, cap, "%s: fold %lld", path, (long long)fold);
    return buf;
}

static ag_error_t json_list(const ag_json_t *obj, const char *key, int which, unsigned char *part, int64_t n,
                            const char *path, int64_t fold) {
    const ag_json_t *a = ag_json_get(obj, key);
    if (!a) return AG_SUCCESS;
    char w[600];
    if (a->type != AG_JSON_ARRAY)
        return AG_ERROR(AG_EPARSE, "%s: \"%s\" is not an array", json_where(w, sizeof w, path, fold), key);
    for (int64_t k = 0; k < a->count; k++) {
        const ag_json_t *v = &a->items[k];
        if (v->type != AG_JSON_NUMBER || v->number != floor(v->number))
            return AG_ERROR(AG_EPARSE, "%s: \"%s\"[%lld] is not an integer", json_where(w, sizeof w, path, fold), key,
                            (long long)k);
        double x = v->number;
        if (x < 0 || x >= (double)n)
            return AG_ERROR(AG_EVALUE, "%s: \"%s\"[%lld] = %.0f is out of range (%lld items)",
                            json_where(w, sizeof w, path, fold), key, (long long)k, x, (long long)n);
        int64_t i = (int64_t)x;
        if (part[i] != PART_NONE)
            return AG_ERROR(AG_EVALUE, "%s: index %lld is in \"%s\" %s%s%s", json_where(w, sizeof w, path, fold),
                            (long long)i, key, part[i] == which ? "twice" : "and in \"",
                            part[i] == which ? "" : part_names[part[i]], part[i] == which ? "" : "\"");
        part[i] = (unsigned char)which;
    }
    return AG_SUCCESS;
}

/* One fold: a member of "folds" (f >= 0) or the whole document of a plain split (f < 0). */
static ag_error_t json_fold(ag_fold_t *fold, const ag_json_t *obj, unsigned char *part, int64_t n, const char *path,
                            int64_t f) {
    char w[600];
    if (obj->type != AG_JSON_OBJECT) return AG_ERROR(AG_EPARSE, "%s is not a JSON object", json_where(w, sizeof w, path, f));
    /* A part's list under two keys (the same twice: a JSON reader keeps one of them; "val" beside
     * "valid") would quietly be no part of the split. Other keys ("meta") are not the split's. */
    const char *val_key = "val";
    for (int64_t k = 0; k < obj->count; k++) {
        const char *key = obj->keys[k];
        const int part_key = part_of(key);
        if (part_key == PART_NONE) continue;
        if (part_key == PART_VAL) val_key = key;
        for (int64_t j = 0; j < k; j++)
            if (part_of(obj->keys[j]) == part_key)
                return AG_ERROR(AG_EPARSE, "%s: \"%s\" and \"%s\" both give the %s list",
                                json_where(w, sizeof w, path, f), obj->keys[j], key, part_names[part_key]);
    }
    if (!ag_json_get(obj, "train"))
        return AG_ERROR(AG_EPARSE, "%s has no \"train\" list", json_where(w, sizeof w, path, f));
    memset(part, 0, (size_t)n);
    AG_CHECK(json_list(obj, "train", PART_TRAIN, part, n, path, f));
    AG_CHECK(json_list(obj, val_key, PART_VAL, part, n, path, f));
    AG_CHECK(json_list(obj, "test", PART_TEST, part, n, path, f));
    return fold_from_parts(fold, part, n);
}

ag_error_t ag_split_read_json(ag_split_t *split, const char *path, int64_t n_items) {
    ag_error_t rc = AG_SUCCESS;
    ag_json_t *doc = NULL;
    unsigned char *part = NULL; /* (n_items) */
    void *p;
    memset(split, 0, sizeof *split);
    if (!path || n_items < 0) return AG_ERROR(AG_EINVAL, "ag_split_read_json: path and n_items >= 0 are required");
    AG_CHECK(ag_json_parse_file(path, &doc));
    if (doc->type != AG_JSON_OBJECT) {
        rc = AG_ERROR(AG_EPARSE, "%s: the split is not a JSON object", path);
        goto done;
    }
    TRY(ag_i_alloc_array(&p, n_items, 1, "split parts"));
    part = p;
    const ag_json_t *folds = ag_json_get(doc, "folds");
    if (folds) {
        if (folds->type != AG_JSON_ARRAY || folds->count == 0) {
            rc = AG_ERROR(AG_EPARSE, "%s: \"folds\" is not a non-empty array", path);
            goto done;
        }
        TRY(alloc_folds(split, n_items, folds->count));
        for (int64_t f = 0; f < folds->count; f++)
            TRY(json_fold(&split->folds[f], &folds->items[f], part, n_items, path, f));
    } else {
        TRY(alloc_folds(split, n_items, 1));
        TRY(json_fold(&split->folds[0], doc, part, n_items, path, -1));
    }
done:
    if (rc != AG_SUCCESS) ag_split_destroy(split);
    ag_i_free(part);
    ag_json_free(doc);
    return rc;
}

/* ---- split.csv / folds.csv */

typedef struct name_key_t {
    const char *name;
    int64_t index;
} name_key_t;

/* 1 and s's value as a plain integer in out when s is a number with an integral value (3.0, 3e0,
 * +3), else 0. */
static int integral_text(const char *s, char *out, size_t cap) {
    char *end;
    const double x = strtod(s, &end);
    if (end == s || *end != '\0' || !(fabs(x) < 9e15) || x != floor(x)) return 0;
    snprintf(out, cap, "%lld", (long long)x);
    return 1;
}

static int cmp_name_key(const void *a, const void *b) {
    return strcmp(((const name_key_t *)a)->name, ((const name_key_t *)b)->name);
}


ag_error_t ag_split_read_csv(ag_split_t *split, const char *path, const char *column, const char *const *files,
                             int64_t n_files) {
    return ag_split_read_csv_named(split, path, column, NULL, files, n_files);
}

/* The rows of a split table matched to items: by their file names (files given, vertex_ids 0), by
 * vertex ids (vertex_ids 1: a table without file_column falls back to row order, a vertex without a
 * row is in no part), or by row order (files NULL). */
static ag_error_t read_csv_split(ag_split_t *split, const char *path, const char *column, const char *file_column,
                                 const char *const *files, int64_t n_files, int vertex_ids) {
    ag_error_t rc = AG_SUCCESS;
    ag_csv_t csv;
    name_key_t *keys = NULL; /* (n_files) sorted file names */
    char **norm = NULL;      /* (n_files) the names as the file system reads them (ag_i_path_lexical) */
    int64_t *value = NULL;   /* (n_files) part (PART_*) or fold number; -1 = no row yet, -2 = empty cell */
    int64_t *line = NULL;    /* (n_files) line of the item's row */
    unsigned char *part = NULL;
    int64_t rows = 0, max_fold = -1, max_line = 0;
    int mode = 0; /* 1 parts, 2 folds */
    int got;
    void *p;
    memset(split, 0, sizeof *split);
    if (!path || !column || n_files < 0)
        return AG_ERROR(AG_EINVAL, "ag_split_read_csv: path, column and n_files >= 0 are required");
    AG_CHECK(ag_csv_open(&csv, path));
    csv.delim = ag_csv_sniff(&csv);
    TRY(ag_i_alloc_array(&p, n_files, sizeof(int64_t), "split values"));
    value = p;
    TRY(ag_i_alloc_array(&p, n_files, sizeof(int64_t), "split lines"));
    line = p;
    for (int64_t i = 0; i < n_files; i++) value[i] = -1;
    if (files) {
        TRY(ag_i_alloc_array(&p, n_files, sizeof(name_key_t), "file index"));
        keys = p;
        TRY(ag_i_alloc_array(&p, n_files, sizeof(char *), "file names"));
        norm = p;
        for (int64_t i = 0; i < n_files; i++) {
            if (!(norm[i] = vertex_ids ? ag_i_strdup(files[i]) : ag_i_path_lexical(files[i]))) {
                rc = AG_ERROR(AG_ENOMEM, "out of memory");
                goto done;
            }
            keys[i] = (name_key_t){norm[i], i};
        }
        qsort(keys, (size_t)n_files, sizeof *keys, cmp_name_key);
    }
    TRY(ag_csv_next(&csv, &got));
    if (!got) {
        rc = AG_ERROR(AG_EPARSE, "%s: empty file (a header row is expected)", path);
        goto done;
    }
    /* the labels table's file column when the split has it too, else the usual 'file' */
    int64_t n_cols = csv.n_fields, col = ag_csv_find(&csv, column),
            file_col = file_column ? ag_csv_find(&csv, file_column) : -1;
    if (file_col < 0 && !vertex_ids) file_col = ag_csv_find(&csv, "file");
    if (vertex_ids && file_col < 0) files = NULL; /* no id column: row i is vertex i */
    for (int64_t i = 1; files && vertex_ids && i < n_files; i++)
        if (!strcmp(keys[i - 1].name, keys[i].name)) {
            /* a row naming that id could mean either vertex */
            int64_t a = keys[i - 1].index, b = keys[i].index;
            rc = AG_ERROR(AG_EMISMATCH, "%s: vertices %lld and %lld share the id '%s' (column '%s'), so a row cannot "
                          "name one of them", path, (long long)(a < b ? a : b), (long long)(a < b ? b : a), keys[i].name,
                          file_column);
            goto done;
        }
    if (col < 0) {
        rc = AG_ERROR(AG_EATTR, "%s:1: no column '%s' in the header", path, column);
        goto done;
    }
    if (files && file_col < 0) {
        if (file_column && strcmp(file_column, "file") != 0)
            rc = AG_ERROR(AG_EATTR, "%s:1: no '%s' or 'file' column in the header", path, file_column);
        else
            rc = AG_ERROR(AG_EATTR, "%s:1: no 'file' column in the header", path);
        goto done;
    }
    for (;;) {
        TRY(ag_csv_next(&csv, &got));
        if (!got) break;
        TRY(ag_csv_expect_fields(&csv, n_cols));
        int64_t item;
        if (files) {
            /* ./g/a.gml names the dataset's g/a.gml */
            char *cell = vertex_ids ? ag_i_strdup(csv.fields[file_col]) : ag_i_path_lexical(csv.fields[file_col]);
            if (!cell) {
                rc = AG_ERROR(AG_ENOMEM, "out of memory");
                goto done;
            }
            name_key_t key = {cell, 0};
            const name_key_t *hit = bsearch(&key, keys, (size_t)n_files, sizeof *keys, cmp_name_key);
            char whole[32];
            if (!hit && vertex_ids && integral_text(cell, whole, sizeof whole)) {
                /* 3.0 or 3e0, as a spreadsheet writes the id 3 */
                key.name = whole;
                hit = bsearch(&key, keys, (size_t)n_files, sizeof *keys, cmp_name_key);
            }
            ag_i_free(cell);
            key.name = csv.fields[file_col];
            if (!hit && vertex_ids) {
                rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: column '%s': no vertex has id '%s'%s", path, (long long)csv.line,
                              file_column, key.name,
                              n_files > 0 ? "" : " (the graph has no vertex)");
                goto done;
            }
            if (!hit) {
                rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: file '%s' is not in the dataset", path, (long long)csv.line,
                              key.name);
                goto done;
            }
            item = hit->index;
            if (value[item] != -1) {
                rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: %s '%s' appears twice (first on line %lld)", path,
                              (long long)csv.line, vertex_ids ? "vertex id" : "file", key.name, (long long)line[item]);
                goto done;
            }
        } else {
            item = rows;
            if (item >= n_files) {
                rc = AG_ERROR(AG_EMISMATCH, "%s:%lld: more rows than the %lld items", path, (long long)csv.line,
                              (long long)n_files);
                goto done;
            }
        }
        rows++;
        line[item] = csv.line;
        const char *s = csv.fields[col];
        if (s[0] == '\0') {
            value[item] = -2;
            continue;
        }
        int pt = part_of(s);
        int this_mode = pt != PART_NONE ? 1 : 2;
        if (this_mode == 2) {
            char *end;
            long long k = strtoll(s, &end, 10);
            if (*end != '\0' || k < 0 || k > INT32_MAX) {
                rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': '%s' is neither train/val/test nor a fold number", path,
                              (long long)csv.line, column, s);
                goto done;
            }
            value[item] = k;
            if (k > max_fold) {
                max_fold = k;
                max_line = (int64_t)csv.line;
            }
        } else {
            value[item] = pt;
        }
        if (mode && mode != this_mode) {
            rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': '%s' mixes fold numbers with train/val/test", path,
                          (long long)csv.line, column, s);
            goto done;
        }
        mode = this_mode;
    }
    for (int64_t i = 0; i < n_files; i++) {
        if (value[i] == -1 && files && vertex_ids) {
            value[i] = -2; /* a vertex the table does not name is in no part, as an empty cell */
            continue;
        }
        if (value[i] == -1) {
            if (files)
                rc = AG_ERROR(AG_EMISMATCH, "%s: dataset file '%s' (item %lld) has no row", path, files[i],
                              (long long)i);
            else
                rc = AG_ERROR(AG_EMISMATCH, "%s: %lld rows for %lld items", path, (long long)rows, (long long)n_files);
            goto done;
        }
    }
    TRY(ag_i_alloc_array(&p, n_files, 1, "split parts"));
    part = p;
    if (mode == 2) {
        /* Folds are numbered 0..K-1 and each holds an item: K is at most the item count, so a
         * fold number cannot ask for more folds than there are rows (a number like 32666648 made
         * 32 million folds of n-item lists). */
        if (max_fold >= n_files) {
            rc = AG_ERROR(AG_EVALUE, "%s:%lld: column '%s': fold %lld is out of range for %lld items (folds are "
                          "numbered from 0, every fold needs at least one item)", path, (long long)max_line, column,
                          (long long)max_fold, (long long)n_files);
            goto done;
        }
        int64_t k = max_fold + 1;
        memset(part, 0, (size_t)n_files);
        for (int64_t i = 0; i < n_files; i++)
            if (value[i] >= 0) part[value[i]] = 1; /* fold value[i] has an item */
        for (int64_t f = 0; f < k; f++)
            if (!part[f]) {
                rc = AG_ERROR(AG_EVALUE, "%s: column '%s': no item is in fold %lld (folds are numbered from 0 to "
                              "%lld, every fold needs at least one item)", path, column, (long long)f, (long long)max_fold);
                goto done;
            }
        TRY(alloc_folds(split, n_files, k));
        for (int64_t f = 0; f < k; f++) {
            for (int64_t i = 0; i < n_files; i++)
                part[i] = value[i] < 0 ? PART_NONE : value[i] == f ? PART_TEST : PART_TRAIN;
            TRY(fold_from_parts(&split->folds[f], part, n_files));
        }
    } else {
        TRY(alloc_folds(split, n_files, 1));
        for (int64_t i = 0; i < n_files; i++) part[i] = value[i] < 0 ? PART_NONE : (unsigned char)value[i];
        TRY(fold_from_parts(&split->folds[0], part, n_files));
    }
done:
    if (rc != AG_SUCCESS) ag_split_destroy(split);
    ag_csv_close(&csv);
    ag_i_strings_free(norm, norm ? n_files : 0);
    ag_i_free(keys);
    ag_i_free(value);
    ag_i_free(line);
    ag_i_free(part);
    return rc;
}

ag_error_t ag_split_read_csv_named(ag_split_t *split, const char *path, const char *column, const char *file_column,
                                   const char *const *files, int64_t n_files) {
    return read_csv_split(split, path, column, file_column, files, n_files, 0);
}

ag_error_t ag_split_read_csv_vertices(ag_split_t *split, const char *path, const char *column, const char *id_column,
                                      const char *const *ids, int64_t n_vertices) {
    memset(split, 0, sizeof *split);
    if (!id_column || !ids)
        return AG_ERROR(AG_EINVAL, "ag_split_read_csv_vertices: id_column and ids are required");
    return read_csv_split(split, path, column, id_column, ids, n_vertices, 1);
}

/* ---- Made here. */

/* A seeded Fisher-Yates shuffle of perm[0..n). */
static void shuffle(int64_t *perm, int64_t n, uint64_t seed, uint64_t stream) {
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(ag_rng_u64(seed, stream, (uint64_t)i) % (uint64_t)(i + 1));
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* The train and validation sizes of a split of m items: round(train * m), round(val * m), and a
 * part asked for that rounding leaves empty takes one item from the largest (ag_split_random). */
static void part_sizes(int64_t m, double train, double val, int64_t *train_size, int64_t *val_size) {
    int64_t n_train = (int64_t)floor(train * (double)m + 0.5), n_val = (int64_t)floor(val * (double)m + 0.5);
    if (n_train > m) n_train = m;
    if (n_val > m - n_train) n_val = m - n_train;
    /* Rounding alone leaves a part asked for empty when there are few members (7 at 0.8/0.1/0.1:
     * 6, 1, 0), and a run then has nothing to test or validate on; such a part takes one member
     * from the largest part, while every part keeps at least one. Parts that rounding fills are
     * left as they were, so larger splits do not change. */
    double test = 1 - train - val;
    int64_t n_test = m - n_train - n_val;
    int64_t *size[3] = {&n_train, &n_val, &n_test};
    const double want[3] = {train, val, test > 1e-9 ? test : 0};
    int wanted = (want[0] > 0) + (want[1] > 0) + (want[2] > 0);
    for (int k = 0; k < 3 && m >= wanted; k++) {
        if (want[k] <= 0 || *size[k] > 0) continue;
        int big = k == 0 ? 1 : 0;
        for (int j = 0; j < 3; j++)
            if (*size[j] > *size[big]) big = j;
        if (*size[big] < 2) continue;
        (*size[big])--;
        (*size[k])++;
    }
    *train_size = n_train;
    *val_size = n_val;
}

ag_error_t ag_split_random(ag_split_t *split, int64_t n, double train, double val, uint64_t seed) {
    return ag_split_random_among(split, n, NULL, train, val, seed);
}

ag_error_t ag_split_random_among(ag_split_t *split, int64_t n, const unsigned char *member, double train, double val,
                                 uint64_t seed) {
    ag_error_t rc = AG_SUCCESS;
    int64_t *order = NULL; /* (m) the members, shuffled */
    unsigned char *part = NULL;
    void *p;
    memset(split, 0, sizeof *split);
    if (n < 0 || !(train >= 0 && train <= 1) || !(val >= 0 && val <= 1) || train + val > 1 + 1e-9)
        return AG_ERROR(AG_EINVAL, "ag_split_random: bad size %lld or fractions train %g, val %g", (long long)n, train,
                        val);
    TRY(ag_i_alloc_array(&p, n, sizeof(int64_t), "permutation"));
    order = p;
    TRY(ag_i_alloc_array(&p, n, 1, "split parts"));
    part = p;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (!member || member[i]) order[m++] = i;
    int64_t n_train, n_val;
    part_sizes(m, train, val, &n_train, &n_val);
    /* The shuffle moves positions whatever they hold: with every item a member, order starts as
     * 0..n-1 and ends as the permutation the split of all items always drew, so the parts of a
     * fully labelled graph or dataset are those of before members were chosen. */
    shuffle(order, m, seed, STREAM_RANDOM);
    for (int64_t r = 0; r < m; r++)
        part[order[r]] = r < n_train ? PART_TRAIN : r < n_train + n_val ? PART_VAL : PART_TEST;
    TRY(alloc_folds(split, n, 1));
    TRY(fold_from_parts(&split->folds[0], part, n));
done:
    if (rc != AG_SUCCESS) ag_split_destroy(split);
    ag_i_free(order);
    ag_i_free(part);
    return rc;
}

typedef struct strat_key_t {
    int32_t y;
    int64_t rank; /* position in the shuffled order */
    int64_t item;
} strat_key_t;

static int cmp_strat(const void *a, const void *b) {
    const strat_key_t *x = a, *y = b;
    if (x->y != y->y) return (x->y > y->y) - (x->y < y->y);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

ag_error_t ag_split_stratified_kfold(ag_split_t *split, const int32_t *y, int64_t n, int64_t k, uint64_t seed) {
    ag_error_t rc = AG_SUCCESS;
    int64_t *perm = NULL;       /* (n) */
    strat_key_t *keys = NULL;   /* (n) */
    int64_t *fold_of = NULL;    /* (n) */
    unsigned char *part = NULL; /* (n) */
    void *p;
    memset(split, 0, sizeof *split);
    if (!y || k < 2 || k > n)
        return AG_ERROR(AG_EINVAL, "ag_split_stratified_kfold: need labels and 2 <= k <= n (k = %lld, n = %lld)",
                        (long long)k, (long long)n);
    TRY(ag_i_alloc_array(&p, n, sizeof(int64_t), "permutation"));
    perm = p;
    TRY(ag_i_alloc_array(&p, n, sizeof(strat_key_t), "strata"));
    keys = p;
    TRY(ag_i_alloc_array(&p, n, sizeof(int64_t), "fold of item"));
    fold_of = p;
    TRY(ag_i_alloc_array(&p, n, 1, "split parts"));
    part = p;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    shuffle(perm, n, seed, STREAM_KFOLD);
    for (int64_t r = 0; r < n; r++) keys[r] = (strat_key_t){y[perm[r]], r, perm[r]};
    /* Classes one after another, each in shuffled order; dealing positions round-robin gives every
     * class floor or ceil of its size / k per fold, and every fold floor or ceil of n / k. */
    qsort(keys, (size_t)n, sizeof *keys, cmp_strat);
    for (int64_t r = 0; r < n; r++) fold_of[keys[r].item] = r % k;
    TRY(alloc_folds(split, n, k));
    for (int64_t f = 0; f < k; f++) {
        for (int64_t i = 0; i < n; i++) part[i] = fold_of[i] == f ? PART_TEST : PART_TRAIN;
        TRY(fold_from_parts(&split->folds[f], part, n));
    }
done:
    if (rc != AG_SUCCESS) ag_split_destroy(split);
    ag_i_free(perm);
    ag_i_free(keys);
    ag_i_free(fold_of);
    ag_i_free(part);
    return rc;
}

typedef struct share_t {
    double rest; /* the quota's fraction that the floor left out */
    int64_t cls; /* the class's place among the classes */
} share_t;

static int cmp_share(const void *a, const void *b) {
    const share_t *x = a, *y = b;
    if (x->rest != y->rest) return x->rest < y->rest ? 1 : -1;
    return (x->cls > y->cls) - (x->cls < y->cls);
}

/* Hamilton's largest-remainder apportionment of a part of total items among the classes of m
 * items: class c's quota is total * size[c] / m, it gets the quota's floor (at most room[c]), and
 * the items left go one each to the classes whose quotas the floors cut most, first class first on
 * ties. The part then has the plain split's size (rounding each class on its own gave 10 classes
 * of 3 at 0.8/0.1 20 training items, none to validate and 10 to test). scratch: (n_classes). */
static void apportion(const int64_t *size, const int64_t *room, int64_t n_classes, int64_t m, int64_t total,
                      int64_t *share, share_t *scratch) {
    int64_t left = total;
    for (int64_t c = 0; c < n_classes; c++) {
        const double quota = (double)total * (double)size[c] / (double)m;
        share[c] = (int64_t)floor(quota);
        if (share[c] > room[c]) share[c] = room[c];
        scratch[c] = (share_t){quota - (double)share[c], c};
        left -= share[c];
    }
    qsort(scratch, (size_t)n_classes, sizeof *scratch, cmp_share);
    /* a class without room passes its turn; the rooms add up to at least total */
    for (int progress = 1; left > 0 && progress;) {
        progress = 0;
        for (int64_t k = 0; k < n_classes && left > 0; k++) {
            const int64_t c = scratch[k].cls;
            if (share[c] < room[c]) share[c]++, left--, progress = 1;
        }
    }
}

ag_error_t ag_split_stratified(ag_split_t *split, const int32_t *y, int64_t n, double train, double val,
                               uint64_t seed) {
    return ag_split_stratified_among(split, y, n, NULL, train, val, seed);
}

ag_error_t ag_split_stratified_among(ag_split_t *split, const int32_t *y, int64_t n, const unsigned char *member,
                                    double train, double val, uint64_t seed) {
    ag_error_t rc = AG_SUCCESS;
    int64_t *perm = NULL;       /* (n) */
    strat_key_t *keys = NULL;   /* (m) the members, by class, shuffled within it */
    unsigned char *part = NULL; /* (n) */
    int64_t *counts = NULL;     /* (4 x n) per class: size, training share, validation share, room */
    share_t *scratch = NULL;    /* (n) */
    void *p;
    memset(split, 0, sizeof *split);
    if (n < 0 || (n > 0 && !y) || !(train >= 0 && train <= 1) || !(val >= 0 && val <= 1) || train + val > 1 + 1e-9)
        return AG_ERROR(AG_EINVAL, "ag_split_stratified: bad size %lld, labels or fractions train %g, val %g",
                        (long long)n, train, val);
    TRY(ag_i_alloc_array(&p, n, sizeof(int64_t), "permutation"));
    perm = p;
    TRY(ag_i_alloc_array(&p, n, sizeof(strat_key_t), "strata"));
    keys = p;
    TRY(ag_i_alloc_array(&p, n, 1, "split parts"));
    part = p;
    TRY(ag_i_alloc_array(&p, 4 * n, sizeof(int64_t), "class shares"));
    counts = p;
    TRY(ag_i_alloc_array(&p, n, sizeof(share_t), "class shares"));
    scratch = p;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    shuffle(perm, n, seed, STREAM_STRATIFIED);
    int64_t m = 0;
    for (int64_t r = 0; r < n; r++)
        if (!member || member[perm[r]]) keys[m] = (strat_key_t){y[perm[r]], r, perm[r]}, m++;
    qsort(keys, (size_t)m, sizeof *keys, cmp_strat);
    int64_t *size = counts, *n_train = counts + n, *n_val = counts + 2 * n, *room = counts + 3 * n;
    int64_t n_classes = 0;
    for (int64_t start = 0, end; start < m; start = end, n_classes++) {
        for (end = start; end < m && keys[end].y == keys[start].y;) end++;
        size[n_classes] = end - start;
    }
    int64_t total_train, total_val;
    part_sizes(m, train, val, &total_train, &total_val);
    apportion(size, size, n_classes, m, total_train, n_train, scratch);
    for (int64_t c = 0; c < n_classes; c++) room[c] = size[c] - n_train[c];
    apportion(size, room, n_classes, m, total_val, n_val, scratch);
    for (int64_t start = 0, c = 0; c < n_classes; start += size[c], c++)
        for (int64_t r = 0; r < size[c]; r++)
            part[keys[start + r].item] = r < n_train[c] ? PART_TRAIN : r < n_train[c] + n_val[c] ? PART_VAL : PART_TEST;
    TRY(alloc_folds(split, n, 1));
    TRY(fold_from_parts(&split->folds[0], part, n));
done:
    if (rc != AG_SUCCESS) ag_split_destroy(split);
    ag_i_free(perm);
    ag_i_free(keys);
    ag_i_free(part);
    ag_i_free(counts);
    ag_i_free(scratch);
    return rc;
}
