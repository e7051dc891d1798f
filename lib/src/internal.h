/*
 * internal.h: helpers shared by the library's sources; not installed.
 */
#ifndef ATTNGRAPH_INTERNAL_H
#define ATTNGRAPH_INTERNAL_H

#include <igraph.h>
#include <stdarg.h>
#include "attngraph/common.h"
/* internal to the library: not exported from the shared library (only the public headers are) */
#pragma GCC visibility push(hidden)

/* The hot loops are compiled for AVX-512, AVX2 and the baseline, chosen at load time: the library
 * is installed, so it cannot assume -march=native. Each clone runs the same operations per lane
 * (ISO C mode keeps -ffp-contract=off: no fused multiply-adds), so results do not depend on
 * which one runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define AG_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AG_CLONES
#endif

/* No floating-point traps are ever enabled, so GCC may vectorise the comparisons and selects of
 * the hot loops; clang has no per-function optimize attribute (and needs none to vectorise them). */
#if defined(__GNUC__) && !defined(__clang__)
#define AG_NO_TRAPPING_MATH __attribute__((optimize("no-trapping-math")))
#else
#define AG_NO_TRAPPING_MATH
#endif

/* Records the last error (code, printf-style message, library source location) and returns code,
 * so that `return AG_ERROR(AG_EPARSE, "%s:%d: ...", path, line);` is one statement. */
#define AG_ERROR(code, ...) ag_i_set_error((code), __FILE__, __LINE__, __VA_ARGS__)

/* The last error, raised while reading a model file or checkpoint, again as AG_EMODEL (a fault of
 * the file), its message prefixed with "PATH: WHAT"; AG_ENOMEM is kept as it is. The source
 * location stays the original's, which a bug report needs. Returns the code. */
ag_error_t ag_i_model_file_error(ag_error_t code, const char *path, const char *what);

/* safetensors.c: every key of src set in dst, as ag_metadata_set() key by key would (a key keeps
 * dst's place or takes its first in src, with its last value in src), in O(n log n) for the n keys
 * of both: a file's metadata may hold millions. AG_ENOMEM may leave some keys set. */
struct ag_metadata_t;
ag_error_t ag_i_metadata_merge(struct ag_metadata_t *dst, const struct ag_metadata_t *src);

/* Propagates a failing call's code; the callee has already recorded the message. */
#define AG_CHECK(expr) do { ag_error_t ag_i_rc_ = (expr); if (ag_i_rc_ != AG_SUCCESS) return ag_i_rc_; } while (0)

ag_error_t ag_i_set_error(ag_error_t code, const char *src_file, int src_line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A caller's igraph vector, matrix or string vector (its storage pointer: v->stor_begin, or
 * m->data.stor_begin) is ready to use. igraph's own functions fail an assertion that aborts the
 * process on one never initialised or already destroyed (storage NULL), and the library promises
 * never to abort, so each container a caller hands over is checked before igraph sees it. */
#define AG_I_READY(storage, fn, what)                                                                         \
    ((storage) ? AG_SUCCESS                                                                                   \
               : AG_ERROR(AG_EINVAL, "%s: %s was never initialised, or was destroyed (igraph_*_init it first)", \
                          (fn), (what)))

/* Every allocation of the library goes through these, so that tests can make the n-th one fail
 * (allocation-failure injection) and check that each path returns AG_ENOMEM without leaking. */
void *ag_i_malloc(size_t size);
void *ag_i_calloc(size_t count, size_t size);
void *ag_i_realloc(void *ptr, size_t size);
void ag_i_free(void *ptr);

/* s made printable for an error message: well-formed UTF-8 kept, every other byte written as
 * \xHH (so a Latin-1 name shows where it breaks), cut with "..." to fit cap bytes. Returns buf. */
const char *ag_i_utf8_show(const char *s, char *buf, size_t cap);

/* Item i as messages name it: names[i] when there is one (a graph's file), else "<item> <i>"
 * ("graph 3") written into buf. */
