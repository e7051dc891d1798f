/*
 * outfile.c: output files written atomically, through symbolic links, never over a device, a
 * FIFO or an input of the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "outfile.h"

int cli_output_target(const char *path, char *buf, size_t cap, char *err, size_t errn) {
    struct stat st;
    char *real = NULL;
    const char *target = path;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* written through, as a shell's `>` does: a link into a results folder stays a link (the
         * rename replaced the link itself with a plain file) */
        real = realpath(path, NULL);
        if (!real) {
            char to[PATH_MAX];
            ssize_t n = readlink(path, to, sizeof to - 1);
            to[n > 0 ? n : 0] = '\0';
            snprintf(err, errn, "it is a symbolic link to %s, which cannot be followed (%s)", to, strerror(errno));
            return -1;
        }
        target = real;
    }
    int ok = 1;
    const int exists = stat(target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errn, "it is a directory");
        ok = 0;
    } else if (exists && !S_ISREG(st.st_mode)) {
        /* the output is renamed over the path: as root, --plot /dev/null replaced the system's
         * /dev/null with an SVG */
        snprintf(err, errn, "it is not a regular file (a device or a FIFO), which the output, written beside it "
                 "and renamed, would replace");
        ok = 0;
    } else if ((size_t)snprintf(buf, cap, "%s", target) >= cap) {
        snprintf(err, errn, "the path is too long");
        ok = 0;
    }
    free(real);
    return ok ? 0 : -1;
}

/* Makes a rename in path's folder durable. */
static void sync_dir_of(const char *path) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

static int atomic_begin(cli_atomic_t *a, const char *path, char *err, size_t errn) {
    a->f = NULL;
    a->path = path;
    a->tmp[0] = '\0';
    if (cli_output_target(path, a->target, sizeof a->target, err, errn) < 0) return -1;
    if ((size_t)snprintf(a->tmp, sizeof a->tmp, "%s.tmpXXXXXX", a->target) >= sizeof a->tmp) {
        snprintf(err, errn, "the path is too long");
        return -1;
    }
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        const int e = errno; /* cli_check_writable reads it */
        snprintf(err, errn, "%s", strerror(e));
        errno = e;
        return -1;
    }
    /* mkstemp makes the file 0600: a file replaced keeps its permissions, a new one gets the
     * usual ones */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, stat(a->target, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        snprintf(err, errn, "%s", strerror(errno));
        close(fd);
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

static int atomic_finish(cli_atomic_t *a, char *err, size_t errn) {
    int bad = ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0;
    int saved = errno;
    if (fclose(a->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    a->f = NULL;
    if (!bad && rename(a->tmp, a->target) != 0) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        snprintf(err, errn, "%s", strerror(saved));
        unlink(a->tmp);
        return -1;
    }
    sync_dir_of(a->target);
    return 0;
}

int cli_atomic_open(cli_atomic_t *a, const char *cmd, const char *path) {
    char why[512];
    if (atomic_begin(a, path, why, sizeof why) == 0) return 0;
    fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, path, why);
    return -1;
}

int cli_atomic_commit(cli_atomic_t *a, const char *cmd) {
    char why[512];
    if (atomic_finish(a, why, sizeof why) == 0) return 0;
    fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, a->path, why);
    return -1;
}

void cli_atomic_abort(cli_atomic_t *a) {
    if (a->f) fclose(a->f);
    a->f = NULL;
    unlink(a->tmp);
}

int cli_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errn) {
    cli_atomic_t a;
    if (atomic_begin(&a, path, err, errn) < 0) return -1;
    if (len > 0 && fwrite(data, 1, len, a.f) != len) {
        snprintf(err, errn, "%s", strerror(errno));
        cli_atomic_abort(&a);
        return -1;
    }
    return atomic_finish(&a, err, errn);
}

int cli_check_writable(const char *path, char *err, size_t errn) {
    cli_atomic_t a;
    if (atomic_begin(&a, path, err, errn) == 0) {
        cli_atomic_abort(&a);
        return 0;
    }
    if (!a.tmp[0] || errno != ENOENT) return -1;
    /* the folder may exist and refuse files (/proc): then say so, not "no such file" */
    char dir[4096];
    const char *slash = strrchr(a.target, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash > a.target ? slash - a.target : 1) : 1,
             slash ? a.target : ".");
    struct stat ds;
    if (stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode))
        snprintf(err, errn, "no file can be created in %s (%s)", dir, strerror(ENOENT));
    return -1;
}

/* path's directory resolved, then "/" and its last component, into buf (cap bytes); 0 or -1. */
static int canonical_path(const char *path, char *buf, size_t cap) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char *real = realpath(dir, NULL);
    if (!real) return -1;
    int n = snprintf(buf, cap, "%s/%s", real, slash ? slash + 1 : path);
    free(real);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int cli_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    const int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) return 0; /* one exists and the other does not */
    char ca[4352], cb[4352];
    if (canonical_path(a, ca, sizeof ca) < 0 || canonical_path(b, cb, sizeof cb) < 0) return !strcmp(a, b);
    return !strcmp(ca, cb);
}

int cli_check_outputs(const char *cmd, const char *const *out, const char *const *out_names, int n_out,
                      const char *const *in, const char *const *in_names, int n_in) {
    for (int k = 0; k < n_out; k++) {
        if (!out[k]) continue;
        /* `-o graph.gml` replaced the user's graph with the model, and `-o f --log f` lost the log */
        for (int i = 0; i < n_in; i++)
            if (in[i] && strcmp(in[i], "-") && cli_same_file(out[k], in[i])) {
                fprintf(stderr, "attn-graph: %s: %s %s is also %s: it would be overwritten; give another file\n",
                        cmd, out_names[k], out[k], in_names[i]);
                return AG_EXIT_USAGE;
            }
        for (int j = 0; j < k; j++)
            if (out[j] && cli_same_file(out[k], out[j])) {
                fprintf(stderr, "attn-graph: %s: %s and %s name the same file %s: one would overwrite the other\n",
                        cmd, out_names[j], out_names[k], out[k]);
                return AG_EXIT_USAGE;
            }
        char why[512];
        if (cli_check_writable(out[k], why, sizeof why) < 0) {
            fprintf(stderr, "attn-graph: %s: cannot write %s: %s\n", cmd, out[k], why);
            return AG_EXIT_FAILURE;
        }
    }
    return AG_EXIT_OK;
}

int cli_check_outputs_graphs(const char *cmd, const char *const *out, const char *const *out_names, int n_out,
                             const char *labels_path, char *const *files, int64_t G) {
    const char *slash = strrchr(labels_path, '/');
    const int dir_len = slash ? (int)(slash - labels_path) + 1 : 0; /* with its '/' */
    for (int k = 0; k < n_out; k++) {
        struct stat so, sg;
        /* a graph file exists (it was read): an output that does not cannot be one */
        if (!out[k] || stat(out[k], &so) != 0) continue;
        for (int64_t g = 0; g < G; g++) {
            char path[4096];
            if (files[g][0] == '/') snprintf(path, sizeof path, "%s", files[g]);
            else snprintf(path, sizeof path, "%.*s%s", dir_len, labels_path, files[g]);
            if (stat(path, &sg) == 0 && sg.st_dev == so.st_dev && sg.st_ino == so.st_ino) {
                fprintf(stderr, "attn-graph: %s: %s %s is also the graph file %s that %s lists: it would be "
                        "overwritten; give another file\n", cmd, out_names[k], out[k], path, labels_path);
                return AG_EXIT_USAGE;
            }
        }
    }
    return AG_EXIT_OK;
}
