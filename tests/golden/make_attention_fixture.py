#!/usr/bin/python3
"""Golden values of the attention layer, from an independent PyTorch implementation.

Regenerate (Debian's python3-torch, not a pyenv python):
    /usr/bin/python3 tests/golden/make_attention_fixture.py > tests/golden/attention_fixture.txt

The layer is written here from the comments of lib/include/attngraph/attention.h with plain tensor
operations over a list of (destination, source, edge) pairs; autograd gives every gradient of the
loss sum(Y * R) for a fixed R. Everything is float64 and seeded, so the output is deterministic.
tests/test_attention_golden.c parses the file (format below), copies the weights into the C layer
and compares outputs, attention weights and gradients within 1e-4. CI never runs this script.

Format, one item per line ('#' starts a comment line):
    case NAME                      starts a case
    cfg KEY VALUE                  layer and mask configuration (integers, slope as a float)
    graph DIRECTED NODES EDGES u0 v0 u1 v1 ...   the input edges, edge id = position
    f NAME ROWS COLS v...          a float tensor, row-major
    i NAME COUNT v...              an integer array
    end                            ends the case
Attention semantics chosen where attention.h is silent (as the C kernel does): over the full mask a
pair (i, j) with several edges j -> i sums their features. The mask entries (mask_dst, mask_src, mask_edge) are listed in the order of attention.h (by
destination, then source, then edge id) with alpha (M x H) in the same order.
"""
import math
import warnings
import torch

# scatter_reduce is "beta" in torch 1.13 and says so on stderr; its amax is all we use.
warnings.filterwarnings("ignore", message="scatter_reduce")

torch.manual_seed(20261129)
DT = torch.float64

SCORE = {"dot": 0, "gat": 1, "gatv2": 2}
NORM = {"softmax": 0, "relu": 1}
MASK = {"neighbours": 0, "khop": 1, "full": 2}
HEADS = {"concat": 0, "mean": 1}
EDGE = {"none": 0, "key": 1, "bias": 2}

# 7 nodes with one input self-loop (node 5), a multi-edge (0 -> 1 twice) and an isolated node (6).
N_NODES = 7
EDGES = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 1), (5, 5), (5, 3), (0, 1)]


def graph_entries(directed):
    """In-neighbour entries (dst, src, edge) by graph.h's rules."""
    ent = []
    for e, (u, v) in enumerate(EDGES):
        ent.append((v, u, e))
        if not directed and u != v:
            ent.append((u, v, e))
    return sorted(ent)


def mask_entries(kind, self_loops, directed):
    """The CSR of the mask: neighbour entries plus an added self entry (edge -1)."""
    ent = graph_entries(directed)
    if self_loops:
        have = {d for (d, s, e) in ent if d == s}
        ent += [(i, i, -1) for i in range(N_NODES) if i not in have]
    assert kind in ("neighbours", "full")
    return sorted(ent)


def attention_pairs(kind, self_loops, directed):
    """What attention runs over: (dst, src, [edges whose features the pair sums])."""
    ent = mask_entries(kind, self_loops, directed)
    if kind == "neighbours":
        return [(d, s, [e] if e >= 0 else []) for (d, s, e) in ent]
    edges = {}
    for (d, s, e) in ent:
        if e >= 0:
            edges.setdefault((d, s), []).append(e)
    return [(d, s, edges.get((d, s), [])) for d in range(N_NODES) for s in range(N_NODES)]


def leaky(x, slope):
    return torch.where(x > 0, x, slope * x)


