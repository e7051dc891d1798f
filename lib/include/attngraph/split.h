/*
 * attngraph/split.h: train/validation/test splits and k-fold cross-validation.
 *
 * A split holds index lists into a set of items (the vertices of one graph, or the graphs of a
 * dataset). A plain split has one fold with train, val and test lists; k-fold cross-validation has
 * k folds, where fold f tests on the f-th part and trains on the others (val empty, as in GIN's
 * protocol). Index lists are sorted ascending and disjoint within a fold.
 *
 * Sources: split.json (`{"train": [...], "val": [...], "test": [...]}`, Cora, LastFM, Twitch),
 * a column of a CSV table (tox21/split.csv `random_split` = train/val/test per file; mutag/folds.csv
 * `fold` = 0..9 per file), or made here: seeded random fractions, seeded stratified k-fold.
 * Made splits are a pure function of (inputs, seed) through attngraph/rng.h.
 *
 * Example: Tox21's random split aligned to a loaded dataset
 *   ag_split_t s;
 *   ag_split_read_csv(&s, "tox21/split.csv", "random_split", (const char *const *)ds.files, ds.n_graphs);
 *   // s.folds[0].n_train == 6264, n_val == 783, n_test == 784
 *   ag_split_destroy(&s);
 */
#ifndef ATTNGRAPH_SPLIT_H
#define ATTNGRAPH_SPLIT_H

#include <stdint.h>
#include "attngraph/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One train/val/test partition (some items may be in none of the lists). */
typedef struct ag_fold_t {
    int64_t *train;   /* (n_train) sorted item indices */
    int64_t *val;     /* (n_val) */
    int64_t *test;    /* (n_test) */
    int64_t n_train, n_val, n_test;
} ag_fold_t;

/** A split: one fold, or k folds for cross-validation. */
typedef struct ag_split_t {
    int64_t n_items;  /* the indices are < n_items */
    int64_t n_folds;
    ag_fold_t *folds; /* (n_folds) */
} ag_split_t;

/**
 * \function ag_split_read_json
 * Reads a split file: an object with arrays "train", "val" (or "valid"), "test" of 0-based
 * indices (other keys, such as Cora's "meta", are ignored), or an object with "folds": an array of
 * such objects. A missing "val" or "test" is empty; "train" is required.
 * \param split   Output, uninitialised; free with ag_split_destroy(). Zeroed on failure.
 * \param path    The JSON file.
 * \param n_items Number of items the indices refer to (e.g. the graph's vertex count).
 * \return AG_SUCCESS; AG_EFILE; AG_EPARSE (invalid JSON with line:column; not an object; a list
 *   that is not an array of integers); AG_EVALUE (an index out of range, or in two lists of one
 *   fold: names the index and the lists); AG_ENOMEM.
 * Time complexity: O(file size + k n_items) for k folds (1 for a plain split).
 */
ag_error_t ag_split_read_json(ag_split_t *split, const char *path, int64_t n_items);

/**
 * \function ag_split_read_csv
 * Reads a split from one column of a CSV table with a `file` column.
 *
 * Values train / val (or valid, validation) / test give one fold; non-negative integers give k-fold
 * (k = largest + 1; fold f tests on the rows with value f and trains on the rest). An empty cell
 * leaves the item out of every list.
 * \param split   Output, uninitialised; free with ag_split_destroy(). Zeroed on failure.
 * \param path    The table (e.g. tox21/split.csv, mutag/folds.csv).
 * \param column  The column to use ("random_split", "scaffold_split", "fold").
 * \param files   (n_files) the dataset's file names (ag_dataset_t.files): row i goes to the item
 *                whose name equals its `file` cell. NULL: row i is item i.
 * \param n_files Number of items.
 * \return AG_SUCCESS; AG_EFILE; AG_EPARSE (path:line: malformed row); AG_EATTR (no such column,
 *   no `file` column); AG_EVALUE (path:line: a value that is neither a part name nor a fold number,
 *   or a mix of both); AG_EMISMATCH (path:line: a file that is not in the dataset or appears twice;
 *   a dataset file with no row; row count differing from n_files when files is NULL); AG_ENOMEM.
 * Time complexity: O(file size + G log G + k G) for G items and k folds (1 for train/val/test): each
 * fold lists every item with a value.
 */
ag_error_t ag_split_read_csv(ag_split_t *split, const char *path, const char *column,
                             const char *const *files, int64_t n_files);

/**
 * \function ag_split_read_csv_named
 * ag_split_read_csv with the rows' file names in column `file_column` when the table has it (the
 * labels table's file column, `--file-column`), else in `file`; NULL is `file`.
 * \return As ag_split_read_csv; AG_EATTR names both columns when neither is there.
 * Time complexity: as ag_split_read_csv().
 */
ag_error_t ag_split_read_csv_named(ag_split_t *split, const char *path, const char *column, const char *file_column,
                                   const char *const *files, int64_t n_files);

