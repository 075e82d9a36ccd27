"""ctmatch.seedlib on the GPU (torch >= 2.1 with CUDA; CTest label `cuda`):

- the kernels' output conversion against torch's own ``.to(dtype)`` on the device, bit for bit,
  for float8_e4m3fn, float8_e5m2, bfloat16 and float16, on edge values (±0, subnormals, ties,
  the largest finite values and just past them, ±inf, NaN) and random ones; with
  CTMATCH_FP8_TABLE_OUT set, the fp8 cases are also written as a table (input bits, e4m3fn
  bits, e5m2 bits) for the host test of the same conversion;
- ``seedlib::mm_scale_cast`` (the autotuned GEMM with the fused epilogue) against a float64
  reference for every output dtype, with and without clamp, on odd and large shapes, and with
  a scale that drives values past the fp8 range;
- the counters say which kernel ran.
"""
import os
import struct
import unittest

import torch

import ctmatch.seedlib as seedlib

FP8 = [torch.float8_e4m3fn, torch.float8_e5m2]


def edge_values():
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 448.0, 449.0, 463.9, 464.0, 464.1, 479.9, 480.0, 481.0, 1e4,
            57344.0, 57345.0, 61439.0, 61440.0, 65535.0, 65536.0, 1e6, 3.4e38,
            float("inf"), float("-inf"), float("nan"), -float("nan")]
    # fp8 subnormals and the ties between neighbours around them
    for e in range(-20, 17):
        for m in (1.0, 1.0625, 1.125, 1.1875, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875):
            vals += [m * 2.0 ** e, -m * 2.0 ** e]
    return torch.tensor(vals, dtype=torch.float32)


def bits(t):
    return t.contiguous().view(torch.uint8 if t.element_size() == 1 else torch.int16).cpu()


def fp8_ordinal(u8):
    """A monotone integer for an fp8 bit pattern (sign-magnitude -> two's complement order)."""
    u = u8.to(torch.int32)
    return torch.where(u >= 128, -(u - 128), u)


@unittest.skipUnless(torch.cuda.is_available(), "needs a GPU")
class SeedlibCuda(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        seedlib.register()

    def test_conversion_equals_torch(self):
        g = torch.Generator(device="cuda").manual_seed(0)
        rand = torch.cat([torch.randn(200000, device="cuda", generator=g) * s for s in (1e-3, 1.0, 100.0, 1e5)])
        x = torch.cat([edge_values().cuda(), rand])
        # the table's rows: every edge value and every 400th random one (all four scales)
        n_edge = edge_values().numel()
        rows = torch.cat([torch.arange(n_edge), n_edge + torch.arange(0, rand.numel(), 400)])
        table = []
        for dtype in FP8 + [torch.bfloat16, torch.float16]:
            ours = seedlib.cast_from_float(x, dtype)
            theirs = x.to(dtype)
            diff = (bits(ours) != bits(theirs)).nonzero().flatten()
            self.assertEqual(diff.numel(), 0, f"{dtype}: {diff.numel()} differ, first inputs "
                             f"{x[diff[:5].cuda()].tolist() if diff.numel() else []}")
            if dtype in FP8:
                table.append(bits(theirs)[rows])
        out = os.environ.get("CTMATCH_FP8_TABLE_OUT")
        if out:
            inputs = x.cpu()[rows]
            with open(out, "w") as f:
                f.write("# float32 input bits, torch's float8_e4m3fn bits, float8_e5m2 bits (torch "
                        f"{torch.__version__}, .to() on {torch.cuda.get_device_name()})\n")
                for v, a, b in zip(inputs.tolist(), table[0].tolist(), table[1].tolist()):
                    f.write(f"{struct.unpack('<I', struct.pack('<f', v))[0]:08x} {a:02x} {b:02x}\n")

    def check(self, m, n, k, dtype, clamp, scale):
        g = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
        before = seedlib.counters()["calls"]
        ours = torch.ops.seedlib.mm_scale_cast(a, b, dtype=dtype, clamp=clamp, scale=scale)
        self.assertEqual(seedlib.counters()["calls"], before + 1, "the CUDA kernel did not run")
        self.assertEqual(ours.dtype, dtype)
        self.assertEqual(tuple(ours.shape), (m, n))
        ref = (a.double() @ b.double()) * scale
        if clamp:
            ref = ref.clamp(-1, 1)
        ref = ref.float()
        where = f"{m}x{n}x{k} {dtype} clamp={clamp} scale={scale}"
        if dtype in FP8:
            d = (fp8_ordinal(bits(ours)) - fp8_ordinal(bits(ref.to(dtype)))).abs()
            self.assertLessEqual(int(d.max()), 1, where + ": more than one fp8 step from the reference")
            self.assertGreater(float((d == 0).double().mean()), 0.95, where)
        else:
            err = ((ours.double() - ref.double()).norm() / ref.double().norm()).item()
            self.assertLess(err, 1e-2, where)
            self.assertTrue(torch.isfinite(ours).all().item(), where)

    def test_mm_scale_cast_every_dtype(self):
        for dtype in [torch.float32, torch.float16, torch.bfloat16] + FP8:
            for clamp in (False, True):
                for (m, n, k) in ((67, 45, 33), (192, 136, 264), (1024, 1024, 512)):
                    self.check(m, n, k, dtype, clamp, 0.5)

    def test_mm_scale_cast_past_the_fp8_range(self):
        # scale 40 puts most |values| of a k=256 product (std 16) past 448 and many past 57344/40
        for dtype in FP8:
            self.check(256, 256, 256, dtype, False, 40.0)
            self.check(256, 256, 256, dtype, False, 4000.0)

    def test_non_bf16_operands_use_the_reference(self):
        a = torch.randn(64, 32, device="cuda")
        b = torch.randn(32, 16, device="cuda")
        before = seedlib.counters()["calls"]
        out = torch.ops.seedlib.mm_scale_cast(a, b, dtype=torch.float32, clamp=True, scale=2.0)
        self.assertEqual(seedlib.counters()["calls"], before)
        torch.testing.assert_close(out, (a @ b * 2.0).clamp(-1, 1))


if __name__ == "__main__":
    unittest.main()
