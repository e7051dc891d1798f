#!/usr/bin/env python3
"""Time and memory of attention against graph size: runs attn-graph-bench over a range of sizes
and draws docs/performance-scaling.svg (wall seconds and peak RSS, log-log).

usage: apps/bench/scaling.py BENCH OUT.svg [--threads T] [--label TEXT]

Full attention (forward, width 64 = 8 heads x 8) at 1,024 .. 16,384 nodes; neighbour attention
(uniform random graph, E = 10 N, 64 features, 8 heads x 8) forward and forward + backward at
10,000 .. 1,000,000 nodes. Each point is the median of its repeats (one process per point, so
peak RSS is that point's). Standard library only; prints every measurement's JSON line.
"""
import json
import math
import subprocess
import sys


def run(bench, args, threads):
    cmd = [bench] + args + ["--threads", str(threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rec = json.loads(out.strip().splitlines()[-1])
    print(json.dumps(rec), flush=True)
    return rec["median_s"], rec["peak_rss_mb"]


def measure(bench, threads):
    series = {}
    full = []
    for n in (1024, 2048, 4096, 8192, 16384):
        reps = "5" if n <= 4096 else "3"
        full.append((n,) + run(bench, ["full", "--nodes", str(n), "--features", "64", "--heads", "8", "--dim", "8",
                                       "--repeat", reps], threads))
    series["full attention, forward (N^2)"] = full
    for name, extra in (("neighbours, forward (E = 10 N)", []), ("neighbours, forward + backward", ["--backward"])):
        pts = []
        for n in (10000, 30000, 100000, 300000, 1000000):
            reps = "5" if n <= 100000 else "3"
            pts.append((n,) + run(bench, ["scale", "--nodes", str(n), "--edges", str(10 * n), "--features", "64",
                                          "--heads", "8", "--dim", "8", "--repeat", reps] + extra, threads))
        series[name] = pts
    return series


COLOURS = ("#c0392b", "#2471a3", "#1e8449")


def panel(x0, title, ylabel, series, col, lo, hi):
    """One log-log panel 340 x 225 at x0; col 1 = seconds, 2 = MB."""
    w, h, y0 = 340.0, 225.0, 30.0
    xl, xh = 3.0, 6.0
    parts = ['<text x="%.1f" y="18" text-anchor="middle" font-size="13">%s</text>' % (x0 + w / 2, title),
             '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#888"/>' % (x0, y0, w, h)]

    def px(v):
        return x0 + (math.log10(v) - xl) / (xh - xl) * w

    def py(v):
        return y0 + h - (math.log10(v) - lo) / (hi - lo) * h

    for e in range(int(xl), int(xh) + 1):
        parts.append('<text x="%.1f" y="270" text-anchor="middle" font-size="10">1e%d</text>' % (px(10 ** e), e))
    for e in range(lo, hi + 1):
        y = py(10.0 ** e)
        parts.append('<text x="%.1f" y="%.1f" text-anchor="end" font-size="10">1e%d</text>' % (x0 - 5, y + 3, e))
        parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>' % (x0, y, x0 + w, y))
    parts.append('<text x="%.1f" y="285" text-anchor="middle" font-size="11">nodes</text>' % (x0 + w / 2))
    parts.append('<text x="%.1f" y="%.1f" font-size="11" transform="rotate(-90 %.1f %.1f)">%s</text>'
                 % (x0 - 38, y0 + h / 2 + 15, x0 - 38, y0 + h / 2 + 15, ylabel))
    for k, (name, pts) in enumerate(series.items()):
        c = COLOURS[k % len(COLOURS)]
        xy = " ".join("%.1f,%.1f" % (px(p[0]), py(max(p[col], 10.0 ** lo))) for p in pts)
        parts.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (xy, c))
        for p in pts:
            parts.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(p[0]), py(max(p[col], 10.0 ** lo)), c))
        parts.append('<text x="%.1f" y="%.1f" font-size="10" fill="%s">%s</text>' % (x0 + 8, y0 + 14 + 13 * k, c, name))
    return parts


def svg(series, label):
    secs = [p[1] for pts in series.values() for p in pts]
    mbs = [p[2] for pts in series.values() for p in pts]
    slo, shi = math.floor(math.log10(min(secs))), math.ceil(math.log10(max(secs)))
    mlo, mhi = math.floor(math.log10(min(mbs))), math.ceil(math.log10(max(mbs)))
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="840" height="320" font-family="sans-serif">']
    parts += panel(60, "wall seconds (median of repeats)", "seconds", series, 1, slo, shi)
    parts += panel(480, "peak RSS of the benchmark process", "MB", series, 2, mlo, mhi)
    parts.append('<text x="420" y="310" text-anchor="middle" font-size="10">%s</text>' % label)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    bench, out = argv[1], argv[2]
    threads, label = 2, "width 64, 8 heads x 8; attn-graph-bench full / scale; BLIS"
    rest = argv[3:]
    while rest:
        if rest[0] == "--threads" and len(rest) > 1:
            threads, rest = int(rest[1]), rest[2:]
        elif rest[0] == "--label" and len(rest) > 1:
            label, rest = rest[1], rest[2:]
        else:
            sys.stderr.write(__doc__)
            return 2
    series = measure(bench, threads)
    with open(out + ".tmp", "w") as f:
        f.write(svg(series, label))
    import os
    os.replace(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
