"""ctmatch's port in place of Inductor's joint-graph pattern pass, inside torch.compile (GPU
machine, torch 2.11, the Python package built and on PYTHONPATH).

    python3 benchmarks/python/port_in_compile.py --out DIR [--models seed_mlp gpt2 ...] [--device cuda]

For each dev model (tools/oracle/model_zoo.py, the oracle's models), in inference, on cpu by
default (where the port's SDPA replacements apply, as in the oracle), two compiles from a cold
start (dynamo reset, no FX graph cache), one after the other, each stopped once the post-grad
passes have run (code generation is the same work for both):
  inductor  Inductor's own passes;
  ctmatch   joint_graph.patterns.apply replaced by ctmatch.apply(graph, rules="inductor_joint");
            everything else as Inductor runs it (remove_noop_ops and constant folding before it,
            the post-grad passes after).
Per compile: the time in the joint pattern pass (every call), the wall time up to the end of
the post-grad passes, and the graph handed to lowering (recorded by post_grad_custom_post_pass),
compared independently of node names and of the order of independent nodes. Writes
DIR/port_in_compile.json and DIR/NAME.{inductor,ctmatch}.fx.txt.
Inductor's registration (joint_graph.lazy_init) runs once before both and is timed apart.
"""
import argparse, collections, hashlib, json, os, re, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "oracle"))
import torch
import torch._dynamo
import torch._inductor.config as inductor_config
from torch._inductor.fx_passes import joint_graph

import ctmatch

_LINE = re.compile(r"^\s+%(\w+) : \[(?:num_users|#users)=\d+\] = (\w+)\[target=([^\]]+)\](?:\((.*)\))?\s*$")
_RET = re.compile(r"^\s+return (.*)$")
_REF = re.compile(r"%(\w+)")


def canonical(text):
    """The graph as a multiset of node hashes: each node's hash covers its op, target and
    arguments, a node argument standing for that node's hash, so that names do not count."""
    h, out = {}, collections.Counter()

    def refs(s):
        return _REF.sub(lambda r: "#" + h.get(r.group(1), "?" + r.group(1)), s)

    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            name, op, target, rest = m.groups()
            key = f"{op}|{target}" if op in ("placeholder", "get_attr") else f"{op}|{target}|{refs(rest or '')}"
            h[name] = hashlib.sha1(key.encode()).hexdigest()[:16]
            out[h[name]] += 1
        elif (m := _RET.match(line)):
            out["output|" + refs(m.group(1))] += 1
    return out


class _Stop(Exception):
    """Raised once the post-grad graph is recorded: lowering and code generation are not needed."""


def compile_once(model, args, joint_apply):
    """One cold compile up to the end of the post-grad passes; returns (joint pass seconds,
    wall seconds, the post-grad graph's text)."""
    seen, joint_s = [], [0.0]
    orig = joint_graph.patterns.apply

    def record(graph):
        seen.append(str(graph))
        raise _Stop()

    def timed(graph):
        t0 = time.perf_counter()
        r = joint_apply(graph) if joint_apply else orig(graph)
        joint_s[0] += time.perf_counter() - t0
        return r

    joint_graph.patterns.apply = timed
    inductor_config.post_grad_custom_post_pass = record
    torch._dynamo.reset()
    try:
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                torch.compile(model, backend="inductor", fullgraph=True)(*args)
        except Exception:  # _Stop, wrapped by dynamo, once the graph is recorded
            if not seen:
                raise
        return joint_s[0], time.perf_counter() - t0, seen[0]
    finally:
        joint_graph.patterns.apply = orig
        inductor_config.post_grad_custom_post_pass = None


def ctmatch_joint(graph):
    """joint_graph.patterns.apply's stand-in: the same count Inductor adds up (every handler
    call: matches and the rules that looked and changed nothing), as an int."""
    stats = ctmatch.apply(graph, rules="inductor_joint", mode="sweep")
    return sum(stats["matches"].values()) + sum(stats.get("unchanged", {}).values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="port-in-compile")
    ap.add_argument("--models", nargs="*", default=["seed_mlp", "resnet18", "gpt2", "bert", "llama"])
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    inductor_config.fx_graph_cache = False
    t0 = time.perf_counter()
    joint_graph.lazy_init()
    res = {"torch": torch.__version__, "ctmatch": ctmatch.__version__, "device": a.device,
           "lazy_init_s": time.perf_counter() - t0, "models": {}}
    import model_zoo

    for name in a.models:
        try:
            mk, make_args = model_zoo._zoo()[name]
            torch.manual_seed(0)
            model = mk().eval().to(a.device)
            args = tuple(t.to(a.device) for t in make_args())
            rec = {}
            for which, joint_apply in (("inductor", None), ("ctmatch", ctmatch_joint)):
                joint_s, wall_s, text = compile_once(model, args, joint_apply)
                open(os.path.join(a.out, f"{name}.{which}.fx.txt"), "w").write(text)
                rec[which] = {"joint_pass_s": joint_s, "to_post_grad_s": wall_s, "canonical": canonical(text)}
            ours, theirs = rec["ctmatch"].pop("canonical"), rec["inductor"].pop("canonical")
            rec["same_graphs"] = ours == theirs
            rec["only_inductor"] = sum((theirs - ours).values())
            rec["only_ctmatch"] = sum((ours - theirs).values())
            rec["joint_pass_saved_s"] = rec["inductor"]["joint_pass_s"] - rec["ctmatch"]["joint_pass_s"]
        except Exception as e:
            rec = {"error": f"{type(e).__name__}: {e}"[:500]}
        res["models"][name] = rec
        print(name, json.dumps(rec), flush=True)
        json.dump(res, open(os.path.join(a.out, "port_in_compile.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
