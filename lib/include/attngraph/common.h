/*
 * attngraph/common.h: error codes, the last-error message, memory and threads.
 *
 * Every fallible function of the library returns an ag_error_t. On failure the library never
 * aborts or exits: it returns a non-zero code and records a one-line message that says what went
 * wrong and where (input file and line, attribute, vertex), readable with ag_error_message().
 * The message is thread-local.
 */
#ifndef ATTNGRAPH_COMMON_H
#define ATTNGRAPH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \typedef ag_error_t
 * Error codes. AG_SUCCESS is zero; every other value is a failure whose details are in
 * ag_error_message().
 */
typedef enum ag_error_t {
    AG_SUCCESS = 0,
    AG_ENOMEM,      /* an allocation failed */
    AG_EINVAL,      /* an invalid argument from the caller (bad size, NULL, bad option value) */
    AG_EFILE,       /* a file could not be opened, read or written */
    AG_EPARSE,      /* a file is malformed (the message carries the line where known) */
    AG_EFORMAT,     /* unknown or unsupported file format */
    AG_EATTR,       /* an attribute is missing, has the wrong type, or is missing on some vertex */
    AG_EVALUE,      /* a value is out of range: NaN or infinite feature, label not in the class list */
    AG_EMISMATCH,   /* shapes disagree: feature widths across graphs, table rows vs vertices */
    AG_EMODEL,      /* a model file is invalid, corrupted, foreign or of a future version */
    AG_ELIMIT,      /* a size overflows what the library can hold (64-bit sizes, 2^31-1 nodes) */
    AG_EIGRAPH,     /* igraph reported an error not covered above */
    AG_EREADLIMIT,  /* an input file asks for more memory than the read limit allows: a graph file's
                     * vertex count, a sparse node table's width (ag_graph_read_set_max_memory()) */
    AG_ERROR_COUNT
} ag_error_t;

/** \function ag_error_message
 * The message of the last error raised on this thread ("" if none). Valid until the next error.
 * Time complexity: O(1). */
const char *ag_error_message(void);

/** \function ag_error_code
 * The code of the last error raised on this thread (AG_SUCCESS if none).
 * Time complexity: O(1). */
ag_error_t ag_error_code(void);

/** \function ag_error_location
 * The library source file and line that raised the last error, for bug reports.
 * Time complexity: O(1). */
const char *ag_error_location(int *line);

/** \function ag_error_name
 * A short constant name for an error code, e.g. "AG_EPARSE".
 * Time complexity: O(1), a lookup in a fixed table. */
const char *ag_error_name(ag_error_t code);

/** \function ag_error_clear
 * Forget the last error of this thread.
 * Time complexity: O(1). */
void ag_error_clear(void);

/** The most threads ag_threads_set() takes (and the CLI's --threads): far beyond any machine's
 * cores, and below the process limits at which the OpenMP runtime fails to start a team (it then
 * crashes rather than reporting). */
#define AG_THREADS_MAX 4096

/**
 * \function ag_threads_set
 * Sets the number of threads used by the library's OpenMP kernels and by the BLAS, for every
 * thread that calls the library (a process-wide setting; the caller's own OpenMP code keeps its
 * own). n <= 0 restores the default: OpenMP's, OMP_NUM_THREADS or the number of cores, as seen
 * by the calling thread; n above AG_THREADS_MAX is taken as AG_THREADS_MAX. On a machine busy with other work, ag_threads_set(ag_threads_idle())
 * avoids OpenMP's spinning threads waiting for each other's time slices (README, Threads).
 * Results do not depend on the number of threads: every sum runs in a fixed order.
 * Time complexity: O(1).
 */
void ag_threads_set(int n);

/** \function ag_threads_get
 * The number of threads the library's kernels will use.
 * Time complexity: O(1). */
int ag_threads_get(void);

/** \function ag_threads_idle
 * Of the cores OpenMP would use, those that other work leaves idle, at least 1: the cores less
 * the smaller of the 1-minute load average and the tasks runnable now but the caller (from
 * /proc/loadavg; without it, or with OMP_NUM_THREADS set, every core). What `attn-graph` runs
 * on when given no thread count. Time complexity: O(1), one small file read. */
int ag_threads_idle(void);

/** \function ag_blas_name
 * The CBLAS provider this build was linked with ("blis", "openblas" or "netlib").
 * Time complexity: O(1). */
const char *ag_blas_name(void);

/**
 * \function ag_utf8_sequence
 * The length (1 to 4) of the well-formed UTF-8 sequence that starts at s[0], or 0 when the bytes
 * there are not one (a stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short by the n bytes available). Model files store vocabularies and
 * class names as JSON, which must be UTF-8; writers of JSON, XML or SVG can use it to replace a
 * bad byte (with U+FFFD) instead of producing a file no reader accepts.
 *
 * \param s The bytes.
 * \param n How many bytes are readable at s (at least 1).
 * Time complexity: O(1): at most 4 bytes are read.
 */
size_t ag_utf8_sequence(const char *s, size_t n);

/**
 * \function ag_utf8_valid
 * 1 if the NUL-terminated string s is well-formed UTF-8 throughout, else 0 (and *bad, when not
 * NULL, is the offset of the first byte that is not).
 * Time complexity: O(L), L the length of s.
 */
int ag_utf8_valid(const char *s, size_t *bad);

/** \function ag_version
 * The library version as "MAJOR.MINOR.PATCH".
 * Time complexity: O(1). */
const char *ag_version(void);

#ifdef __cplusplus
}
#endif
#endif
