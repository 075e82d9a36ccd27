// ctmatch._ctmatch_cuda: the GPU kernels for Python (built when CUDA is found). The torch ops
// that call it are defined in ctmatch/seedlib.py; this module takes raw pointers and a stream,
// so it needs no libtorch.
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "cuda_ops.hpp"

namespace py = pybind11;
namespace ops = ctmatch::python::cuda_ops;

PYBIND11_MODULE(_ctmatch_cuda, m) {
  m.doc() = "ctmatch's autotuned GEMM with the fused scale_cast epilogue, by pointer and stream";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def(
      "mm_scale_cast",
      [](std::uintptr_t a, std::uintptr_t b, std::uintptr_t out, std::int64_t mm, std::int64_t n, std::int64_t k,
         std::int64_t lda, std::int64_t ldb, const std::string& dtype, bool clamp, double scale, std::uintptr_t stream,
         int device) {
        py::gil_scoped_release release;  // tuning takes a while on a problem's first call
        return ops::mm_scale_cast({a, b, out, mm, n, k, lda, ldb, dtype, clamp, scale, stream, device});
      },
      py::arg("a"), py::arg("b"), py::arg("out"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("lda"),
      py::arg("ldb"), py::arg("dtype"), py::arg("clamp"), py::arg("scale"), py::arg("stream"), py::arg("device"),
      "out[m, n] = cast<dtype>(clamp?((a @ b) * scale)) with the autotuned GEMM; returns the choice's label");
  m.def("cast_from_float", &ops::cast_from_float, py::arg("src"), py::arg("dst"), py::arg("n"), py::arg("dtype"),
        py::arg("stream"), "dst[i] = cast<dtype>(src[i]) with the kernels' own conversion");
  m.def("set_cache", &ops::set_cache, py::arg("path"), "The autotune cache file ('' for none)");
  m.def("counters", [] {
    const auto c = ops::counters();
    py::dict d;
    d["calls"] = c.calls;
    d["ctmatch_kernel_calls"] = c.ctmatch_kernel_calls;
    d["problems_tuned"] = c.problems_tuned;
    return d;
  }, "Calls of mm_scale_cast since import, those that ran ctmatch's own kernels, problems tuned");
}
