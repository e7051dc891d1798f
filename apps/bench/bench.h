/*
 * bench.h: what the subcommands of attn-graph-bench share: clocks (wall and CPU), peak memory,
 * and the summary of repeated measurements printed as JSON fields.
 */
#ifndef ATTNGRAPH_BENCH_H
#define ATTNGRAPH_BENCH_H

#include <stdint.h>

/* Wall-clock seconds (monotonic). */
double bench_now(void);
/* User + system CPU seconds of the whole process so far (getrusage): on a loaded machine the
 * wall time includes waiting for a core, this does not. */
double bench_cpu(void);
/* Peak resident set size of the process so far, in MB. */
double bench_peak_rss_mb(void);

/* Median, minimum and maximum of n values (sorts v). */
typedef struct bench_stats_t {
    double median, min, max;
} bench_stats_t;
bench_stats_t bench_stats(double *v, int n);

/* The subcommands of bench_models.c: cora, molecules, mutag. */
int bench_cora(int argc, char **argv);
int bench_molecules(int argc, char **argv);
int bench_mutag(int argc, char **argv);

#endif