def layer(c, P, X, E, pairs):
    H, D = c["heads"], c["head_dim"]
    dst = torch.tensor([p[0] for p in pairs])
    src = torch.tensor([p[1] for p in pairs])
    M = len(pairs)
    if c["edge_mode"] != "none":
        inc = torch.zeros(M, E.shape[0], dtype=DT)                       # (M x E) pair-edge incidence
        for m, p in enumerate(pairs):
            for e in p[2]:
                inc[m, e] = 1.0
        Epair = inc @ E                                                  # (M x Fe), zero without edges
        eW = Epair @ P["We"]                                             # (M x HD) or (M x H)
    v = (X @ P["Wv"]).view(-1, H, D)
    vj = v[src]                                                          # (M x H x D)
    if c["edge_mode"] == "key":
        vj = vj + eW.view(M, H, D)
    if c["score"] == "dot":
        q = (X @ P["Wq"]).view(-1, H, D)
        k = (X @ P["Wk"]).view(-1, H, D)[src]
        if c["edge_mode"] == "key":
            k = k + eW.view(M, H, D)
        s = (q[dst] * k).sum(-1) / math.sqrt(D)
    elif c["score"] == "gat":
        s = (v[dst] * P["a_dst"].view(H, D)).sum(-1) + (vj * P["a_src"].view(H, D)).sum(-1)
        s = leaky(s, c["slope"])
    else:
        q = (X @ P["Wq"]).view(-1, H, D)
        s = (leaky(q[dst] + vj, c["slope"]) * P["a"].view(H, D)).sum(-1)
    if c["edge_mode"] == "bias":
        s = s + eW
    # normalise per destination (M x H)
    if c["norm"] == "softmax":
        mx = torch.full((N_NODES, H), -math.inf, dtype=DT).scatter_reduce(0, dst.unsqueeze(1).expand(M, H), s, "amax")
        ex = torch.exp(s - mx[dst])
        den = torch.zeros(N_NODES, H, dtype=DT).index_add(0, dst, ex)
        alpha = ex / den[dst]
    else:
        r = torch.relu(s)
        den = torch.zeros(N_NODES, H, dtype=DT).index_add(0, dst, r)
        alpha = r / (den[dst] + 1e-6)
    out = torch.zeros(N_NODES, H, D, dtype=DT).index_add(0, dst, alpha.unsqueeze(-1) * vj)
    out = out.reshape(N_NODES, H * D) if c["combine"] == "concat" else out.mean(1)
    if c["out_proj"]:
        out = out @ P["Wo"]
    if c["bias"]:
        out = out + P["bo"]
    return out, alpha


def shapes(c):
    F, H, D, O, Fe = c["in_dim"], c["heads"], c["head_dim"], c["out_dim"], c["edge_dim"]
    HD = H * D
    C = HD if c["combine"] == "concat" else D
    sh = {"Wv": (F, HD)}
    if c["score"] != "gat":
        sh["Wq"] = (F, HD)
    if c["score"] == "dot":
        sh["Wk"] = (F, HD)
    if c["score"] == "gat":
        sh["a_src"] = (HD, 1)
        sh["a_dst"] = (HD, 1)
    if c["score"] == "gatv2":
        sh["a"] = (HD, 1)
    if c["edge_mode"] == "key":
        sh["We"] = (Fe, HD)
    if c["edge_mode"] == "bias":
        sh["We"] = (Fe, H)
    if c["out_proj"]:
        sh["Wo"] = (C, O)
    if c["bias"]:
        sh["bo"] = ((O if c["out_proj"] else C), 1)
    return sh


def fmt(x):
    return " ".join("%.10g" % float(v) for v in x.detach().reshape(-1).tolist())


