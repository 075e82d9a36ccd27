"""The reference for ctmatch's port of Inductor's pattern passes (torch 2.11, GPU machine).

    python3 tools/oracle/inductor_oracle.py --out DIR [--models seed_mlp gpt2 ...]

Writes, under DIR:
  entries.json       every entry of joint_graph.patterns (after lazy_init) and of
                     post_grad.pass_patterns[i]: kind, handler or replacement name, source
                     file:line, target ops, the pattern's repr. The port's entry table starts here.
                     (joint_early, joint_later: the joint pass's other pattern passes.)
  op_tags.txt        `aten::NAME.OVERLOAD tag,tag` for every ATen overload torch has (the
                     schema table's tags: pointwise, view, ...), for the graph metadata.
  joint/NAME.*       for each graph the joint pass is run on: the torch.export graph decomposed
                     with Inductor's table, without export's _assert_tensor_metadata checks
                     (NAME.export.json, NAME.export.fx.txt: what the joint pass sees in
                     inference under torch.compile), the graph after joint_graph.patterns.apply under the
                     graph's fake mode (NAME.after.fx.txt).
  joint.json         per graph: nodes, matched (every handler call, as Inductor counts), counts
                     per entry, the op histogram after; under "early" and "later" the same for
                     the joint pass's early_patterns (run on the graph before) and
                     pass_patterns[1:] (run on the graph after), whose changed graphs are
                     joint/NAME.early.after.fx.txt and joint/NAME.later.after.fx.txt.
  postgrad/NAME.*    the graph post_grad.pass_patterns[0] sees inside torch.compile on cuda
                     (NAME.before.fx.txt, its nodes' dtype/shape/stride/device in
                     NAME.before.meta.json) and the graph after the last of them (NAME.after.fx.txt)
  postgrad.json      per graph and pass: counts per entry.
  training/NAME.*    (--passes training) the joint forward+backward graph joint_graph.patterns
                     sees inside torch.compile (on --device, cpu by default) when the inputs
                     require grad (NAME.before.fx.txt, NAME.before.meta.json) and the graph
                     after it (NAME.after.fx.txt): the training forms' reference.
  training.json      per graph: matched, counts per entry, whether the graph changed, the
                     op histogram after.
Graphs: the dev models (model_zoo.py beside this file when present) and one small module per
pattern function Inductor registers with example inputs (fuse_attention's _sfdp patterns from
_get_sfdp_patterns(), called on its own example arguments), plus the modules of this file for
joint_graph.py's and post_grad.py's own patterns.
"""
import argparse, collections, copy, fnmatch, inspect, json, operator, os, sys, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from torch._export.serde.serialize import serialize
from torch._guards import detect_fake_mode
from torch._inductor.decomposition import select_decomp_table
from torch._inductor.fx_passes import joint_graph, post_grad
from torch._inductor.virtualized import V

aten = torch.ops.aten


def where(fn):
    try:
        fn = inspect.unwrap(fn)
        return f"{os.path.relpath(inspect.getsourcefile(fn), os.path.dirname(torch.__file__))}:{inspect.getsourcelines(fn)[1]}"
    except Exception:
        return ""


def entry_name(e):
    """The handler's name; for a register_replacement entry, its search function's name, which
    its check_fn closure holds (every such entry's check is called check_fn)."""
    h = getattr(e, "handler", None)
    base = getattr(h, "__name__", None)
    if base is None:
        try:
            cv = inspect.getclosurevars(e.extra_check).nonlocals
            fn = cv.get("search_fn")
            base = f"{getattr(fn, '__name__', type(e).__name__)}"
            inner = cv.get("extra_check")
            if inner is not None and getattr(inner, "__name__", "") not in ("", "_return_true"):
                base += f"[{inner.__name__}]"
        except Exception:
            base = type(e).__name__
    return f"{base}:{getattr(e.extra_check, '__name__', '')}@{id(e) % 100000}"


