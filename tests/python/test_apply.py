"""ctmatch.apply edits a torch.fx graph in place: the rewritten program computes what the
original did, graph.lint() passes, new nodes get fake values where the graph has them, and a
failure leaves the graph as it was. The inductor.Pass wrapper's cache key."""
import os
import subprocess
import sys
import textwrap
import unittest

import torch
from torch.fx.experimental.proxy_tensor import make_fx

import ctmatch
import ctmatch.inductor
import graphs


def close(a, b):
    if isinstance(a, (tuple, list)):
        return all(close(x, y) for x, y in zip(a, b))
    return torch.allclose(a, b, rtol=1e-5, atol=1e-6)


class Apply(unittest.TestCase):
    def check_rewrites(self, name, rules, mode, expect):
        gm, args = graphs.traced()[name]
        want = gm(*args)
        stats = ctmatch.apply(gm, rules=rules, mode=mode)
        gm.graph.lint()
        gm.recompile()
        self.assertTrue(close(gm(*args), want), name)
        self.assertEqual(stats["matches"], expect)
        for key in ["roots", "hist_after", "time_s", "convert_s", "write_back_s", "nodes_before", "nodes_after"]:
            self.assertIn(key, stats)
        self.assertEqual(stats["nodes_after"], len(list(gm.graph.nodes)))
        # ctmatch's view of the edited graph is what the pass left
        self.assertEqual(ctmatch.Graph.from_fx(gm.graph).node_names(), [n.name for n in gm.graph.nodes])
        return gm, stats

    def test_view_chain_folds(self):
        gm, stats = self.check_rewrites("view_chain", "default", "fixpoint", {"view_view": 2})
        views = [n for n in gm.graph.nodes if n.target == torch.ops.aten.view.default]
        self.assertEqual(len(views), 1)
        self.assertEqual(views[0].args[1], [6, 4])
        self.assertEqual(views[0].args[0].name, "x_1")

    def test_permute_pair_disappears(self):
        gm, _ = self.check_rewrites("permutes", "default", "fixpoint", {"permute_permute": 1})
        self.assertFalse(any(n.target == torch.ops.aten.permute.default for n in gm.graph.nodes))

    def test_mm_add_becomes_addmm_with_the_names_ctmatch_gave(self):
        gm, stats = self.check_rewrites("mm_add", "default", "sweep", {"mm_bias_addmm": 1})
        self.assertEqual(stats["roots"], {"mm_bias_addmm": ["add"]})
        addmm = [n for n in gm.graph.nodes if n.target == torch.ops.aten.addmm.default]
        self.assertEqual([n.name for n in addmm], ["addmm"])
        self.assertEqual(stats["hist_after"], {"aten.addmm.default": 1})

    def test_symbolic_view_chain_folds_keeping_its_size_nodes(self):
        gm, args = graphs.symbolic_view_chain()
        want = gm(*args)
        stats = ctmatch.apply(gm, rules="default", mode="fixpoint")
        self.assertEqual(stats["matches"], {"permute_permute": 1, "view_view": 2})
        gm.graph.lint()
        gm.recompile()
        self.assertTrue(torch.equal(gm(*args), want))
        views = [n for n in gm.graph.nodes if n.target == torch.ops.aten.view.default]
        self.assertEqual(len(views), 1)
        sizes = views[0].args[1]
        self.assertTrue(all(isinstance(d, torch.fx.Node) for d in sizes))  # the sym_size nodes, written back

    def test_nothing_to_rewrite_leaves_the_graph_alone(self):
        gm, _ = graphs.traced()["casts"]
        before = str(gm.graph)
        stats = ctmatch.apply(gm.graph, rules="default", mode="fixpoint")
        self.assertEqual(stats["matches"], {})
        self.assertEqual(str(gm.graph), before)

    def test_a_graph_without_a_root_op_is_not_converted_and_gives_the_same_statistics(self):
        def f(x):
            return torch.sin(torch.relu(x)) + torch.relu(x)

        gm = make_fx(f)(torch.randn(4))
        before = str(gm.graph)
        skipped = ctmatch.apply(gm.graph, rules="view_view")  # rooted at view only
        self.assertFalse(skipped["converted"])
        self.assertEqual(str(gm.graph), before)
        # A rule rooted at add makes the same graph converted and matched, without a match.
        converted = ctmatch.apply(gm.graph, rules="mm_bias_addmm")
        self.assertTrue(converted["converted"])
        self.assertEqual(str(gm.graph), before)
        for key in ["matches", "roots", "hist_after", "nodes_before", "nodes_after", "kwargs_dropped"]:
            self.assertEqual(skipped[key], converted[key], key)
        self.assertEqual(skipped["hist_after"], {"aten.add.Tensor": 1, "aten.relu.default": 2, "aten.sin.default": 1})
        # Node kinds ctmatch refuses are still refused.
        sm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.ReLU()))
        with self.assertRaisesRegex(ValueError, "call_module nodes are not supported"):
            ctmatch.apply(sm.graph, rules="view_view")

    def test_a_replacement_takes_its_roots_value_meta(self):
        x, w, b = torch.randn(4, 6), torch.randn(6, 6), torch.randn(6)
        gm = make_fx(lambda x, w, b: torch.mm(x, w) + b, tracing_mode="fake")(x, w, b)
        (add,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.add.Tensor]
        add.meta["stack_trace"] = "model.py, line 1"
        add.meta["eager_input_vals"] = "of add's inputs"
        val = add.meta["val"]
        ctmatch.apply(gm.graph, rules="default")
        (addmm,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.addmm.default]
        self.assertIs(addmm.meta["val"], val)
        self.assertEqual(addmm.meta["stack_trace"], "model.py, line 1")
        self.assertNotIn("eager_input_vals", addmm.meta)  # about the root's inputs, not the value

    def test_fake_values_for_new_nodes(self):
        x, w, b = torch.randn(4, 6), torch.randn(6, 6), torch.randn(6)
        gm = make_fx(lambda x, w, b: torch.mm(x, w) + b, tracing_mode="fake")(x, w, b)
        (add,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.add.Tensor]
        del add.meta["val"]  # nothing to take over: the new node's value comes from its op
        ctmatch.apply(gm.graph, rules="default")
        (addmm,) = [n for n in gm.graph.nodes if n.target == torch.ops.aten.addmm.default]
        val = addmm.meta["val"]
        self.assertIsInstance(val, torch._subclasses.FakeTensor)
        self.assertEqual(tuple(val.shape), (4, 6))
        self.assertEqual(val.dtype, torch.float32)
        gm.recompile()
        self.assertTrue(close(gm(x, w, b), torch.mm(x, w) + b))

    def test_unknown_rule_and_mode(self):
        gm, _ = graphs.traced()["view_chain"]
        before = str(gm.graph)
        with self.assertRaisesRegex(ValueError, "unknown rule 'nope'"):
            ctmatch.apply(gm.graph, rules="nope")
        with self.assertRaisesRegex(ValueError, "unknown mode 'twice'"):
            ctmatch.apply(gm.graph, rules="default", mode="twice")
        self.assertEqual(str(gm.graph), before)

    def test_bench_rule_with_the_seed_ops_defined_in_torch(self):
        lib = self.seedlib = torch.library.Library("seedlib", "DEF")  # kept: deleting it unregisters
        lib.define("scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor")
        lib.define("mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor")

        def scale_cast(x, *, dtype, clamp=False, scale=1.0):
            y = x * scale
            return (y.clamp(-1, 1) if clamp else y).to(dtype)

        lib.impl("scale_cast", scale_cast, "CPU")
        lib.impl("mm_scale_cast", lambda a, b, **kw: scale_cast(torch.mm(a, b), **kw), "CPU")
        x, w = torch.randn(4, 6), torch.randn(6, 6)
        f = lambda x, w: torch.ops.seedlib.scale_cast(torch.mm(x, w), dtype=torch.float64, clamp=True, scale=0.5)
        gm = make_fx(f)(x, w)
        want = gm(x, w)
        stats = ctmatch.apply(gm, rules="mm_scale_cast")
        self.assertEqual(stats["matches"], {"mm_scale_cast": 1})
        gm.graph.lint()
        gm.recompile()
        (fused,) = [n for n in gm.graph.nodes if n.op == "call_function"]
        self.assertEqual(fused.target, torch.ops.seedlib.mm_scale_cast.default)
        self.assertEqual(fused.kwargs, {"dtype": torch.float64, "clamp": True, "scale": 0.5})
        self.assertTrue(torch.equal(gm(x, w), want))