def emit(name, c):
    directed = c["directed"]
    print("case", name)
    for key in ("in_dim", "heads", "head_dim", "out_dim", "out_proj", "bias", "edge_dim", "hops", "self_loops"):
        print("cfg", key, int(c[key]))
    print("cfg score", SCORE[c["score"]])
    print("cfg norm", NORM[c["norm"]])
    print("cfg combine", HEADS[c["combine"]])
    print("cfg edge_mode", EDGE[c["edge_mode"]])
    print("cfg mask", MASK[c["mask"]])
    print("cfg slope %.10g" % c["slope"])
    print("graph", int(directed), N_NODES, len(EDGES), " ".join("%d %d" % e for e in EDGES))
    F, Fe = c["in_dim"], c["edge_dim"]
    X = (torch.rand(N_NODES, F, dtype=DT) * 2 - 1).requires_grad_()
    E = (torch.rand(len(EDGES), max(Fe, 1), dtype=DT) * 2 - 1).requires_grad_()
    P = {}
    for k, (r, cc) in shapes(c).items():
        scale = 0.3 if k == "bo" else 0.8
        t = (torch.rand(r, cc, dtype=DT) * 2 - 1) * scale
        P[k] = (t.reshape(-1) if cc == 1 else t).requires_grad_()
    pairs = attention_pairs(c["mask"], c["self_loops"], directed)
    Y, alpha = layer(c, P, X, E, pairs)
    R = torch.rand(Y.shape, dtype=DT) * 2 - 1
    (Y * R).sum().backward()
    print("f X", N_NODES, F, fmt(X))
    if Fe:
        print("f E", len(EDGES), Fe, fmt(E))
    for k, t in P.items():
        r, cc = shapes(c)[k]
        print("f", k, r, cc, fmt(t))
    print("f R", Y.shape[0], Y.shape[1], fmt(R))
    print("f Y", Y.shape[0], Y.shape[1], fmt(Y))
    # the weights of the mask's CSR entries (full mask: of the pair)
    ent = mask_entries(c["mask"], c["self_loops"], directed)
    where = {}
    for m, (d, s, e) in enumerate(pairs):
        where.setdefault((d, s), m)
    rows = [where[(d, s)] if c["mask"] == "full" else m for m, (d, s, e) in enumerate(ent)]
    print("i mask_dst", len(ent), " ".join(str(d) for (d, s, e) in ent))
    print("i mask_src", len(ent), " ".join(str(s) for (d, s, e) in ent))
    print("i mask_edge", len(ent), " ".join(str(e) for (d, s, e) in ent))
    print("f alpha", len(ent), c["heads"], fmt(alpha[torch.tensor(rows)]))
    print("f dX", N_NODES, F, fmt(X.grad))
    if Fe:
        print("f dE", len(EDGES), Fe, fmt(E.grad))
    for k, t in P.items():
        r, cc = shapes(c)[k]
        print("f", "d" + k, r, cc, fmt(t.grad))
    print("end")


BASE = dict(in_dim=5, heads=2, head_dim=3, out_dim=0, out_proj=0, bias=1, edge_dim=0, hops=0,
            self_loops=1, score="gat", norm="softmax", combine="concat", edge_mode="none",
            mask="neighbours", slope=0.2, directed=False)
print("# attention golden fixture: generated by tests/golden/make_attention_fixture.py (torch %s)"
      % torch.__version__)
print("# do not edit; regenerate with /usr/bin/python3 tests/golden/make_attention_fixture.py")
# GAT: neighbours plus self-loops, softmax, 3 heads concatenated, output bias.
emit("gat", dict(BASE, heads=3, head_dim=2))
# Transformer: dot scores, neighbours, edge features as keys and values, W^O and bias.
emit("transformer_neighbours", dict(BASE, score="dot", heads=2, head_dim=3, out_proj=1, out_dim=4,
                                    edge_mode="key", edge_dim=3))
# Transformer over the full graph, directed edges, edge features where an edge exists.
emit("transformer_full", dict(BASE, score="dot", heads=2, head_dim=2, out_proj=1, out_dim=3,
                              edge_mode="key", edge_dim=2, mask="full", directed=True))
# GATv2 with edge score biases, heads averaged, ReLU normalisation, no added self-loops.
emit("gatv2_mean_relu", dict(BASE, score="gatv2", heads=4, head_dim=2, combine="mean", norm="relu",
                             edge_mode="bias", edge_dim=2, self_loops=0))
