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
output equals eager's within bfloat16 tolerance, and prints each program's times: its GPU time
(CUDA events, median of REPS runs, L2 flushed before each, the host's launch latency hidden),
its time per run back to back, and the host's time to enqueue it.

    python3 fused_kernel.py [--size N] [--layers L] [--dtype bfloat16|float8_e4m3fn|...]
"""
import argparse
import sys
import time

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


def gpu_ms(fn, reps):
    """The program's GPU time: median over REPS runs, L2 flushed before each. A sleep on the
    GPU after the flush lets the host enqueue the whole program before its start event, so
    that the time is the GPU's and not the host's launch latency (as bench_mm_scale_cast.py
    measures); host_ms says what the host takes."""
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    events = []
    for _ in range(reps):
        flush.zero_()
        torch.cuda._sleep(4_000_000)  # about 2 ms, more than the host takes to enqueue a program
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in events)
    return times[len(times) // 2]


def host_ms(fn, reps):
    """The host's time to enqueue one run of the program (median), the GPU kept busy meanwhile."""
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        torch.cuda._sleep(20_000_000)  # about 10 ms: the launch queue never pushes back
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
    return sorted(times)[len(times) // 2]


def back_to_back_ms(fn, reps):
    """Time per run with REPS runs enqueued back to back (no flush): what a loop calling the
    program sees, host and GPU overlapped."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


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
        programs = (("eager", lambda: model(x)), ("inductor max-autotune", lambda: inductor(x)),
                    ("ctmatch", lambda: ours(x)))
        gpu = {name: gpu_ms(fn, args.reps) for name, fn in programs}
        loop = {name: back_to_back_ms(fn, args.reps) for name, fn in programs}
        host = {name: host_ms(fn, args.reps) for name, fn in programs}
        print(f"time (GPU, median of {args.reps}, L2 flushed): eager {gpu['eager']:.3f} ms, inductor max-autotune "
              f"{gpu['inductor max-autotune']:.3f} ms, ctmatch {gpu['ctmatch']:.3f} ms "
              f"({gpu['eager'] / gpu['ctmatch']:.2f}x eager, {gpu['inductor max-autotune'] / gpu['ctmatch']:.2f}x inductor)")
        print("time (back to back, per run): " + ", ".join(f"{n} {t:.3f} ms" for n, t in loop.items()))
        print("time (host, to enqueue a run): " + ", ".join(f"{n} {t:.3f} ms" for n, t in host.items()))
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
