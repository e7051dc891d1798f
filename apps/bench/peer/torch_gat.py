#!/usr/bin/env python3
"""Side-by-side peer for attn-graph-bench where PyTorch Geometric cannot be installed.

A plain-PyTorch re-implementation of the algorithm PyTorch Geometric's GATConv runs on a CPU
(torch_geometric/nn/conv/gat_conv.py with torch's own scatter, the path PyG takes without the
optional torch_scatter package): project, per-node source and destination terms, gather them per
edge, leaky ReLU, a softmax grouped by destination through scatter max / exp / scatter sum, gather
the source rows per edge (the E x H x C tensor), multiply, scatter-add into the destinations.
Full attention uses torch.nn.functional.multi_head_attention_forward (the N x N score matrix), as
the issue's "torch multi-head" column does.

It is NOT PyG: it leaves out PyG's Python-level overheads (MessagePassing's inspection and
hooks), so it is, if anything, faster than PyG on the same machine. Its figures are for ratios
measured in the same minutes as attn-graph-bench; docs/performance.md says how they were used.

Prints one JSON object per measurement with the same field names as attn-graph-bench.
Usage: torch_gat.py cora DATASETS_DIR | mutag DATASETS_DIR | scale N E [--backward] | full N [--backward]
       [--threads T] [--repeat R]
Needs python3 and torch (Debian: python3-torch); not a dependency of the project.
"""
import json
import resource
import statistics
import sys
import time
import warnings

import torch
import torch.nn.functional as Fn

warnings.filterwarnings("ignore", message="scatter_reduce")


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def scatter_softmax(alpha, index, n):
    # alpha: E x H; index: E (destination of each edge); grouped softmax as PyG's utils.softmax.
    h = alpha.size(1)
    idx = index.view(-1, 1).expand(-1, h)
    amax = torch.full((n, h), float("-inf"), dtype=alpha.dtype)
    amax = amax.scatter_reduce(0, idx, alpha, reduce="amax", include_self=True)
    out = (alpha - amax.index_select(0, index)).exp()
    den = torch.zeros((n, h), dtype=alpha.dtype).index_add_(0, index, out)
    return out / (den.index_select(0, index) + 1e-16)


class GATConv(torch.nn.Module):
    """PyG GATConv(in, out, heads, concat, dropout) with self-loops added by the caller."""

    def __init__(self, fin, fout, heads, concat=True, dropout=0.0):
        super().__init__()
        self.h, self.c, self.concat, self.dropout = heads, fout, concat, dropout
        self.lin = torch.nn.Linear(fin, heads * fout, bias=False)
        self.att_src = torch.nn.Parameter(torch.empty(1, heads, fout))
        self.att_dst = torch.nn.Parameter(torch.empty(1, heads, fout))
        self.bias = torch.nn.Parameter(torch.zeros(heads * fout if concat else fout))
        torch.nn.init.xavier_uniform_(self.lin.weight)
        torch.nn.init.xavier_uniform_(self.att_src)
        torch.nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x, src, dst):
        n = x.size(0)
        xs = self.lin(x).view(n, self.h, self.c)                  # N x H x C
        a_src = (xs * self.att_src).sum(-1)                       # N x H
        a_dst = (xs * self.att_dst).sum(-1)
        alpha = a_src.index_select(0, src) + a_dst.index_select(0, dst)  # E x H
        alpha = Fn.leaky_relu(alpha, 0.2)
        alpha = scatter_softmax(alpha, dst, n)
        alpha = Fn.dropout(alpha, p=self.dropout, training=self.training)
        msg = xs.index_select(0, src) * alpha.unsqueeze(-1)       # E x H x C
        out = torch.zeros((n, self.h, self.c), dtype=x.dtype).index_add_(0, dst, msg)
        out = out.view(n, -1) if self.concat else out.mean(1)
        return out + self.bias


def with_self_loops(src, dst, n):
    keep = src != dst
    loop = torch.arange(n)
    return torch.cat([src[keep], loop]), torch.cat([dst[keep], loop])


def timed(fn, repeat):
    fn()  # warm-up, as attn-graph-bench's untimed first run
    wall, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"median_s": round(statistics.median(wall), 5), "min_s": round(min(wall), 5),
            "max_s": round(max(wall), 5), "cpu_seconds": round(statistics.median(cpu), 5)}


def emit(d, threads):
    d.update({"peak_rss_mb": round(peak_rss_mb(), 1), "threads": threads, "peer": "torch-" + torch.__version__})
    print(json.dumps(d), flush=True)


