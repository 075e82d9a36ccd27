"""ctmatch in Python: compile-time patterns (written in C++) run as a pass on torch.fx graphs.

    import ctmatch
    stats = ctmatch.apply(gm.graph, rules="bench", mode="sweep")   # edits the graph in place
    g = ctmatch.Graph.from_fx(gm.graph); print(g)                  # ctmatch's view of it

Importing ctmatch registers no pattern and imports no torch: the rules are compiled in, and
torch is imported on the first conversion.
"""
from ._ctmatch import Graph, __version__
from . import _ctmatch

__all__ = ["Graph", "apply", "__version__"]


def _compiled_rules(module_name):
    """The rules of a module built with ctmatch_add_python_rules (what they unpickle to)."""
    import importlib

    return importlib.import_module(module_name).rules


def _fx_graph(g):
    """The torch.fx.Graph of a GraphModule, or the graph itself."""
    return getattr(g, "graph", g)


def apply(graph, rules="bench", mode="sweep"):
    """Runs ctmatch's rules on a torch.fx.Graph (or GraphModule) and edits it in place.

    rules: "bench", "default", or built-in rule names, comma-separated; or the `rules` of a
    module built with ctmatch_add_python_rules (rules written in C++). mode: "sweep" (one pass, as
    Inductor's PatternMatcherPass) or "fixpoint". New nodes are inserted where the rewrite put
    them, under the names ctmatch gave them; uses are redirected and dead nodes erased. A new
    node that takes a root's uses gets the root's meta (as Inductor's replacements do); where
    the graph's nodes carry fake tensors (meta['val'], as under torch.compile), every other new
    node gets its own by running its op in that fake mode.

    Returns the statistics ctmatch-opt --stats-json prints (matches, roots, hist_after,
    time_s, ...) plus convert_s and write_back_s, and fake_value_failed: the new nodes whose op
    could not run in the fake mode (no fake implementation), left without meta['val']. On an
    error (a node kind or value ctmatch cannot hold, an op torch does not know) raises, and the
    graph is as it was. A graph in which no node calls an op that a rule is rooted at is not
    converted (stats["converted"] is False, the statistics otherwise the same): no rule can
    match in it, and only the nodes' kinds and targets are read, not their values.
    """
    g = _fx_graph(graph)
    if isinstance(rules, str):
        stats, created = _ctmatch.apply_builtin(g, rules, mode)
    else:
        stats, created = rules._apply_to_fx(g, mode)
    stats["fake_value_failed"] = _propagate_fake_values(created)
    return stats


def _propagate_fake_values(nodes):
    """meta['val'] for each new node, by running its op on its inputs' fake values. Returns
    the names of the nodes whose op could not run so."""
    failed = []
    if not nodes:
        return failed
    from torch.fx import Node
    from torch.utils._pytree import tree_map

    for node in nodes:
        if "val" in node.meta:
            continue  # it took a root's uses, and the root's meta (the same value)
        fake_mode = None
        missing = False

        def value_of(a):
            nonlocal fake_mode, missing
            if not isinstance(a, Node):
                return a
            v = a.meta.get("val")
            if v is None:
                missing = True
            elif fake_mode is None:
                fake_mode = getattr(v, "fake_mode", None)
            return v

        args = tree_map(value_of, node.args)
        kwargs = tree_map(value_of, node.kwargs)
        if missing or fake_mode is None:
            continue  # no fake tensors here (e.g. a make_fx graph): nothing to propagate
        try:
            with fake_mode:
                node.meta["val"] = node.target(*args, **kwargs)
        except Exception:  # no fake implementation: Inductor will say so if it needs one
            failed.append(node.name)
    return failed
