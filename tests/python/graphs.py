"""Small torch.fx graphs for the tests: traced with make_fx (ATen ops, as torch.compile's
graphs are), or built by hand where a value kind needs it."""
import math
import operator

import torch
from torch.fx.experimental.proxy_tensor import make_fx

_lib = None


def define_test_ops():
    """mylib::my_custom_op(Tensor x, *, ScalarType dtype, bool flag=False): the forum
    question's op, defined with torch.library (once per process)."""
    global _lib
    if _lib is None:
        _lib = torch.library.Library("ctmatch_test", "DEF")
        _lib.define("my_custom_op(Tensor x, *, ScalarType dtype, bool flag=False) -> Tensor")
        _lib.impl("my_custom_op", lambda x, *, dtype, flag=False: (x.relu() if flag else x).to(dtype), "CPU")
    return torch.ops.ctmatch_test.my_custom_op.default


def traced():
    """name -> (fx GraphModule, example inputs)."""
    x = torch.randn(4, 6)
    w = torch.randn(6, 6)
    b = torch.randn(6)
    ln = torch.nn.LayerNorm(6)
    custom = define_test_ops()
    fns = {
        "view_chain": (lambda x: x.view(2, 12).view(24).view(6, 4) + 1, (x,)),
        "permutes": (lambda x: x.permute(1, 0).permute(1, 0).t().contiguous(), (x,)),
        "casts": (lambda x: x.to(torch.float16).to(torch.float32) * 2, (x,)),
        "gelu": (lambda x: torch.nn.functional.gelu(x, approximate="tanh"), (x,)),
        "mm_add": (lambda x, w, b: torch.mm(x, w) + b, (x, w, b)),
        "layer_norm": (lambda x: ln(x), (x,)),
        "custom_op": (lambda x, w: custom(torch.mm(x, w), dtype=torch.float64, flag=True), (x, w)),
        "reductions": (lambda x: (x.sum(dim=[1], keepdim=True), x.max(dim=0)), (x,)),
    }
    return {name: (make_fx(f)(*args), args) for name, (f, args) in fns.items()}


def symbolic_view_chain():
    """A view chain traced with symbolic sizes: sizes computed by sym_size nodes in the views'
    arguments, SymInts in the values' shapes. (fx GraphModule, example inputs)."""
    f = lambda x: x.view(x.shape[1], -1).view(-1).view(x.shape[0], x.shape[1]).permute(1, 0).permute(1, 0) * 2
    args = (torch.randn(4, 6),)
    return make_fx(f, tracing_mode="symbolic")(*args), args


def every_value_kind():
    """A graph built by hand whose arguments hold every value kind FX carries."""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y")
    aten = torch.ops.aten
    e = g.call_function(aten.empty.memory_format, ([2, 3],),
                        {"dtype": torch.bfloat16, "layout": torch.strided, "device": torch.device("cpu"),
                         "pin_memory": False, "memory_format": torch.contiguous_format})
    c = g.call_function(aten.clamp.default, (x, -math.inf, math.inf))
    n = g.call_function(aten.clamp.default, (y, None, 0.5))
    s = g.call_function(aten.gelu.default, (c,), {"approximate": "tanh"})
    cat = g.call_function(aten.cat.default, ([s, n, x],), {"dim": 0})
    nan = g.call_function(aten.add.Scalar, (cat, math.nan))
    big = g.call_function(aten.add.Scalar, (nan, -(2 ** 62)))
    cl = g.call_function(aten.clone.default, (big,), {"memory_format": torch.channels_last})
    split = g.call_function(aten.split.Tensor, (cl, 2))
    first = g.call_function(operator.getitem, (split, 0))
    g.output((first, (e, [x, None])))
    return g