def bench_cora(ddir, threads, repeat):
    rows = [l.split("\t") for l in open(f"{ddir}/cora/cora.content")]
    ids = {r[0]: i for i, r in enumerate(rows)}
    x = torch.tensor([[float(v) for v in r[1:-1]] for r in rows])
    x = x / x.sum(1, keepdim=True).clamp(min=1)                    # row-normalised, as the bench
    classes = sorted({r[-1].strip() for r in rows})
    y = torch.tensor([classes.index(r[-1].strip()) for r in rows])
    e = [(ids[a], ids[b]) for a, b in (l.split() for l in open(f"{ddir}/cora/cora.cites")) if a in ids and b in ids]
    s = torch.tensor([a for a, b in e] + [b for a, b in e])
    d = torch.tensor([b for a, b in e] + [a for a, b in e])
    n = x.size(0)
    s, d = with_self_loops(s, d, n)
    train = torch.arange(140)

    class GAT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GATConv(x.size(1), 8, 8, True, 0.6)
            self.c2 = GATConv(64, len(classes), 1, False, 0.6)

        def forward(self, x):
            x = Fn.dropout(x, 0.6, self.training)
            x = Fn.elu(self.c1(x, s, d))
            x = Fn.dropout(x, 0.6, self.training)
            return self.c2(x, s, d)

    torch.manual_seed(1)
    model = GAT()
    opt = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=5e-4)

    def epoch():
        model.train()
        opt.zero_grad()
        loss = Fn.cross_entropy(model(x)[train], y[train])
        loss.backward()
        opt.step()

    def infer():
        model.eval()
        with torch.no_grad():
            model(x)

    common = {"bench": "cora", "nodes": n, "features": x.size(1)}
    emit({**common, "phase": "train_epoch", **timed(epoch, repeat)}, threads)
    emit({**common, "phase": "inference", **timed(infer, repeat)}, threads)


def bench_mutag(ddir, threads, repeat):
    """188 MUTAG graphs in one block-diagonal batch (PyG's DataLoader layout): 3 GATConv layers of
    4 heads x 16 (64 wide) with ELU, global mean pool, a linear head: the issue's peer model."""
    import csv
    import re
    xs, srcs, dsts, batch, off = [], [], [], [], 0
    elements = {}
    rows = list(csv.DictReader(open(f"{ddir}/mutag/labels.csv")))
    for g, row in enumerate(rows):
        text = open(f"{ddir}/mutag/{row['file']}").read()
        els = re.findall(r'element "([^"]+)"', text)
        for a, b in re.findall(r"source (\d+) target (\d+)", text):
            srcs += [off + int(a), off + int(b)]
            dsts += [off + int(b), off + int(a)]
        for e in els:
            xs.append(elements.setdefault(e, len(elements)))
        batch += [g] * len(els)
        off += len(els)
    n, G = off, len(rows)
    x = Fn.one_hot(torch.tensor(xs), len(elements)).float()
    s, d = with_self_loops(torch.tensor(srcs), torch.tensor(dsts), n)
    batch = torch.tensor(batch)
    convs = torch.nn.ModuleList([GATConv(x.size(1), 16, 4), GATConv(64, 16, 4), GATConv(64, 16, 4)])
    head = torch.nn.Linear(64, 2)
    counts = torch.zeros(G).index_add_(0, batch, torch.ones(n)).clamp(min=1).unsqueeze(1)

    def infer():
        with torch.no_grad():
            h = x
            for c in convs:
                h = Fn.elu(c(h, s, d))
            pooled = torch.zeros(G, 64).index_add_(0, batch, h) / counts
            head(pooled)

    for m in convs:
        m.eval()
    t = timed(infer, repeat)
    t["graphs_per_s"] = round(G / t["median_s"], 1)
    emit({"bench": "mutag", "phase": "batched_inference", "nodes": n, "graphs": G, "arch": "gat", **t}, threads)


def bench_scale(n, e, backward, threads, repeat):
    g = torch.Generator().manual_seed(1)
    s = torch.randint(0, n, (e,), generator=g)
    d = torch.randint(0, n, (e,), generator=g)
    s, d = with_self_loops(s, d, n)
    x = torch.randn(n, 64, generator=g)
    conv = GATConv(64, 8, 8)

    def fwd():
        with torch.no_grad():
            conv(x, s, d)

    def fwdbwd():
        conv.zero_grad()
        conv(x, s, d).square().sum().backward()

    common = {"bench": "scale", "score": "gat", "nodes": n, "edges": e, "features": 64, "heads": 8, "dim": 8}
    emit({**common, "phase": "forward", **timed(fwd, repeat)}, threads)
    if backward:
        emit({**common, "phase": "forward+backward", **timed(fwdbwd, repeat)}, threads)


def bench_full(n, backward, threads, repeat):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, 1, 64, generator=g)
    mha = torch.nn.MultiheadAttention(64, 8, bias=True)

    def fwd():
        with torch.no_grad():
            mha(x, x, x, need_weights=False)

    def fwdbwd():
        mha.zero_grad()
        xr = x.clone().requires_grad_(True)
        mha(xr, xr, xr, need_weights=False)[0].square().sum().backward()

    common = {"bench": "full", "score": "dot", "nodes": n, "features": 64, "heads": 8, "dim": 8}
    emit({**common, "phase": "forward", **timed(fwd, repeat)}, threads)
    if backward:
        emit({**common, "phase": "forward+backward", **timed(fwdbwd, repeat)}, threads)


def main(argv):
    threads, repeat, args = 2, 5, []
    i = 0
    while i < len(argv):
        if argv[i] == "--threads":
            threads, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--repeat":
            repeat, i = int(argv[i + 1]), i + 2
        else:
            args.append(argv[i])
            i += 1
    torch.set_num_threads(threads)
    backward = "--backward" in args
    args = [a for a in args if a != "--backward"]
    if args[:1] == ["cora"] and len(args) == 2:
        bench_cora(args[1], threads, repeat)
    elif args[:1] == ["mutag"] and len(args) == 2:
        bench_mutag(args[1], threads, repeat)
    elif args[:1] == ["scale"] and len(args) == 3:
        bench_scale(int(args[1]), int(args[2]), backward, threads, repeat)
    elif args[:1] == ["full"] and len(args) == 2:
        bench_full(int(args[1]), backward, threads, repeat)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
