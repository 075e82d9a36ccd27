"""ctmatch inside PyTorch, measured side by side in one run (torch with Inductor):

- conversion: Graph.from_fx per node, beside a pure-Python loop that only reads what any
  conversion must read (each node's args, kwargs, target, name, meta['val'] shape and dtype);
- the whole custom pass (convert, bench rules, write back: ctmatch.apply) beside Inductor's
  PatternMatcherPass with the same eight rules (inductor_bench.py), on copies of the same
  exported graphs, with their matches, roots and op histograms compared;
- with --compile, both passes on the post-grad graphs torch.compile hands a custom pass;
- what `import ctmatch` costs.

    PYTHONPATH=build/python:DIR_OF_INDUCTOR_BENCH python3 benchmarks/python/bench_fx_pass.py \
        [--models gpt2 bert] [--reps 9] [--compile] [--out results.json]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import torch

import inductor_bench  # the eight rules for Inductor, and the ops they rewrite to
import model_zoo

import ctmatch
import ctmatch.inductor
from fx_timing import median_time, python_loop


def register_fake_impls():
    """Fake implementations of the ops the rules rewrite to, so that new nodes get fake values."""
    def like(x, *a, **k):
        return torch.empty_like(x)

    fakes = {
        "bench::gelu_tanh": like,
        "bench::layer_norm": like,
        "bench::sdpa": lambda q, k, v, mask, *, scale: torch.empty(q.shape[:-1] + v.shape[-1:], dtype=q.dtype),
        "seedlib::mm_scale_cast": lambda a, b, *, dtype, clamp=False, scale=1.0: torch.empty(
            (a.shape[0], b.shape[1]), dtype=dtype),
    }
    for name, fn in fakes.items():
        try:
            torch.library.register_fake(name, fn)
        except Exception as e:  # already registered
            print(f"note: {name}: {e}", file=sys.stderr)


def copy_graph(graph):
    """A copy in a GraphModule of its own (Inductor's pass wants one), attributes included."""
    g = torch.fx.Graph()
    g.output(g.graph_copy(graph, {}))
    return torch.fx.GraphModule(graph.owning_module or torch.nn.Module(), g).graph


def side_by_side(graph, reps):
    rec = {"nodes": len(graph.nodes)}
    rec["python_loop_s"] = median_time(lambda: python_loop(graph), reps)
    rec["from_fx_s"] = median_time(lambda: ctmatch.Graph.from_fx(graph), reps)
    rec["from_fx_us_per_node"] = 1e6 * rec["from_fx_s"] / rec["nodes"]
    # the same with the TensorImpl reader (ctmatch._ctmatch_torch) off: the Python attributes
    rec["tensor_impl_reader"] = ctmatch._ctmatch._tensor_impl_reader()[0]
    ctmatch._ctmatch._tensor_impl_reader(False)
    try:
        rec["from_fx_python_meta_us_per_node"] = 1e6 * median_time(lambda: ctmatch.Graph.from_fx(graph), reps) / rec["nodes"]
    finally:
        ctmatch._ctmatch._tensor_impl_reader(True)
    rec["python_loop_us_per_node"] = 1e6 * rec["python_loop_s"] / rec["nodes"]

    p = inductor_bench.build_pass(rewrite=True)
    ind_t, ct_t, ct_stats = [], [], []
    for i in range(reps):
        g_ind = copy_graph(graph)
        g_ct = copy_graph(graph)
        inductor_bench.STATS.clear()
        t0 = time.perf_counter()
        p.apply(g_ind)
        ind_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        st = ctmatch.apply(g_ct, rules="bench")
        ct_t.append(time.perf_counter() - t0)
        ct_stats.append(st)
        if i == 0:
            g_ct.lint()
            rec["inductor_matches"] = {k: len(v) for k, v in sorted(inductor_bench.STATS.items())}
            rec["inductor_roots"] = {k: sorted(v) for k, v in sorted(inductor_bench.STATS.items())}
            rec["ctmatch_matches"] = dict(sorted(st["matches"].items()))
            rec["ctmatch_roots"] = {k: sorted(v) for k, v in sorted(st["roots"].items())}
            rec["same_matches"] = rec["inductor_matches"] == rec["ctmatch_matches"]
            rec["same_roots"] = rec["inductor_roots"] == rec["ctmatch_roots"]
            rec["same_hist_after"] = inductor_bench.histogram(g_ind) == inductor_bench.histogram(g_ct)
            rec["fake_value_failed"] = st["fake_value_failed"]
            rec["ctmatch_converted"] = st["converted"]
    rec["inductor_pass_s"] = statistics.median(ind_t)
    rec["ctmatch_apply_s"] = statistics.median(ct_t)
    rec["ctmatch_convert_s"] = statistics.median(s["convert_s"] for s in ct_stats)
    rec["ctmatch_pass_s"] = statistics.median(s["time_s"] for s in ct_stats)
    rec["ctmatch_write_back_s"] = statistics.median(s["write_back_s"] for s in ct_stats)
    rec["speedup"] = rec["inductor_pass_s"] / rec["ctmatch_apply_s"]
    return rec


def under_compile(name, reps):
    """torch.compile(model) with a custom post-grad pass that times both passes on each graph."""
    records = []

    class Timed(ctmatch.inductor.Pass):
        def __call__(self, graph):
            try:
                records.append(side_by_side(graph, reps))
            except Exception as e:
                records.append({"error": repr(e)})
            super().__call__(graph)

    mk, args = model_zoo._zoo()[name]
    torch.manual_seed(0)
    model = mk().eval()
    inputs = args()
    torch._dynamo.reset()
    torch._inductor.config.post_grad_custom_post_pass = Timed(rules="bench")
    with torch.no_grad():
        eager = model(*inputs)
        t0 = time.perf_counter()
        out = torch.compile(model)(*inputs)
        compile_s = time.perf_counter() - t0
    torch._inductor.config.post_grad_custom_post_pass = None
    first = lambda o: o[0] if isinstance(o, (tuple, list)) else getattr(o, "last_hidden_state", getattr(o, "logits", o))
    same = torch.allclose(first(out), first(eager), rtol=1e-3, atol=1e-3)
    return {"graphs": records, "compile_s": compile_s, "output_equals_eager": same}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*", default=["gpt2", "bert"])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args()
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", "import ctmatch"], capture_output=True, text=True)
    import_us = sum(int(l.split("|")[1]) for l in r.stderr.splitlines() if "ctmatch" in l and "|" in l)
    res = {"torch": torch.__version__, "ctmatch": ctmatch.__version__, "import_ctmatch_self_us": import_us,
           "exported": {}, "compiled": {}}
    register_fake_impls()
    for name, gm in model_zoo.build_exported(a.models):
        rec = res["exported"][name] = side_by_side(gm.graph, a.reps)
        print(f"{name} (exported, {rec['nodes']} nodes): from_fx {rec['from_fx_us_per_node']:.3f} us/node "
              f"(python loop {rec['python_loop_us_per_node']:.3f}; reader {rec['tensor_impl_reader']}, without it "
              f"{rec['from_fx_python_meta_us_per_node']:.3f}); ctmatch.apply {1e3 * rec['ctmatch_apply_s']:.3f} ms "
              f"(convert {1e3 * rec['ctmatch_convert_s']:.3f}, pass {1e3 * rec['ctmatch_pass_s']:.3f}, write back "
              f"{1e3 * rec['ctmatch_write_back_s']:.3f}) vs Inductor {1e3 * rec['inductor_pass_s']:.3f} ms: "
              f"{rec['speedup']:.1f}x; same matches {rec['same_matches']} roots {rec['same_roots']} "
              f"hist {rec['same_hist_after']}", flush=True)
        save(res, a.out)
    if a.compile:
        for name in a.models:
            c = res["compiled"][name] = under_compile(name, max(3, a.reps // 3))
            for i, rec in enumerate(c["graphs"]):
                if "error" in rec:
                    print(f"{name} (torch.compile graph {i}): {rec['error']}", flush=True)
                    continue
                print(f"{name} (torch.compile graph {i}, {rec['nodes']} nodes): from_fx "
                      f"{rec['from_fx_us_per_node']:.3f} us/node (python loop {rec['python_loop_us_per_node']:.3f}; "
                      f"without the reader {rec['from_fx_python_meta_us_per_node']:.3f}); ctmatch.apply "
                      f"{1e3 * rec['ctmatch_apply_s']:.3f} ms (converted {rec['ctmatch_converted']}) vs Inductor "
                      f"{1e3 * rec['inductor_pass_s']:.3f} ms: {rec['speedup']:.1f}x; matches {rec['ctmatch_matches']} "
                      f"same {rec['same_matches']} "
                      f"roots {rec['same_roots']} hist {rec['same_hist_after']}", flush=True)
            print(f"{name}: compiled in {c['compile_s']:.1f} s, output equals eager: {c['output_equals_eager']}",
                  flush=True)
            save(res, a.out)
    print(f"import ctmatch: {import_us} us (its own modules)")
    save(res, a.out)


def save(res, path):
    if path:
        with open(path, "w") as f:
            json.dump(res, f, indent=1, default=str)


if __name__ == "__main__":
    main()