def check_key(e):
    """What decides an entry's extra check: for a register_replacement entry (check_fn), the
    user's extra_check it wraps, by qualified name and the values it closes over (e.g.
    _sfdp_scale_factor_check(aten.div.Tensor)'s op), so that two entries whose checks agree are
    seen to. Other entries: the check function's qualified name."""
    def fn_key(f):
        f = inspect.unwrap(f)
        try:
            cv = inspect.getclosurevars(f).nonlocals
        except Exception:
            cv = {}
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(cv.items()) if not callable(v) or isinstance(v, torch._ops.OpOverload))
        return f"{getattr(f, '__qualname__', repr(f))}({inner})"
    try:
        cv = inspect.getclosurevars(e.extra_check).nonlocals
        if "extra_check" in cv:
            return fn_key(cv["extra_check"])
    except Exception:
        pass
    return fn_key(e.extra_check)


def source_of(f):
    try:
        return inspect.getsource(inspect.unwrap(f))
    except Exception:
        return ""


def code_of(e):
    """The Python that decides what an entry does, for the port: a graph pattern's handler; a
    register_replacement entry's search and replacement functions and the user check its
    check_fn wraps."""
    h = getattr(e, "handler", None)
    if h is not None:
        return {"handler": source_of(h)}
    try:
        cv = inspect.getclosurevars(e.extra_check).nonlocals
    except Exception:
        return {}
    return {k: source_of(cv[k]) for k in ("search_fn", "replace_fn", "extra_check") if callable(cv.get(k))}


def describe(p):
    out, seen = [], {}
    for target, entries in p.patterns.items():
        for e in entries:
            if id(e) in seen:
                seen[id(e)]["targets"].append(str(target))
                continue
            h = getattr(e, "handler", None)
            rec = {"name": entry_name(e), "kind": type(e).__name__, "targets": [str(target)],
                   "source": where(h) if h else "", "check": getattr(e.extra_check, "__name__", ""),
                   "check_source": where(e.extra_check), "check_key": check_key(e), "pattern": repr(e.pattern),
                   "code": code_of(e)}
            seen[id(e)] = rec
            out.append(rec)
    return out


def instrument(p, counts):
    seen = set()
    for entries in p.patterns.values():
        for e in entries:
            if id(e) in seen:
                continue
            seen.add(id(e))
            name, orig = entry_name(e), e.apply

            def apply(match, graph, node, _o=orig, _n=name):
                counts[_n] += 1
                return _o(match, graph, node)

            e.apply = apply


def tensor_meta_of(graph):
    """Per node with a tensor value: dtype, shape, stride, device (what str(graph) leaves out),
    so that a test can put it back on the FX text's graph."""
    out = {}
    for n in graph.nodes:
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            try:
                out[n.name] = {"dtype": str(v.dtype).replace("torch.", ""), "shape": [str(d) for d in v.shape],
                               "stride": [str(d) for d in v.stride()], "device": str(v.device)}
            except Exception:
                pass
    return out


def write_before_after(base, before, before_meta, after):
    """BASE.before.fx.txt, BASE.before.meta.json (FX text has no metadata; the checks read it:
    shapes, devices, strides) and BASE.after.fx.txt."""
    open(base + ".before.fx.txt", "w").write(before)
    json.dump(before_meta, open(base + ".before.meta.json", "w"), indent=0)
    open(base + ".after.fx.txt", "w").write(after)


def hist(g):
    h = collections.Counter("operator.getitem" if n.target is operator.getitem else str(n.target)
                            for n in g.nodes if n.op == "call_function")
    return dict(sorted(h.items()))


class Fn(torch.nn.Module):
    def __init__(self, fn, kwargs=None):
        super().__init__()
        self.fn, self.kwargs = fn, kwargs or {}

    def forward(self, *args):
        return self.fn(*args, **self.kwargs)


