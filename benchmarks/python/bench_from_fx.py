"""Graph.from_fx per node on a transformer traced by make_fx with fake values (any torch with
make_fx, no Inductor: Debian's torch 1.13 too), side by side in one run:

- with meta['val'] and meta['tensor_meta'] (as make_fx and torch.export leave them), then with
  meta['val'] alone (as some passes leave them);
- each with the TensorImpl reader (ctmatch._ctmatch_torch) in use and switched off, alternating
  twice (each figure the lower of its two medians of --reps conversions);
- a pure-Python loop that only reads each node's args, kwargs, target, name and val's shape and
  dtype, the floor any conversion written in Python would have.

    PYTHONPATH=build/python python3 benchmarks/python/bench_from_fx.py [--blocks 12] [--reps 31]
"""
import argparse

import torch
from torch.fx.experimental.proxy_tensor import make_fx

import ctmatch
import ctmatch._ctmatch as native
from fx_timing import median_time, python_loop


class Block(torch.nn.Module):
    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


def traced(blocks):
    model = torch.nn.Sequential(*[Block() for _ in range(blocks)])
    params = dict(model.named_parameters())
    try:
        from torch.func import functional_call
    except ImportError:  # torch 1.x
        from torch.nn.utils.stateless import functional_call
    return make_fx(lambda p, x: functional_call(model, p, (x,)), tracing_mode="fake")(params, torch.randn(2, 16, 64))


def per_node_us(fn, nodes, reps):
    return 1e6 * median_time(fn, reps) / nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=12)
    ap.add_argument("--reps", type=int, default=31)
    a = ap.parse_args()
    gm = traced(a.blocks)
    graph, nodes = gm.graph, len(gm.graph.nodes)
    loaded, _ = native._tensor_impl_reader()
    print(f"torch {torch.__version__}, {nodes} nodes, TensorImpl reader built: {loaded}")
    for label in ("val + tensor_meta", "val alone"):
        if label == "val alone":
            for n in graph.nodes:
                n.meta.pop("tensor_meta", None)
        figures = {True: [], False: []}
        for use in (True, False, True, False):
            native._tensor_impl_reader(use)
            figures[use].append(per_node_us(lambda: ctmatch.Graph.from_fx(graph), nodes, a.reps))
        native._tensor_impl_reader(True)
        loop = per_node_us(lambda: python_loop(graph), nodes, a.reps)
        print(f"{label}: from_fx {min(figures[True]):.3f} us/node with the reader, "
              f"{min(figures[False]):.3f} without; Python loop {loop:.3f}")


if __name__ == "__main__":
    main()
