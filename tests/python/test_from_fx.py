"""Graph.from_fx: every node kind and value kind, equal to the FX-text reader's graph of
str(graph), tensor metadata, and clear errors for what ctmatch cannot hold."""
import operator
import os
import types
import unittest

import torch
from torch.fx.experimental.proxy_tensor import make_fx

import ctmatch
import graphs


class FromFx(unittest.TestCase):
    def test_traced_graphs_equal_the_text_readers_graph(self):
        for name, (gm, _) in graphs.traced().items():
            with self.subTest(graph=name):
                converted = ctmatch.Graph.from_fx(gm.graph)
                converted.verify()
                read = ctmatch.Graph.parse(str(gm.graph))
                self.assertEqual(str(converted), str(read))
                self.assertEqual(str(converted), str(gm.graph))  # FX's own text, byte for byte
                self.assertEqual(len(converted), len(list(gm.graph.nodes)))

    def test_devices_fresh_objects_each_read_as_written(self):
        # from_fx keeps the devices it has parsed (a few) and compares fresh objects with them:
        # every device, in any order, each a fresh object, more of them than it keeps, must
        # still come out as written.
        g = torch.fx.Graph()
        written = ["cpu", "cuda:0", "cuda:1", "meta", "cuda", "cuda:1", "cpu", "cuda:0", "cuda:7",
                   "cuda:2", "cuda:3", "cuda:4", "cuda:5", "cuda:6", "cuda:2", "cuda:6", "cpu", "cuda"]
        for i, d in enumerate(written):
            g.call_function(torch.ops.aten.empty.memory_format, ([2],), {"device": torch.device(d)})
        g.output(None)
        for use_reader in (True, False):  # devices keyed by their c10::Device, or by object
            ctmatch._ctmatch._tensor_impl_reader(use_reader)
            try:
                text = str(ctmatch.Graph.from_fx(g))
            finally:
                ctmatch._ctmatch._tensor_impl_reader(True)
            found = [line.split("device: ")[1].split("}")[0].split(",")[0] for line in text.splitlines() if "device: " in line]
            self.assertEqual(found, written)

    def test_every_value_kind(self):
        g = graphs.every_value_kind()
        converted = ctmatch.Graph.from_fx(g)
        converted.verify()
        self.assertEqual(str(converted), str(ctmatch.Graph.parse(str(g))))
        text = str(converted)
        for piece in ["dtype: torch.bfloat16", "layout: torch.strided", "device: cpu", "pin_memory: False",
                      "memory_format: torch.contiguous_format", "-inf, inf", "None, 0.5", "approximate: tanh",
                      "[%gelu_default, %clamp_default_1, %x]", "nan", str(-(2 ** 62)), "torch.channels_last",
                      "operator.getitem", "return (getitem, (empty_memory_format, [x, None]))"]:
            self.assertIn(piece, text)

    def test_metadata_from_tensor_meta(self):
        gm, _ = graphs.traced()["mm_add"]
        converted = ctmatch.Graph.from_fx(gm.graph)
        self.assertEqual(converted.meta("mm"), ("float32", ["4", "6"]))
        casts, _ = graphs.traced()["casts"]
        self.assertEqual(ctmatch.Graph.from_fx(casts.graph).meta("_to_copy"), ("float16", ["4", "6"]))

    def test_strides_device_layout_from_fake_tensors(self):
        gm = make_fx(lambda x: x.t().relu(), tracing_mode="fake")(torch.randn(2, 3))
        converted = ctmatch.Graph.from_fx(gm.graph)
        names = converted.node_names()
        x, t = names[0], names[1]
        mx = converted.tensor_meta(x)
        self.assertEqual({k: mx[k] for k in ("dtype", "shape", "strides", "device", "requires_grad", "memory_format")}, {
            "dtype": "float32", "shape": ["2", "3"], "strides": ["3", "1"], "device": "cpu",
            "requires_grad": False, "memory_format": "contiguous_format"})
        mt = converted.tensor_meta(t)
        self.assertEqual((mt["shape"], mt["strides"], mt["memory_format"]), (["3", "2"], ["1", "3"], None))
        # a fake tensor alone (no tensor_meta): layout and storage offset too
        for node in gm.graph.nodes:
            node.meta.pop("tensor_meta", None)
        alone = ctmatch.Graph.from_fx(gm.graph).tensor_meta(x)
        self.assertEqual((alone["strides"], alone["storage_offset"], alone["layout"], alone["device"]),
                         (["3", "1"], "0", "strided", "cpu"))
        # a channels-last input keeps its strides
        cl = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
        gm = make_fx(lambda x: x.relu(), tracing_mode="fake")(cl)
        converted = ctmatch.Graph.from_fx(gm.graph)
        self.assertEqual(converted.tensor_meta(converted.node_names()[0])["memory_format"], "channels_last")
        # tensor_meta alone (no value): strides, no device
        gm, _ = graphs.traced()["mm_add"]
        for node in gm.graph.nodes:
            node.meta.pop("val", None)
        mm = ctmatch.Graph.from_fx(gm.graph).tensor_meta("mm")
        self.assertEqual((mm["strides"], mm["device"]), (["6", "1"], None))

    def test_symbolic_sizes_keep_their_text(self):
        gm, _ = graphs.symbolic_view_chain()
        converted = ctmatch.Graph.from_fx(gm.graph)
        converted.verify()
        self.assertEqual(str(converted), str(gm.graph))
        self.assertEqual(str(converted), str(ctmatch.Graph.parse(str(gm.graph))))
        x = next(iter(gm.graph.nodes))
        shape = converted.tensor_meta(x.name)["shape"]
        self.assertEqual(shape, [str(d) for d in x.meta["val"].shape])
        self.assertFalse(any(d.isdigit() for d in shape))  # symbols, not the example's sizes

    def test_metadata_it_cannot_hold_leaves_the_field_unset(self):
        # Metadata never refuses a graph: a size of a kind ctmatch has no value for leaves the
        # shape unset, and the rest is read.
        g = torch.fx.Graph()
        x = g.placeholder("x")
        x.meta["tensor_meta"] = types.SimpleNamespace(dtype=torch.float16, shape=(2, object()), stride=(1, 2),
                                                      requires_grad=False)
        g.output(g.call_function(torch.ops.aten.relu.default, (x,)))
        meta = ctmatch.Graph.from_fx(g).tensor_meta("x")
        self.assertEqual((meta["dtype"], meta["shape"], meta["strides"]), ("float16", None, ["1", "2"]))

    def test_attribute_reader_reads_what_getattr_reads(self):
        # The conversion reads a node's attributes from its C fields where the type's member
        # descriptors say where they are (torch 2.x's _NodeBase); anything else by getattr.
        read = ctmatch._ctmatch._read_attribute
        self.assertEqual(read(slice(1, 2, 3), "step"), (3, True))  # a member descriptor

        class Plain(StopIteration):  # the member descriptor `value`, inherited
            pass

        class Overridden(StopIteration):  # a property in front of it
            value = property(lambda self: "property")

        self.assertEqual(read(Plain(5), "value"), (5, True))
        self.assertEqual(read(Overridden(5), "value"), ("property", False))
        self.assertEqual(read(Plain(6), "value"), (6, True))
        # a type changed after it was seen: read anew, as getattr would
        Plain.value = property(lambda self: "patched")
        self.assertEqual(read(Plain(7), "value"), ("patched", False))
        del Plain.value
        self.assertEqual(read(Plain(8), "value"), (8, True))
        # plain instance attributes, a missing one, and a type with its own __getattr__
        self.assertEqual(read(types.SimpleNamespace(a=1), "a"), (1, False))
        with self.assertRaises(AttributeError):
            read(slice(1), "missing")

        class Hooked:
            __slots__ = ("x",)

            def __getattr__(self, name):
                return "hook"

        h = Hooked()
        h.x = 1
        self.assertEqual(read(h, "x"), (1, False))
        # every node of a traced graph converts the same through the reader
        gm, _ = graphs.traced()["mm_add"]
        node = next(iter(gm.graph.nodes))
        for field in ("name", "op", "target", "meta"):
            self.assertIs(read(node, field)[0], getattr(node, field))

    def test_tensor_impl_reader_reads_what_python_reads(self):
        # Where ctmatch._ctmatch_torch is built, a tensor's metadata is read from its C++
        # TensorImpl: it must give what the Python attributes give, field by field.
        loaded, in_use = ctmatch._ctmatch._tensor_impl_reader()
        if os.environ.get("CTMATCH_EXPECT_TENSOR_IMPL_READER") == "1":
            self.assertTrue(loaded and in_use)

        def f(x, y, i):
            return (x[1:, 2:] * 2, x.t().relu().to(torch.float16), i + 1 > 2, y.contiguous(memory_format=torch.channels_last),
                    x.unsqueeze(0).expand(3, -1, -1), i.view(2, 3)[:, 1])

        gm = make_fx(f, tracing_mode="fake")(torch.randn(4, 5), torch.randn(2, 3, 4, 5), torch.arange(6))
        names = [n.name for n in gm.graph.nodes if n.op != "output"]

        def converted(use_reader):
            ctmatch._ctmatch._tensor_impl_reader(use_reader)
            try:
                g = ctmatch.Graph.from_fx(gm.graph)
            finally:
                ctmatch._ctmatch._tensor_impl_reader(True)
            return {n: g.tensor_meta(n) for n in names}

        with_tensor_meta = converted(False), converted(True)
        for node in gm.graph.nodes:
            node.meta.pop("tensor_meta", None)
        python, reader = converted(False), converted(True)
        self.assertEqual(reader, python)
        # what tensor_meta holds is the same whichever way the value is read
        fields = ("dtype", "shape", "strides", "requires_grad", "device", "memory_format")
        self.assertEqual({n: {k: m[k] for k in fields} for n, m in with_tensor_meta[0].items()},
                         {n: {k: m[k] for k in fields} for n, m in with_tensor_meta[1].items()})
        # the graph has what would tell a wrong read: offsets, zero and transposed strides, dtypes
        seen = {(k, str(v)) for m in reader.values() for k, v in m.items()}
        for expected in [("storage_offset", "7"), ("storage_offset", "1"), ("dtype", "float16"), ("dtype", "bool"),
                         ("dtype", "int64"), ("strides", "['0', '5', '1']"), ("strides", "['1', '5']"),
                         ("memory_format", "channels_last"), ("layout", "strided"), ("device", "cpu")]:
            self.assertIn(expected, seen)

    def test_op_tags_from_the_table_and_from_torch(self):
        gm = make_fx(lambda x: torch.rand_like(x) + x)(torch.randn(2, 3))
        converted = ctmatch.Graph.from_fx(gm.graph)
        rand = [n for n in converted.node_names() if n.startswith("rand_like")][0]
        add = [n for n in converted.node_names() if n.startswith("add")][0]
        # rand_like's tag comes from its OpOverload; add's from the built-in table
        self.assertIn("nondeterministic_seeded", converted.op_tags(rand))
        self.assertIn("pointwise", converted.op_tags(add))
        with self.assertRaises(KeyError):
            converted.op_tags("nonexistent")

    def test_custom_op_schema_comes_from_torch(self):
        gm, _ = graphs.traced()["custom_op"]
        converted = ctmatch.Graph.from_fx(gm.graph)
        self.assertIn("torch.ops.ctmatch_test.my_custom_op.default", str(converted))
        self.assertIn("dtype: torch.float64, flag: True", str(converted))

    def test_str_argument_with_commas_reads_as_fx_prints_it(self):
        # FX prints a str argument bare, so an einsum equation's commas sit between the
        # argument separators; the schema's `str` slot keeps them in the string.
        g = torch.fx.Graph()
        a, b = g.placeholder("a"), g.placeholder("b")
        g.output(g.call_function(torch.ops.aten.einsum.default, ("bij,bkj->bik", [a, b])))
        converted = ctmatch.Graph.from_fx(g)
        converted.verify()
        self.assertEqual(str(converted), str(g))
        self.assertEqual(str(ctmatch.Graph.parse(str(g))), str(converted))

    def test_python_function_targets_are_told_apart_across_conversions(self):
        # Targets are cached for the process by object: a function made after an earlier one
        # was converted and dropped must not be taken for it.
        def graph_calling(fn):
            g = torch.fx.Graph()
            x = g.placeholder("x")
            g.output(g.call_function(fn, (x,)))
            return g

        for i in range(3):
            fn = eval(f"lambda x: x")  # a fresh object each time, often at a freed one's address
            fn.__name__ = fn.__qualname__ = f"fresh_fn_{i}"
            fn.__module__ = "ctmatch_test_targets"
            converted = str(ctmatch.Graph.from_fx(graph_calling(fn)))
            self.assertIn(f"ctmatch_test_targets.fresh_fn_{i}", converted)
            del fn

    def test_call_module_is_refused_by_name(self):
        gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(3, 3)))
        before = str(gm.graph)
        with self.assertRaisesRegex(ValueError, r"node _0: call_module nodes are not supported"):
            ctmatch.Graph.from_fx(gm.graph)
        self.assertEqual(str(gm.graph), before)

    def test_call_method_is_refused(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_method("relu", (x,)))
        with self.assertRaisesRegex(ValueError, r"node relu: call_method"):
            ctmatch.Graph.from_fx(g)

    def test_unknown_value_type_is_a_type_error_naming_the_node(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(torch.ops.aten.add.Tensor, (x, object())))
        with self.assertRaisesRegex(TypeError, r"node add_tensor: a value of type object"):
            ctmatch.Graph.from_fx(g)

    def test_reference_to_a_later_or_foreign_node_names_both(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        relu = g.call_function(torch.ops.aten.relu.default, (x,))
        with g.inserting_before(relu):
            g.call_function(torch.ops.aten.neg.default, (relu,))  # uses a node defined after it
        g.output(relu)
        with self.assertRaisesRegex(TypeError, r"node neg_default: a reference to node relu_default, which is not an "
                                               r"earlier node of this graph"):
            ctmatch.Graph.from_fx(g)
        other = torch.fx.Graph()
        y = other.placeholder("y")
        h = torch.fx.Graph()
        z = h.placeholder("z")
        h.output(h.call_function(torch.ops.aten.add.Tensor, (z, y)))
        with self.assertRaisesRegex(TypeError, r"node add_tensor: a reference to node y, which is not an earlier node"):
            ctmatch.Graph.from_fx(h)
        # Many nodes: references still resolve once the table is past its first sizes.
        big = torch.fx.Graph()
        v = big.placeholder("v")
        for _ in range(300):
            v = big.call_function(torch.ops.aten.relu.default, (v,))
        big.output(v)
        self.assertEqual(len(ctmatch.Graph.from_fx(big)), 302)

    def test_argument_kind_checked_against_the_schema(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(torch.ops.aten._to_copy.default, (x,), {"dtype": "float32"}))
        with self.assertRaisesRegex(ValueError, r"node _to_copy_default: aten._to_copy.default: argument 'dtype' is ScalarType\?, got str"):
            ctmatch.Graph.from_fx(g)

    def test_getitem_index_out_of_range(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        mx = g.call_function(torch.ops.aten.max.dim, (x, 0))
        g.output(g.call_function(operator.getitem, (mx, 2)))
        with self.assertRaisesRegex(ValueError, r"node getitem: getitem index 2 is out of range: .max_dim. \(aten.max.dim\) has 2 outputs, 0 to 1"):
            ctmatch.Graph.from_fx(g)


if __name__ == "__main__":
    unittest.main()