def traceable(fn):
    """fn compiled again from its source under a file name outside torch: torch.compile does not
    trace into functions of torch's own files (fuse_attention's search functions among them)
    but runs them eagerly, so a compiled module calling one never reaches Inductor's passes."""
    import textwrap
    ns = dict(fn.__globals__)
    exec(compile(textwrap.dedent(inspect.getsource(fn)), f"<oracle {fn.__name__}>", "exec"), ns)
    return ns[fn.__name__]


def sfdp_graphs(scalars_as_constants=False, no_dropout=False, training=False):
    """One module per inference form fuse_attention registers: its search function called on
    (random tensors shaped like) its own example inputs and its scalar workaround. With
    scalars_as_constants (graphs named NAME_scalar), a 0-d example input (a scale) is a float
    constant of the module instead of an input, as in real models. With no_dropout (graphs
    named NAME_scalar_nodrop; only the forms with a dropout), the dropout is left out instead
    of exported as the clone a dropout of p = 0 becomes: fuse_attention registers those forms
    with p = 0 and their trees hold no clone (an inference model has no dropout there). With
    training, the training forms instead, their inputs requiring grad where fuse_attention's
    example inputs do (query, key and value; not masks or scales)."""
    from torch._inductor.fx_passes import fuse_attention as fa
    gen = fa._get_sfdp_patterns
    forms = list(gen(torch.device("cpu")) if inspect.signature(gen).parameters else gen())
    with_dropout = {k[:-len("_training")] for k, d in forms
                    if k.endswith("_training") and "dropout_p" in (d["scalar_workaround"] or {})}
    form = "_training" if training else "_inference"
    for key, d in forms:
        if not key.endswith(form):
            continue
        if no_dropout and key[:-len(form)] not in with_dropout:
            continue
        fn = traceable(d["search_fn"]) if training else d["search_fn"]
        params = list(inspect.signature(fn).parameters)
        ex = list(d["example_inputs"])
        fixed = {p: d["scalar_workaround"][p] for p in params[len(ex):] if p in (d["scalar_workaround"] or {})}
        if scalars_as_constants:
            # A 0-d example input stands for a Python scalar (a scale): real models divide by a
            # float, and the SDPA checks refuse a tensor there (_sfdp_extra_check).
            names = params[:len(ex)]
            for p_, t in zip(names, ex):
                if isinstance(t, torch.Tensor) and t.dim() == 0 and t.is_floating_point():
                    fixed[p_] = float(t.item()) if t.device.type != "meta" else 2.0
            kept = [(p_, t) for p_, t in zip(names, ex) if p_ not in fixed]
            names, ex = [p_ for p_, _ in kept], [t for _, t in kept]
        else:
            names = params[:len(ex)]

        # Gradients where fuse_attention's own example inputs ask for them (query, key and
        # value): a mask requiring grad adds its gradient to the joint graph's outputs, a tree
        # no training form has. (Every floating input of more than 0 dimensions where none asks.)
        asked = any(isinstance(t, torch.Tensor) and t.requires_grad for t in ex)

        def fill(t):
            if not isinstance(t, torch.Tensor):
                return t
            if t.dtype == torch.bool:
                return torch.rand(t.shape) > 0.5
            r = torch.empty_strided(t.size(), t.stride(), dtype=t.dtype).normal_()
            grad = t.requires_grad if asked else r.dim() > 0
            return r.requires_grad_(training and grad and r.is_floating_point())

        tensors = tuple(fill(t) for t in ex)

        def call(*ts, _fn=fn, _names=names, _fixed=fixed, _drop=no_dropout):
            kw = dict(zip(_names, ts))
            kw.update(_fixed)
            if not _drop:
                return _fn(**kw)
            # The search functions call either of the two.
            f_dropout, t_dropout = torch.nn.functional.dropout, torch.dropout
            torch.nn.functional.dropout = lambda x, p=0.5, training=True, inplace=False: (
                x if p == 0 or not training else f_dropout(x, p, training, inplace))
            torch.dropout = lambda x, p, train: x if p == 0 or not train else t_dropout(x, p, train)
            try:
                return _fn(**kw)
            finally:
                torch.nn.functional.dropout, torch.dropout = f_dropout, t_dropout

        yield key + ("_scalar" if scalars_as_constants else "") + ("_nodrop" if no_dropout else ""), Fn(call), tensors