/**
 * \function ag_split_read_csv_vertices
 * A node task's split table: like ag_split_read_csv, with each row matched to the vertex whose id
 * (ids[v], vertex v's id as text: a vertex attribute's value or the index, as the caller keys a
 * node table) equals the row's cell in column id_column, compared as text (a cell such as 12.0
 * or 1.2e1 that names no id as written is tried as the integer 12). A vertex that no row names is
 * in no part (as a row with an empty cell), so a table may list the labelled vertices only. A table without id_column is matched by position: row i is vertex i, and the row count
 * must be n_vertices.
 * \param ids  (n_vertices) vertex ids as text.
 * \return As ag_split_read_csv; AG_EMISMATCH (path:line: an id no vertex has, an id named twice;
 *   two vertices with the same id, which a row could not tell apart);
 *   AG_EINVAL (a NULL id_column or ids).
 * Time complexity: O(file size + N log N + k N) for k folds (1 for train/val/test).
 */
ag_error_t ag_split_read_csv_vertices(ag_split_t *split, const char *path, const char *column, const char *id_column,
                                      const char *const *ids, int64_t n_vertices);

/**
 * \function ag_split_random
 * A seeded random split of n items: round(train * n) train items, round(val * n) validation
 * items, the rest test. A part with a positive fraction that rounding leaves empty (few items:
 * 7 at 0.8, 0.1 give 6, 1, 0) takes one item from the largest part, when there are at least as
 * many items as parts asked for (7 then give 5, 1, 1; 2 items at 0.8, 0.1 stay 2, 0, 0).
 * Deterministic for a seed.
 * \return AG_SUCCESS; AG_EINVAL (n < 0, fractions outside [0, 1] or summing above 1); AG_ENOMEM.
 * Time complexity: O(n).
 */
ag_error_t ag_split_random(ag_split_t *split, int64_t n, double train, double val, uint64_t seed);

/**
 * \function ag_split_random_among
 * ag_split_random() over the members only (the labelled vertices of a semi-supervised node task,
 * the labelled graphs of a dataset): of the m items i with member[i] != 0, round(train * m) train,
 * round(val * m) validate, the rest test, with ag_split_random()'s rule for an empty part; the
 * other items are in no list. With every item a
 * member (or member NULL) the parts are exactly ag_split_random()'s for the same n and seed.
 * \param member (n) 1 for an item to split, 0 for one to leave out; NULL: every item.
 * \return AG_SUCCESS; AG_EINVAL (n < 0, fractions outside [0, 1] or summing above 1); AG_ENOMEM.
 * Time complexity: O(n).
 */
ag_error_t ag_split_random_among(ag_split_t *split, int64_t n, const unsigned char *member, double train,
                                 double val, uint64_t seed);

/**
 * \function ag_split_stratified
 * A seeded stratified train/val/test split (as in LastFM's and Twitch's 60/20/20 files; the
 * program's `--split-random A,B --stratify`): the part sizes are ag_split_random()'s (round(train
 * * n) train, round(val * n) val, the same rule for a part that rounding leaves empty), and each
 * class gets its share of each part by the largest-remainder rule: of a part of T items, a class
 * of c items gets the floor of T * c / n, and the items left go one each to the classes whose
 * shares the floors cut most (the lower class value first on ties); training first, then
 * validation within what training left of each class; the rest is test. So every part holds each
 * class in proportion to within one item, and the totals are those of the plain split (rounding
 * per class gave 10 classes of 3 at 0.8/0.1 no validation item and 10 test items). Which items of
 * a class go where is drawn at random. Label -1 is treated as one more class. Deterministic for a
 * seed. (Before 2026-12-08 each class was rounded on its own.)
 * \param y  (n) class labels (any int32 values).
 * \return AG_SUCCESS; AG_EINVAL (n < 0, no labels, fractions outside [0, 1] or summing above 1);
 *   AG_ENOMEM.
 * Time complexity: O(n log n).
 */
ag_error_t ag_split_stratified(ag_split_t *split, const int32_t *y, int64_t n, double train, double val,
                               uint64_t seed);

/**
 * \function ag_split_stratified_among
 * ag_split_stratified() over the members only (the labelled vertices of a node task, the graphs
 * with a class): the m items i with member[i] != 0 are split, by their classes y[i], into parts of
 * ag_split_random_among()'s sizes; the other items are in no list (their y is not read). With
 * every item a member (or member NULL) the parts are exactly ag_split_stratified()'s.
 * \param y      (n) class labels.
 * \param member (n) 1 for an item to split, 0 for one to leave out; NULL: every item.
 * \return As ag_split_stratified().
 * Time complexity: O(n log n).
 */
ag_error_t ag_split_stratified_among(ag_split_t *split, const int32_t *y, int64_t n, const unsigned char *member,
                                    double train, double val, uint64_t seed);

/**
 * \function ag_split_stratified_kfold
 * Seeded stratified k-fold cross-validation over n items with class labels y: every class is
 * spread over the folds so that each fold holds floor or ceil of (class size / k) of it, and fold
 * sizes differ by at most one. Label -1 (unlabelled) is treated as one more class. Fold f: test =
 * part f, train = the other parts, val empty. Deterministic for a seed.
 * \param y  (n) class labels (any int32 values).
 * \return AG_SUCCESS; AG_EINVAL (k < 2 or k > n); AG_ENOMEM.
 * Time complexity: O(n log n + k n).
 */
ag_error_t ag_split_stratified_kfold(ag_split_t *split, const int32_t *y, int64_t n, int64_t k, uint64_t seed);

/** \function ag_split_destroy
 * Frees a split; safe on a zeroed or already destroyed one.
 * Time complexity: O(k) for k folds. */
void ag_split_destroy(ag_split_t *split);

#ifdef __cplusplus
}
#endif
#endif