const char *ag_i_item_name(const char *const *names, const char *item, int64_t i, char *buf, size_t cap);

/* " (id 'alice')" for vertex v when the graph carries its own key for it, else "", into buf (96
 * bytes hold any): the text id igraph keeps of a GraphML node or a Pajek vertex, else its string
 * name (an NCOL file's), else a numeric id other than v (a GML file numbered its own way); a text
 * key that is v itself ("0" at 0) or not UTF-8 is passed over; cut at 60 bytes on a UTF-8 boundary. A message giving the 0-based index alone sent the user of a
 * GraphML file whose node ids are numbers ("204" at index 1) to the node with id="1", another
 * vertex. */
void ag_i_vertex_own_key(const igraph_t *ig, int64_t v, char *buf, size_t cap);

char *ag_i_strdup(const char *s);
/* An array of n strings: freed with each string (NULL is fine); copied whole, or AG_ENOMEM with
 * nothing left allocated (an array of at least one slot even for n = 0). */
void ag_i_strings_free(char **s, int64_t n);
ag_error_t ag_i_strings_dup(char ***out, const char *const *in, int64_t n);

/* Reads the rest of f into *buf (grown through ag_i_realloc; the caller ag_i_free's it, also on
 * failure) and its length into *len. Returns AG_SUCCESS, AG_ENOMEM or AG_EFILE (ferror(f); errno
 * as the read left it) without setting a message: each caller names its input its own way. */
ag_error_t ag_i_read_stream(FILE *f, char **buf, size_t *len);

/* 3 when the n bytes at p start with a UTF-8 byte-order mark (Windows editors write one), else 0:
 * every text reader passes it over, so that it becomes no part of a first name or number. */
size_t ag_i_bom_length(const void *p, size_t n);

/* path with "." segments, repeated '/' and "x/.." pairs removed ("./g//a/../b.gml" is "g/b.gml"),
 * so that two spellings of one file in a table compare equal; NULL when out of memory (the caller
 * ag_i_free's it). The file system is not asked: a symbolic link's ".." is taken lexically. */
char *ag_i_path_lexical(const char *path);

/* fopen(path, "rb") that fails with errno EISDIR on a directory: fopen() opens one, and the
 * reader would then take its size for 2^63 bytes or report a baffling read error. */
FILE *ag_i_fopen_read(const char *path);

/* qsort comparison of two int64_t, ascending. */
int ag_i_cmp_i64(const void *a, const void *b);

/* Overflow-checked a * b for sizes; returns 0 and sets *out on success, non-zero on overflow. */
int ag_i_mul_overflow(int64_t a, int64_t b, int64_t *out);

/* Allocates count elements of size bytes (zeroed) or records AG_ENOMEM / AG_ELIMIT with `what`. */
ag_error_t ag_i_alloc_array(void **out, int64_t count, size_t size, const char *what);
/* old grown (or shrunk) to count elements of size bytes, the new ones uninitialised: *out is the
 * block, or NULL on AG_ELIMIT or AG_ENOMEM with old left as it was (the caller still frees it). */
ag_error_t ag_i_realloc_array(void **out, void *old, int64_t count, size_t size, const char *what);

/* Work on fewer rows (nodes) than this runs on the calling thread: a parallel region costs more
 * than such work (one molecule: tens of microseconds), and a second thread woken or left spinning
 * on a shared machine made one-molecule `attn-graph classify` 5-15x slower (40-130 ms against
 * 8 ms, under load). Results do not depend on the thread count, so this changes no value. */
#define AG_SMALL_ROWS 256
/* ag_i_small_begin(rows) returns 1 when rows is small and the calling thread now runs the work on
 * its own (ag_threads_get() says 1 and OpenMP's thread count is 1 until the matching
 * ag_i_small_end); 0 otherwise. Nests; per thread. */
int ag_i_small_begin(int64_t rows);
void ag_i_small_end(int began);

/* The index of value v in names (options.c), or an AG_EINVAL naming the option and the accepted
 * values: "option mask: unknown value 'x' (expected neighbours, khop or full)". */