def own_graphs():
    """Small modules for joint_graph.py's and post_grad.py's own patterns."""
    x = torch.randn(8, 16)
    big = torch.randn(64, 128)
    m = {
        "pointless_convert": (lambda a: a.to(torch.float16).to(torch.float32) + 1, (x,)),
        "pointless_view": (lambda a: a.view(8, 16) * 2, (x,)),
        "pointless_view_pair": (lambda a: a.view(4, 32).view(8, 16) * 2, (x,)),
        "pointless_permute_pair": (lambda a: a.permute(1, 0).permute(1, 0) + 1, (x,)),
        "mul_softmax": (lambda a: torch.softmax(a * 3.0, dim=-1), (x,)),
        "div_softmax": (lambda a: torch.softmax(a / 3.0, dim=-1), (x,)),
        # a tensor scale first (mul(s, x)): the reversed entries of pass_patterns[1], the second
        # with the product cast to float32 before the softmax
        "mul_softmax_reversed": (lambda a, s: torch.softmax(s * a, dim=-1), (x, torch.rand(8, 1) + 0.5)),
        "mul_softmax_reversed_cast": (lambda a, s: torch.softmax((s * a).float(), dim=-1),
                                      (x.half(), (torch.rand(8, 1) + 0.5).half())),
        "mm_plus_mm": (lambda a, b, c, d: a @ b + c @ d, (torch.randn(16, 16),) * 4),
        "addmm_bias": (lambda a, b, c: a @ b + c, (torch.randn(16, 16), torch.randn(16, 16), torch.randn(16))),
        "cat_slice_cat": (lambda a, b: torch.cat([a, torch.cat([a, b], 1)[:, :16]], 1), (x, x)),
        "split_cat": (lambda a: torch.cat(torch.split(a, 4, 1), 1) + 1, (x,)),
        "unbind_stack": (lambda a: torch.stack(torch.unbind(a, 0), 0) + 1, (x,)),
        "full_like_mul": (lambda a: torch.full_like(a, 2.0) * a, (x,)),
        "uniform_full": (lambda a: a + torch.full((8, 16), 3.0), (x,)),
        "amax_sub_exp": (lambda a: (a - a.amax(-1, keepdim=True)).exp(), (x,)),
        "bmm_1x": (lambda a, b: torch.bmm(a, b), (torch.randn(1, 8, 16), torch.randn(1, 16, 4))),
        "repeat_interleave": (lambda a: torch.repeat_interleave(torch.tensor([1, 2, 3]), 2) + a.sum().long(), (x,)),
        "index_add": (lambda a, i, s: a.index_add(0, i, s), (x, torch.tensor([0, 2]), torch.randn(2, 16))),
        "randperm_index": (lambda a: a[torch.randperm(8)] + 1, (x,)),
        "clone_to_copy": (lambda a: a.clone(memory_format=torch.contiguous_format) + 1, (x,)),
        "masked_fill_softmax": (lambda a, m: torch.softmax(a.masked_fill(m, float("-inf")), -1), (x, x > 0)),
        # post_grad.py's reuse_partial (a partial amax/amin and a full one of the same input, at
        # least 4096 elements to be rewritten) and pointless_cumsum_replacement
        "partial_amax_max": (lambda a: (a.amax(1, keepdim=True), a.max()), (big,)),
        "partial_amax_amax": (lambda a: (a.amax(0), a.amax()), (big,)),
        "partial_amin_min": (lambda a: (a.amin(1, keepdim=True), a.min()), (big,)),
        "partial_amax_small": (lambda a: (a.amax(1, keepdim=True), a.max()), (x,)),
        "pointless_cumsum": (lambda a: torch.full((64, 128), 2.0, device=a.device).cumsum(1) * a, (big,)),
        "pointless_cumsum_int": (lambda a: torch.ones((64, 128), dtype=torch.int32, device=a.device).cumsum(0) + a,
                                 (big,)),
        # joint_graph.py's scatter_upon_const_tensor: a scalar scattered into a `full` along a
        # dimension where the selector has size 1 (a one-hot); and two its check refuses
        "scatter_one_hot": (lambda i: torch.full((8, 16), 0.5).scatter(1, i, 2.0), (torch.randint(0, 16, (8, 1)),)),
        "scatter_zeros_dim0": (lambda i: torch.zeros(8, 16, dtype=torch.float16).scatter(0, i, 1.0),
                               (torch.randint(0, 8, (1, 16)),)),
        "scatter_short": (lambda i: torch.full((8, 16), 0.5).scatter(1, i, 2.0), (torch.randint(0, 16, (4, 1)),)),
        "scatter_two": (lambda i: torch.full((8, 16), 0.5).scatter(1, i, 2.0), (torch.randint(0, 16, (8, 2)),)),
        # misc_patterns.py's randperm index patterns: MultiOutputPatterns of the indexing and the
        # permutation, which must be returned too
        "randperm_index_pair": (lambda a: (lambda p: (a[p], p))(torch.randperm(a.shape[0], device=a.device)), (x,)),
        "randperm_index_add_pair": (
            lambda a, s: (lambda p: (a.index_add(0, p, s), p))(torch.randperm(a.shape[0], device=a.device)[:2]),
            (x, torch.randn(2, 16))),
    }
    for name, (fn, args) in m.items():
        yield name, Fn(fn), args


