"""The forum question end to end: a custom op with a dtype and a bool kwarg, defined here with
torch.library; a rule written in C++ (seed_question.cpp, built by ctmatch_add_python_rules as
the module seed_question_rules) fuses it with the mm before it, passing the dtype and the bool
on and forwarding the kwarg the pattern never names. Under torch.compile (torch with Inductor)
it runs as Inductor's post-grad custom pass; with an older torch, on a make_fx graph. Either
way the rewritten program must compute what eager does.

    PYTHONPATH=build/python python3 examples/python/seed_question.py
"""
import sys

import torch

import ctmatch
import ctmatch.inductor
import seed_question_rules

lib = torch.library.Library("mylib", "DEF")
lib.define("my_custom_op(Tensor x, *, ScalarType dtype, bool flag=False, float scale=1.0) -> Tensor")
lib.define("my_fused_op(Tensor a, Tensor b, *, ScalarType dtype, bool flag=False, float scale=1.0) -> Tensor")


def my_custom_op(x, *, dtype, flag=False, scale=1.0):
    return ((x.relu() if flag else x) * scale).to(dtype)


def my_fused_op(a, b, *, dtype, flag=False, scale=1.0):
    return my_custom_op(torch.mm(a, b), dtype=dtype, flag=flag, scale=scale)


for name, fn in [("my_custom_op", my_custom_op), ("my_fused_op", my_fused_op)]:
    lib.impl(name, fn, "CompositeExplicitAutograd")
    if hasattr(torch.library, "register_fake"):  # torch 2.4 on: shapes under torch.compile
        torch.library.register_fake(f"mylib::{name}", lambda *a, _fn=fn, **kw: _fn(*a, **kw))


def model(x, w):
    return torch.ops.mylib.my_custom_op(torch.mm(x, w), dtype=torch.float64, flag=True, scale=0.5)


def fused_nodes(graph):
    return [n for n in graph.nodes if n.target == torch.ops.mylib.my_fused_op.default]


def main():
    x, w = torch.randn(8, 16), torch.randn(16, 4)
    eager = model(x, w)
    has_inductor = hasattr(torch, "compile") and hasattr(torch._inductor.config, "post_grad_custom_post_pass")
    if has_inductor:
        seen = []

        class Pass(ctmatch.inductor.Pass):
            def __call__(self, graph):
                super().__call__(graph)
                seen.extend((n.name, dict(n.kwargs)) for n in fused_nodes(graph))

        torch._inductor.config.post_grad_custom_post_pass = Pass(rules=seed_question_rules.rules)
        torch._dynamo.reset()
        out = torch.compile(model)(x, w)
        how = "torch.compile (Inductor post-grad custom pass)"
    else:
        from torch.fx.experimental.proxy_tensor import make_fx

        gm = make_fx(model)(x, w)
        stats = ctmatch.apply(gm, rules=seed_question_rules.rules)
        gm.graph.lint()
        gm.recompile()
        out = gm(x, w)
        seen = [(n.name, dict(n.kwargs)) for n in fused_nodes(gm.graph)]
        how = f"make_fx + ctmatch.apply ({stats['matches']})"
    print(f"torch {torch.__version__}: {how}")
    print("fused nodes:", seen)
    ok = len(seen) == 1 and seen[0][1] == {"dtype": torch.float64, "flag": True, "scale": 0.5}
    ok = ok and out.dtype == torch.float64 and torch.allclose(out, eager)
    print("output equals eager:", torch.allclose(out, eager))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