ag_error_t ag_i_option_index(const char *opt, const char *v, const char *const *names, int n, int *out);

/* igraph 0.10 reports errors through a process-global handler that aborts by default. Every
 * library call into igraph runs between ag_i_igraph_enter() and ag_i_igraph_leave(): the first
 * installs handlers that record igraph's message instead of aborting (and collect warnings),
 * the second restores the caller's handlers. Calls nest. Never inside an OpenMP region. */
void ag_i_igraph_enter(void);
void ag_i_igraph_leave(void);
/* igraph's last error message captured inside the guard ("" if none). */
const char *ag_i_igraph_last_error(void);
/* igraph's distinct warnings since the outermost ag_i_igraph_enter(), in the order given: how many
 * are kept (the first AG_I_IGRAPH_WARNINGS), the i-th ("" outside 0..count-1), and how many
 * distinct ones came after those, counted up to AG_I_IGRAPH_WARNINGS_COUNTED. */
#define AG_I_IGRAPH_WARNINGS 8
#define AG_I_IGRAPH_WARNINGS_COUNTED 256
int ag_i_igraph_warning_count(void);
const char *ag_i_igraph_warning(int i);
int ag_i_igraph_warning_other_count(void);
/* Inside the guard, until the outermost ag_i_igraph_leave(): warnings starting with prefix are
 * neither kept nor counted (NULL: none). prefix must outlive the guard. Dropping them here, and
 * not after the read, keeps a dropped one from taking a kept place or the count's. */
void ag_i_igraph_ignore_warning(const char *prefix);

/* Runs an igraph call inside the guard; on failure records an AG_EIGRAPH-class error whose
 * message is `context: igraph's reason` and returns it. */
#define AG_IGRAPH_CHECK(call, code, ...) \
    do { \
        ag_i_igraph_enter(); \
        igraph_error_t ag_i_ig_rc_ = (call); \
        ag_i_igraph_leave(); \
        if (ag_i_ig_rc_ != IGRAPH_SUCCESS) { \
            if (ag_i_ig_rc_ == IGRAPH_ENOMEM) return AG_ERROR(AG_ENOMEM, "out of memory in igraph"); \
            return ag_i_igraph_error((code), __FILE__, __LINE__, __VA_ARGS__); \
        } \
    } while (0)

