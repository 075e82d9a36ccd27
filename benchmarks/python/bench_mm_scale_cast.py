"""seedlib.mm_scale_cast on ctmatch's autotuned GEMM beside PyTorch, on the GPU, in one run:
per shape (gemm_anchor's five) and output dtype (float16 as the anchor, float8_e4m3fn,
float8_e5m2), each the median of triton.testing.do_bench (L2 cleared before every run):

  cublas_mm    torch.mm alone (bf16 out): the floor a fused op is measured against
  eager        torch.mm, then * scale, clamp, .to(dtype): separate kernels
  inductor     torch.compile(max-autotune-no-cudagraphs) of the same function: Inductor's own
               fused Triton template (or cuBLAS + a fused epilogue kernel)
  ctmatch      torch.ops.seedlib.mm_scale_cast: the autotuned choice among cuBLAS + ctmatch's
               epilogue and ctmatch's templates with the epilogue fused (choice printed)

and, for cublas_mm and ctmatch, where the time goes at small sizes:
  *_gpu_ms     the kernels alone: a sleep kernel holds the GPU while the host enqueues the call,
               so its host work never shows (as in a CUDA graph or a busy stream)
  *_host_us    the host's time per call (dispatch, Python, launches), the GPU held meanwhile

Each output is checked against float64 first (fp8: within one fp8 step of the float64 result
cast by torch). JSON to $OUT/mm_scale_cast.json.

    python3 bench_mm_scale_cast.py [--shapes MxNxK ...] [--dtypes float16 float8_e4m3fn ...]
"""
import argparse
import json
import os
import statistics
import time

import torch
import triton

import ctmatch.seedlib as seedlib

torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (64, 4096, 4096), (1024, 4096, 1024), (16384, 1024, 4096)]
SCALE, CLAMP = 0.5, True


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")


def gpu_ms(fn, reps=50):
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    events = []
    for _ in range(reps):
        flush.zero_()
        torch.cuda._sleep(1_000_000)  # about 0.5 ms: the call below is enqueued meanwhile
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def host_us(fn, calls=200):
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)  # about 50 ms: the launch queue never pushes back
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def ordinal(t):
    u = t.view(torch.uint8).to(torch.int32)
    return torch.where(u >= 128, -(u - 128), u)


def check(out, a, b, dtype):
    ref = ((a.double() @ b.double()) * SCALE).clamp(-1, 1).float()
    if dtype.itemsize == 1:
        return int((ordinal(out) - ordinal(ref.to(dtype))).abs().max())  # fp8 steps
    return ((out.double() - ref.double()).norm() / ref.double().norm()).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", nargs="*", default=None)
    ap.add_argument("--dtypes", nargs="*", default=["float16", "float8_e4m3fn", "float8_e5m2"])
    args = ap.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes] if args.shapes else SHAPES
    seedlib.register()
    import torch._inductor.config as ic
    ic.max_autotune_gemm_backends = "ATEN,TRITON"
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}
    for (m, n, k) in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        t_mm = bench(lambda: torch.mm(a, b))
        mm_gpu, mm_host = gpu_ms(lambda: torch.mm(a, b)), host_us(lambda: torch.mm(a, b))
        for name in args.dtypes:
            dtype = getattr(torch, name)

            def eager(a, b):
                return ((a @ b) * SCALE).clamp(-1, 1).to(dtype)

            ours = lambda: torch.ops.seedlib.mm_scale_cast(a, b, dtype=dtype, clamp=CLAMP, scale=SCALE)
            out = ours()
            torch.cuda.synchronize()
            err = check(out, a, b, dtype)
            choice = seedlib.last_choice()
            torch._dynamo.reset()
            compiled = torch.compile(eager, mode="max-autotune-no-cudagraphs")
            err_ind = check(compiled(a, b), a, b, dtype)
            row = dict(m=m, n=n, k=k, dtype=name, cublas_mm_ms=t_mm, eager_ms=bench(lambda: eager(a, b)),
                       inductor_ms=bench(lambda: compiled(a, b)), ctmatch_ms=bench(ours), ctmatch_choice=choice,
                       ctmatch_err=err, inductor_err=err_ind, cublas_mm_gpu_ms=mm_gpu, cublas_mm_host_us=mm_host,
                       ctmatch_gpu_ms=gpu_ms(ours), ctmatch_host_us=host_us(ours))
            row["ctmatch_vs_cublas_mm"] = row["ctmatch_ms"] / t_mm
            row["ctmatch_vs_best_other"] = row["ctmatch_ms"] / min(row["eager_ms"], row["inductor_ms"])
            res["rows"].append(row)
            print(json.dumps(row), flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), "mm_scale_cast.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