def dev_graphs(names):
    try:
        import model_zoo
    except ImportError:
        return
    for name in names:
        try:
            mk, args = model_zoo._zoo()[name]
            torch.manual_seed(0)
            yield name, mk().eval(), args()
        except Exception as e:
            print("skip", name, e)


def drop_metadata_asserts(ep):
    """torch.export writes a `.to(dtype)` with an aten._assert_tensor_metadata call on the
    converted tensor; torch.compile's graphs have none (AOT autograd adds them only in export
    mode). Each is one more user of that tensor, which the SDPA trees' single-user nodes then
    refuse: erased, the graph is the one the joint pass sees under torch.compile."""
    check = getattr(torch.ops.aten, "_assert_tensor_metadata", None)
    if check is None:
        return
    g = ep.graph_module.graph
    for n in list(g.nodes):
        if n.op == "call_function" and n.target in (check, check.default) and not n.users:
            g.erase_node(n)
    ep.graph_module.recompile()


def run_joint(out, graphs, counts, reps, save, others=None):
    res = {}
    os.makedirs(os.path.join(out, "joint"), exist_ok=True)
    for name, mod, args in graphs:
        try:
            ep = torch.export.export(mod, args, strict=False).run_decompositions(select_decomp_table())
            drop_metadata_asserts(ep)
        except Exception as e:
            res[name] = {"error": f"export: {type(e).__name__}: {e}"[:500]}
            continue
        base = os.path.join(out, "joint", name)
        open(base + ".export.fx.txt", "w").write(str(ep.graph))
        try:
            js = serialize(ep).exported_program
            open(base + ".export.json", "wb").write(js if isinstance(js, bytes) else js.encode())
        except Exception as e:
            print(name, "serialize failed", e)
        rec, ts = {"nodes": len(ep.graph.nodes)}, []
        for i in range(reps):
            g = copy.deepcopy(ep.graph_module)
            fm = detect_fake_mode([n.meta.get("val") for n in g.graph.nodes if "val" in n.meta])
            counts.clear()
            t1 = time.perf_counter()
            try:
                with V.set_fake_mode(fm):
                    mcount = joint_graph.patterns.apply(g.graph)
            except Exception as e:
                # Inductor's own pass can raise on a graph (an extra_check reading a kwarg
                # its pattern never bound): recorded, since that is its result too.
                rec.update(error=f"apply: {type(e).__name__}: {e}"[:500], per_entry=dict(counts))
                break
            ts.append(time.perf_counter() - t1)
            if i == 0:
                g.graph.lint()
                changed = str(g.graph) != str(ep.graph)
                rec.update(matched=mcount, per_entry=dict(counts), changed=changed, hist_after=hist(g.graph))
                open(base + ".after.fx.txt", "w").write(str(g.graph))
                if others:
                    rec.update(run_other_joint_passes(base, ep.graph_module, g, fm, others, reps))
        if ts:
            rec["median_s"] = sorted(ts)[len(ts) // 2]
        res[name] = rec
        print("joint", name, rec["nodes"], "matched", rec.get("matched"), "changed", rec.get("changed"),
              rec.get("error", ""), flush=True)
        save(res)
    return res


def run_other_joint_passes(base, before, after, fm, others, reps):
    """The joint pass's other pattern passes, each on the graph Inductor hands it: early_patterns
    on the graph joint_graph.patterns sees (it runs just before), pass_patterns[1:] on the graph
    joint_graph.patterns leaves. Per pass: matched, per-entry counts, changed, the median time
    of `reps` runs (each on a fresh copy), and the graph after where it changed
    (BASE.early.after.fx.txt, BASE.later.after.fx.txt)."""
    rec = {}
    for key, start, passes, counts in (("early", before, others["early"], others["early_counts"]),
                                       ("later", after, others["later"], others["later_counts"])):
        if not passes:
            continue
        ts = []
        for _ in range(max(1, reps)):
            g = copy.deepcopy(start)
            counts.clear()
            t0 = time.perf_counter()
            try:
                with V.set_fake_mode(fm):
                    matched = sum(p.apply(g.graph) or 0 for p in passes)
            except Exception as e:
                rec[key] = {"error": f"apply: {type(e).__name__}: {e}"[:500], "per_entry": dict(counts)}
                break
            ts.append(time.perf_counter() - t0)
        if key in rec:
            continue
        g.graph.lint()
        changed = str(g.graph) != str(start.graph)
        rec[key] = {"matched": matched, "per_entry": dict(counts), "changed": changed,
                    "median_s": sorted(ts)[len(ts) // 2]}
        if changed:
            open(f"{base}.{key}.after.fx.txt", "w").write(str(g.graph))
    return rec


def run_postgrad(out, graphs, save):
    """Inside torch.compile on cuda: wrap each post-grad PatternMatcherPass's apply."""
    import torch._dynamo
    import torch._inductor.config
    # A cached compile skips the passes: every graph must go through them.
    torch._inductor.config.fx_graph_cache = False
    torch._inductor.config.autotune_local_cache = False
    os.makedirs(os.path.join(out, "postgrad"), exist_ok=True)
    res, cur = {}, {}
    counts = collections.Counter()
    passes = list(post_grad.pass_patterns)
    instrument_all = [instrument(p, counts) for p in passes]
    del instrument_all
    for i, p in enumerate(passes):
        orig = p.apply

        def apply(graph, _o=orig, _i=i):
            if _i == 0:
                cur.setdefault("before", str(graph))
                cur.setdefault("before_meta", tensor_meta_of(graph))
            counts.clear()
            r = _o(graph)
            cur.setdefault("per_pass", []).append({"matched": r, "per_entry": dict(counts)})
            if _i == len(passes) - 1:
                cur["after"] = str(graph)
            return r

        p.apply = apply
    from torch._dynamo.utils import counters
    for name, mod, args in graphs:
        cur.clear()
        counters.clear()
        torch._dynamo.reset()
        try:
            m = mod.cuda()
            a = tuple(t.cuda() if isinstance(t, torch.Tensor) else t for t in args)
            with torch.no_grad():
                torch.compile(m, backend="inductor")(*a)
        except Exception as e:
            res[name] = {"error": f"{type(e).__name__}: {e}"[:500]}
            continue
        base = os.path.join(out, "postgrad", name)
        if "before" in cur:
            write_before_after(base, cur["before"], cur.get("before_meta", {}), cur.get("after", ""))
        res[name] = {"passes": cur.get("per_pass", []), "changed": cur.get("before") != cur.get("after"),
                     "inductor_counters": dict(counters["inductor"])}
        print("postgrad", name, [p["matched"] for p in res[name]["passes"]], flush=True)
        save(res)
    return res


class _JointCaptured(Exception):
    """Raised once the joint graph has been through joint_graph.patterns: the rest of the
    compile (partitioning, code generation) is not needed for the oracle."""


def run_training(out, graphs, counts, save, device):
    """Inside torch.compile, inputs requiring grad: AOT autograd hands the joint
    forward+backward graph to joint_graph_passes, whose patterns.apply is wrapped to record
    the graph before, the counts per entry and the graph after, then to stop the compile.
    This is Inductor's own run, not a replay: the graph comes with its fake values, in the
    fake mode of the compile. On cpu (the default), as the inference oracle, so that the
    replacements are the CPU ones."""
    import torch._dynamo
    import torch._inductor.config
    torch._inductor.config.fx_graph_cache = False
    os.makedirs(os.path.join(out, "training"), exist_ok=True)
    res, cur = {}, {}
    orig = joint_graph.patterns.apply

    def apply(graph, _o=orig):
        g = getattr(graph, "graph", graph)  # a GraphModule or its Graph
        if not any(n.op == "placeholder" and n.name.startswith("tangents") for n in g.nodes):
            return _o(graph)
        before, meta = str(g), tensor_meta_of(g)
        counts.clear()
        t0 = time.perf_counter()
        r = _o(graph)
        apply_s = time.perf_counter() - t0
        cur.update(before=before, before_meta=meta, after=str(g), matched=r, per_entry=dict(counts),
                   apply_s=apply_s, hist_after=hist(g))
        raise _JointCaptured()

    joint_graph.patterns.apply = apply
    try:
        for name, mod, args in graphs:
            cur.clear()
            torch._dynamo.reset()
            err = None
            try:
                m = mod.to(device)
                a = tuple(t.detach().to(device).requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
                          for t in args)
                torch.compile(m, backend="inductor")(*a)
            except Exception as e:  # _JointCaptured, wrapped by dynamo, when all went well
                err = e
            if "before" not in cur:
                res[name] = {"error": f"{type(err).__name__}: {err}"[:500] if err else "no joint graph reached "
                             "joint_graph.patterns"}
                save(res)
                continue
            write_before_after(os.path.join(out, "training", name), cur["before"], cur["before_meta"], cur["after"])
            res[name] = {"nodes": cur["before"].count("\n    %"), "matched": cur["matched"],
                         "per_entry": cur["per_entry"], "changed": cur["before"] != cur["after"],
                         "apply_s": cur["apply_s"], "hist_after": cur["hist_after"]}
            print("training", name, "matched", cur["matched"], "changed", res[name]["changed"], flush=True)
            save(res)
    finally:
        joint_graph.patterns.apply = orig
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="oracle")
    ap.add_argument("--models", nargs="*", default=["seed_mlp", "resnet18", "gpt2", "bert", "llama"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--passes", choices=["joint", "postgrad", "both", "training"], default="both")
    ap.add_argument("--device", default="cpu", help="where --passes training compiles")
    ap.add_argument("--only", nargs="*", default=None,
                    help="run only the graphs of these names or patterns (`*`: to add graphs to an oracle "
                         "already made)")
    ap.add_argument("--compile-check", nargs="*", default=[f"_sfdp_pattern_{i}_inference" for i in (1, 2, 5, 11, 13)])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    joint_graph.lazy_init()
    lazy = time.perf_counter() - t0
    # joint_graph.patterns is pass_patterns[0] of the joint pass; torch 2.11 also runs
    # early_patterns before it and pass_patterns[1] after it, listed apart.
    entries = {"torch": torch.__version__, "lazy_init_s": lazy, "joint": describe(joint_graph.patterns),
               "joint_early": describe(joint_graph.early_patterns) if hasattr(joint_graph, "early_patterns") else [],
               "joint_later": [describe(p) for p in getattr(joint_graph, "pass_patterns", [])[1:]],
               "post_grad": [describe(p) for p in post_grad.pass_patterns]}
    json.dump(entries, open(os.path.join(a.out, "entries.json"), "w"), indent=1, default=str)
    print("entries: joint", len(entries["joint"]), "post_grad", [len(p) for p in entries["post_grad"]], flush=True)

    with open(os.path.join(a.out, "op_tags.txt"), "w") as f:
        for name in sorted(dir(torch.ops.aten)):
            pk = getattr(torch.ops.aten, name, None)
            if not isinstance(pk, torch._ops.OpOverloadPacket):
                continue
            for ov in pk.overloads():
                op = getattr(pk, ov)
                tags = sorted(str(t).replace("Tag.", "") for t in op.tags)
                f.write(f"aten::{name}{'' if ov == 'default' else '.' + ov} {','.join(tags)}\n")

    def safe(gen):
        try:
            for g in gen:
                if a.only is None or any(fnmatch.fnmatchcase(g[0], o) for o in a.only):
                    yield g
        except Exception:
            traceback.print_exc()

    if a.passes == "training":
        counts = collections.Counter()
        instrument(joint_graph.patterns, counts)
        # The forms with scalar scales first: real models scale by a float, and the tensor-scale
        # forms are what a call cut short may leave out.
        run_training(a.out, list(safe(sfdp_graphs(True, training=True))) + list(safe(sfdp_graphs(training=True))),
                     counts, lambda res: json.dump({"torch": torch.__version__, "graphs": res},
                                                   open(os.path.join(a.out, "training.json"), "w"), indent=1,
                                                   default=str), a.device)
        return
    if a.passes != "postgrad":
        small = (list(safe(own_graphs())) + list(safe(sfdp_graphs())) + list(safe(sfdp_graphs(True))) +
                 list(safe(sfdp_graphs(True, no_dropout=True))))
        counts = collections.Counter()
        instrument(joint_graph.patterns, counts)
        others = {"early": [joint_graph.early_patterns] if hasattr(joint_graph, "early_patterns") else [],
                  "later": list(getattr(joint_graph, "pass_patterns", [])[1:]),
                  "early_counts": collections.Counter(), "later_counts": collections.Counter()}
        for p in others["early"]:
            instrument(p, others["early_counts"])
        for p in others["later"]:
            instrument(p, others["later_counts"])
        run_joint(a.out, small + list(safe(dev_graphs(a.models))), counts, a.reps,
                  lambda res: json.dump({"torch": torch.__version__, "graphs": res},
                                        open(os.path.join(a.out, "joint.json"), "w"), indent=1, default=str),
                  others)
    if a.passes != "joint" and torch.cuda.is_available():
        def save(pg):  # after every graph: a run cut short keeps what it found
            json.dump({"torch": torch.__version__, "graphs": pg}, open(os.path.join(a.out, "postgrad.json"), "w"),
                      indent=1, default=str)

        # A few SDPA forms compiled whole: Inductor's own counters (fuse_attention,
        # pattern_matcher_count) check what the joint oracle above finds on the same modules.
        sfdp = [g for g in safe(sfdp_graphs()) if g[0] in a.compile_check]
        run_postgrad(a.out, list(safe(own_graphs())) + sfdp + list(safe(dev_graphs(a.models[:2]))), save)


if __name__ == "__main__":
    main()