ag_error_t ag_i_igraph_error(ag_error_t code, const char *src_file, int src_line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Ensembles (evaluate.c): AG_EMISMATCH, naming the member `index` and the output, unless `model`
 * scales its outputs exactly as `first` does (members' raw outputs are averaged, so they must
 * share the target standardisation). Used by the ensemble kernels and by model bundles. */
struct ag_model_t;
struct ag_batch_t;
ag_error_t ag_i_check_member_scaling(const struct ag_model_t *first, const struct ag_model_t *model, int64_t index);
/* ag_ensemble_predict_batch for a batch whose attention weights nobody will ask: the members'
 * passes keep no attention caches (ag_model_keep_attention 0; each member's setting restored). */
ag_error_t ag_i_ensemble_predict_lean(struct ag_model_t *const *models, int64_t k, struct ag_batch_t *batch,
                                      float *out);
/* Floats a model's activations hold between passes (model.c): its value buffers, its feed-forward
 * blocks' own buffers and its attention layers' head outputs, which tests of evaluation's buffer
 * reuse read. */
int64_t ag_i_model_activation_floats(const struct ag_model_t *m);

/* trainset.c: the checks that training, evaluation and prediction run once per call, before a
 * model reads a training set. ag_i_trainset_check_inputs: AG_EINVAL (a NULL model or set) or
 * AG_EMISMATCH unless the set's task, graph count and feature shapes are the model's: what a
 * forward pass reads, so that a set built for another model is an error and not a read past its
 * features. ag_i_trainset_check: that, then the target table's shape (AG_EMISMATCH).
 * ag_i_check_indices: AG_EINVAL unless the n indices idx are in 0..limit-1; `what` names them in
 * the message ("training"). */
struct ag_trainset_t;
ag_error_t ag_i_trainset_check_inputs(const struct ag_model_t *model, const struct ag_trainset_t *set);
ag_error_t ag_i_trainset_check(const struct ag_model_t *model, const struct ag_trainset_t *set);
ag_error_t ag_i_check_indices(const int64_t *idx, int64_t n, int64_t limit, const char *what);

/* Correct and Smooth (smooth.c): `code` with "<prefix>correct alpha 1.5 is not in [0, 1)" unless
 * both weights are in [0, 1) (NaN is not). Used by the kernels and by model bundles' "smooth". */
struct ag_smooth_config_t;
ag_error_t ag_i_smooth_alphas_check(const struct ag_smooth_config_t *cfg, ag_error_t code, const char *prefix);

/* prepare.c: the vertex attributes a node classifier leaves out, into p->excluded (allocated
 * here): label_attr (NULL: none, the labels came from elsewhere) and every attribute that mirrors
 * the labels lab, one-to-one over the labelled vertices. */
struct ag_prepared_t;
struct ag_labels_t;
ag_error_t ag_i_find_excluded(struct ag_prepared_t *p, const igraph_t *ig, const char *label_attr,
                              const struct ag_labels_t *lab);

/* train.c: AG_EVALUE when the regression values x (n; NaN skipped) differ by less than a millionth
 * of their size (a standard deviation above 0 but below 1e-6 x the largest magnitude): float32,
 * which holds the targets, would round them to a few values or one, and training would then see
 * a constant. Checked where the doubles still are; which names them ("target 'y'"). */
ag_error_t ag_i_check_target_spread(const double *x, int64_t n, const char *which);

/* prepare.c: AG_EATTR when a column of the node table T (N x F) mirrors the classes (classes: N
 * class indices, -1 unlabelled, C classes; one value per class over the labelled vertices) or,
 * with classes NULL, copies the regression targets y (N, NaN where none): the table is the
 * caller's own, every column asked for, so it is refused by place rather than dropped. */
struct ag_fmat_t;
ag_error_t ag_i_check_table_copies(const struct ag_fmat_t *T, const int32_t *classes, int64_t C, const float *y);

/* prepare.c: the AG_EVALUE of a regression target x infinite or beyond float32 (the targets'
 * type): "WHERE is X, beyond the float32 range ...; rescale the RESCALE (NaN marks MISSING)". */
ag_error_t ag_i_target_range_error(double x, const char *where, const char *rescale, const char *missing);
/* That error when vertex v's regression target x is infinite or beyond float32, naming the vertex
 * attribute attr (NULL: the caller's values vector); NaN (unlabelled) passes. */
ag_error_t ag_i_check_node_value(double x, int64_t v, const char *attr);
/* prepare.c: the same for a regression target y (N, NaN where a vertex has none): skip (NULL:
 * none) and every numeric vertex attribute that copies y on the vertices with a target: equal as
 * float32 (two or more vertices), or correlated to 1 - 1e-6 (ten or more: another unit). */
ag_error_t ag_i_find_value_copies(struct ag_prepared_t *p, const igraph_t *ig, const char *skip, const float *y,
                                  int64_t N);

/* prepare.c: p->featurizer fitted on ig with cfg's exclusions and p->excluded. */
struct ag_featurizer_config_t;
ag_error_t ag_i_fit_excluding(struct ag_prepared_t *p, const struct ag_featurizer_config_t *cfg, const igraph_t *ig);

/* Test hooks (alloc.c): the tests declare them themselves. */
int64_t ag_i_alloc_live(void);
void ag_i_alloc_fail_at(int64_t n);

/* ag_threads_idle's rule (runtime.c) on the text of /proc/loadavg ("3.65 5.49 4.61 4/111 28516"):
 * cores less the other work, rounded, at least 1; cores when the text says nothing. */
int ag_i_threads_from_load(int cores, const char *loadavg);

#pragma GCC visibility pop
#endif
