"""The seed's ops as torch ops, with ctmatch's autotuned GEMM as the CUDA kernel of the fused one.

    import ctmatch.seedlib
    ctmatch.seedlib.register()          # defines what is missing, installs the CUDA kernel

- ``seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0)``:
  defined here with a reference implementation unless the program defined it already.
- ``seedlib::mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False,
  float scale=1.0)``: what ctmatch's ``bench`` rules rewrite ``mm -> scale_cast`` into. It gets
  a fake (meta) implementation, so that ``torch.compile`` can trace it, a reference one for
  every device, and on CUDA ctmatch's kernel: the problem's autotuned choice among cuBLAS +
  epilogue and ctmatch's own GEMM templates with the epilogue fused, run on the current stream.
  The kernel takes 2-d bfloat16 operands with unit column stride; anything else runs the
  reference implementation.

``counters()`` says how many calls ran the CUDA kernel, and how many of those ran one of
ctmatch's own templates rather than cuBLAS + epilogue.
"""
import threading

import torch

_SCHEMAS = {
    "scale_cast": "scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor",
    "mm_scale_cast": "mm_scale_cast(Tensor a, Tensor b, *, ScalarType dtype, bool clamp=False, "
                     "float scale=1.0) -> Tensor",
}
# torch >= 2.4 spells it register_fake; 2.1-2.3 impl_abstract.
_register_fake = getattr(torch.library, "register_fake", None) or getattr(torch.library, "impl_abstract", None)
_lock = threading.Lock()
_libs = []  # the Library objects must stay alive: deleting one unregisters its definitions
_registered = False
_last_choice = None


def _defined(name):
    try:
        getattr(torch.ops.seedlib, name)
        return True
    except (AttributeError, RuntimeError):
        return False


def scale_cast_reference(x, *, dtype, clamp=False, scale=1.0):
    y = x * scale
    return (y.clamp(-1, 1) if clamp else y).to(dtype)


def mm_scale_cast_reference(a, b, *, dtype, clamp=False, scale=1.0):
    return scale_cast_reference(torch.mm(a, b), dtype=dtype, clamp=clamp, scale=scale)


_cuda_module = None
_dtype_names = {}  # torch.dtype -> its name without "torch."


def _kernel():
    global _cuda_module
    if _cuda_module is None:
        from . import _ctmatch_cuda  # built only where CUDA was found
        _cuda_module = _ctmatch_cuda
    return _cuda_module


def _dtype_name(dtype):
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype).removeprefix("torch.")
    return name


def _mm_scale_cast_cuda(a, b, *, dtype, clamp=False, scale=1.0):
    if (a.dim() != 2 or b.dim() != 2 or a.dtype != torch.bfloat16 or b.dtype != torch.bfloat16
            or a.stride(1) != 1 or b.stride(1) != 1 or a.shape[1] != b.shape[0] or min(a.shape + b.shape) == 0):
        return mm_scale_cast_reference(a, b, dtype=dtype, clamp=clamp, scale=scale)
    m, k = a.shape
    n = b.shape[1]
    device = a.device
    out = torch.empty((m, n), dtype=dtype, device=device)
    # The kernel makes the operands' device current itself: no device switch here, whose cost
    # would show beside a small GEMM.
    stream = torch.cuda.current_stream(device).cuda_stream
    global _last_choice
    _last_choice = _kernel().mm_scale_cast(a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, a.stride(0),
                                           b.stride(0), _dtype_name(dtype), bool(clamp), float(scale), stream,
                                           device.index)
    return out


def register():
    """Defines the seedlib ops the program has not defined and installs the CUDA kernel of
    mm_scale_cast. Idempotent."""
    global _registered
    with _lock:
        if _registered:
            return
        if _register_fake is None:
            raise RuntimeError("ctmatch.seedlib needs torch >= 2.1 (torch.library fragments and fake kernels); "
                               "this is torch " + torch.__version__)
        lib = torch.library.Library("seedlib", "FRAGMENT")
        _libs.append(lib)
        for name, schema in _SCHEMAS.items():
            if not _defined(name):
                lib.define(schema)
                ref = scale_cast_reference if name == "scale_cast" else mm_scale_cast_reference
                lib.impl(name, ref, "CompositeExplicitAutograd")
                if name == "mm_scale_cast":
                    _register_fake("seedlib::mm_scale_cast", _fake_mm_scale_cast, lib=lib)
                else:
                    _register_fake("seedlib::scale_cast", _fake_scale_cast, lib=lib)
        lib.impl("mm_scale_cast", _mm_scale_cast_cuda, "CUDA")
        _registered = True


def _fake_scale_cast(x, *, dtype, clamp=False, scale=1.0):
    return torch.empty_like(x, dtype=dtype)


def _fake_mm_scale_cast(a, b, *, dtype, clamp=False, scale=1.0):
    return a.new_empty((a.shape[0], b.shape[1]), dtype=dtype)


def counters():
    """{'calls', 'ctmatch_kernel_calls', 'problems_tuned'} of the CUDA kernel since import."""
    return dict(_kernel().counters())


def last_choice():
    """The GEMM choice the last CUDA call ran (`cuda::mm_wgmma 128x256x64 s4 w8 g8`, `aten::mm`)."""
    return _last_choice


def set_cache(path):
    """The autotune cache file for problems not yet tuned ('' for none)."""
    _kernel().set_cache(path)


def cast_from_float(src, dtype):
    """``src`` (a float32 cuda tensor) cast to ``dtype`` by the kernels' own conversion."""
    src = src.contiguous()
    out = torch.empty(src.shape, dtype=dtype, device=src.device)
    _kernel().cast_from_float(src.data_ptr(), out.data_ptr(), src.numel(), _dtype_name(dtype),
                              torch.cuda.current_stream().cuda_stream)
    return out
