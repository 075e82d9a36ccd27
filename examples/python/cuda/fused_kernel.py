"""The seed's fused op on ctmatch's kernel, under torch.compile (needs a GPU and torch with
Inductor).

A bfloat16 model shaped like the seed MLP (mm -> seedlib.scale_cast(dtype, clamp, scale) ->
gelu(tanh), LAYERS times, then a row sum), compiled three ways:

  eager                    PyTorch, op by op
  inductor max-autotune    torch.compile(mode="max-autotune"), Inductor's own choices
  ctmatch                  torch.compile with ctmatch.inductor.Pass(rules="bench") as the
                           post-grad custom pass: mm -> scale_cast becomes seedlib.mm_scale_cast,
                           whose CUDA kernel (ctmatch.seedlib) is ctmatch's autotuned GEMM with
                           the epilogue fused

It checks that the ctmatch program called ctmatch's kernel (the kernel's counters) and that its
output equals eager's within bfloat16 tolerance, and prints the three times (CUDA events,
median of REPS runs, L2 flushed before each).

    python3 fused_kernel.py [--size N] [--layers L] [--dtype bfloat16|float8_e4m3fn|...]
"""
import argparse
import sys

import torch

import ctmatch
import ctmatch.inductor
import ctmatch.seedlib

# The bench rules also rewrite gelu(x, approximate="tanh") into bench.gelu_tanh(x): the op
# the rewrite produces must exist in torch (with a fake kernel, for torch.compile).
_bench = torch.library.Library("bench", "FRAGMENT")
_bench.define("gelu_tanh(Tensor x) -> Tensor")
_bench.impl("gelu_tanh", lambda x: torch.nn.functional.gelu(x, approximate="tanh"), "CompositeExplicitAutograd")
torch.library.register_fake("bench::gelu_tanh", lambda x: torch.empty_like(x), lib=_bench)


class SeedMLP(torch.nn.Module):
    def __init__(self, layers, d, dtype):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.ws = torch.nn.ParameterList(
            [torch.nn.Parameter((torch.randn(d, d, generator=g) / d**0.5).to(torch.bfloat16), requires_grad=False)
             for _ in range(layers)])
        self.dtype = dtype

    def forward(self, x):
        for i, w in enumerate(self.ws):
            h = torch.mm(x, w)
            x = torch.ops.seedlib.scale_cast(h, dtype=self.dtype, clamp=(i % 2 == 0), scale=0.5)
            x = torch.nn.functional.gelu(x.to(torch.bfloat16), approximate="tanh")
        return x.sum(dim=[1], keepdim=True)


def time_ms(fn, reps):
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    times = []
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("fused_kernel: needs a GPU")
        return 1
    ctmatch.seedlib.register()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    model = SeedMLP(args.layers, args.size, dtype).cuda()
    x = torch.randn(args.size, args.size, device="cuda").to(torch.bfloat16)

    with torch.no_grad():
        eager = model(x)
        torch._dynamo.reset()
        inductor = torch.compile(model, mode="max-autotune")
        out_inductor = inductor(x)

        torch._dynamo.reset()
        torch._inductor.config.post_grad_custom_post_pass = ctmatch.inductor.Pass(rules="bench")
        ours = torch.compile(model)
        before = ctmatch.seedlib.counters()
        out_ours = ours(x)
        torch.cuda.synchronize()
        after = ctmatch.seedlib.counters()
        torch._inductor.config.post_grad_custom_post_pass = None

        calls = after["calls"] - before["calls"]
        own = after["ctmatch_kernel_calls"] - before["ctmatch_kernel_calls"]
        print(f"model: x {args.size}x{args.size} bf16, {args.layers} layers, scale_cast to {args.dtype}")
        print(f"ctmatch program: {calls} calls of seedlib.mm_scale_cast's CUDA kernel "
              f"({own} ran ctmatch's own templates, {calls - own} cuBLAS + ctmatch's epilogue); "
              f"{after['problems_tuned']} problem(s) tuned")
        ok = calls == args.layers
        for name, out in (("inductor max-autotune", out_inductor), ("ctmatch", out_ours)):
            err = ((out.double() - eager.double()).norm() / eager.double().norm()).item()
            print(f"{name}: relative error against eager {err:.2e}")
            ok &= err < 2e-2
        t_eager = time_ms(lambda: model(x), args.reps)
        t_inductor = time_ms(lambda: inductor(x), args.reps)
        t_ours = time_ms(lambda: ours(x), args.reps)
        print(f"time (median of {args.reps}, L2 flushed): eager {t_eager:.3f} ms, inductor max-autotune "
              f"{t_inductor:.3f} ms, ctmatch {t_ours:.3f} ms "
              f"({t_eager / t_ours:.2f}x eager, {t_inductor / t_ours:.2f}x inductor)")
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