class FailedWriteBack(unittest.TestCase):
    def test_an_op_torch_does_not_know_leaves_the_graph_as_it_was(self):
        # In a process of its own: seedlib::mm_scale_cast must be unknown to torch there.
        script = textwrap.dedent("""
            import torch, ctmatch
            from torch.fx.experimental.proxy_tensor import make_fx
            lib = torch.library.Library("seedlib", "DEF")
            lib.define("scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor")
            lib.impl("scale_cast", lambda x, **kw: x.to(kw["dtype"]), "CPU")
            gm = make_fx(lambda x, w: torch.ops.seedlib.scale_cast(torch.mm(x, w), dtype=torch.float16))(
                torch.randn(2, 2), torch.randn(2, 2))
            before = str(gm.graph)
            try:
                ctmatch.apply(gm.graph, rules="mm_scale_cast")
            except ValueError as e:
                assert "seedlib.mm_scale_cast.default, which torch does not know" in str(e), e
                assert str(gm.graph) == before
                gm.graph.lint()
                print("refused")
        """)
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "refused")


class InductorPass(unittest.TestCase):
    def test_pass_runs_the_rules_and_its_uuid_follows_the_rule_set(self):
        p = ctmatch.inductor.Pass(rules="default", mode="fixpoint")
        gm, args = graphs.traced()["view_chain"]
        want = gm(*args)
        p(gm.graph)
        self.assertEqual(p.last_stats["matches"], {"view_view": 2})
        gm.recompile()
        self.assertTrue(close(gm(*args), want))
        self.assertEqual(p.uuid(), ctmatch.inductor.Pass(rules="default", mode="fixpoint").uuid())
        self.assertNotEqual(p.uuid(), ctmatch.inductor.Pass(rules="bench", mode="fixpoint").uuid())
        self.assertNotEqual(p.uuid(), ctmatch.inductor.Pass(rules="default", mode="sweep").uuid())
        reader_on = p.uuid()
        ctmatch._ctmatch._tensor_impl_reader(False)  # metadata read the other way
        try:
            self.assertNotEqual(reader_on, ctmatch.inductor.Pass(rules="default", mode="fixpoint").uuid())
        finally:
            ctmatch._ctmatch._tensor_impl_reader(True)

    def test_pass_with_compiled_rules_copies_and_pickles(self):
        import copy
        import pickle

        import seed_question_rules  # built beside the package by the examples

        p = ctmatch.inductor.Pass(rules=seed_question_rules.rules)
        self.assertIs(copy.deepcopy(p).rules, seed_question_rules.rules)
        self.assertIs(pickle.loads(pickle.dumps(p)).rules, seed_question_rules.rules)
        self.assertEqual(copy.deepcopy(p).uuid(), p.uuid())
        self.assertNotEqual(p.uuid(), ctmatch.inductor.Pass(rules="fuse_mm_custom").uuid())
        self.assertEqual(seed_question_rules.rules.names(), ["fuse_mm_custom"])

    def test_import_registers_nothing_and_imports_no_torch(self):
        # ctmatch.inductor imports torch (it subclasses Inductor's pass); ctmatch itself does not
        r = subprocess.run([sys.executable, "-c", "import sys, ctmatch; print('torch' in sys.modules)"],
                           capture_output=True, text=True, env=os.environ)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "False")


if __name__ == "__main__":
    unittest.main()
