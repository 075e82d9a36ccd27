#pragma once
// Reading a tensor's metadata from its C++ TensorImpl instead of its Python attributes.
//
// Why: every attribute of a fake tensor (meta['val'] under torch.compile and torch.export) is
// a Python call, some a dispatch: dtype, shape, stride() and the rest cost 0.25-0.5 µs each on
// torch 2.11, more than the whole rest of converting a node. The TensorImpl holds them as
// plain fields. Reading them needs torch's C++ headers and libraries, which only the
// extension `ctmatch._ctmatch_torch` (python/src/torch_module.cpp) is built against, when
// they are found; it is imported once torch is, and only if it was built for the torch that
// is running. It hands this C interface over in a capsule, so that the modules that convert
// graphs (ctmatch._ctmatch and every user rule module) never link torch: without the
// extension, or for a tensor it cannot read (symbolic sizes, a layout without strides),
// the conversion reads the Python attributes as before.
#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctmatch::python {

/// What the TensorImpl says, torch's enum values as ints. `sizes` and `strides` point into
/// the TensorImpl: valid while the tensor lives and is not resized.
struct TensorFacts {
  int scalar_type = -1;  // c10::ScalarType
  int layout = -1;       // c10::Layout
  bool requires_grad = false;
  std::int64_t storage_offset = 0;
  std::size_t ndim = 0;
  const std::int64_t* sizes = nullptr;
  const std::int64_t* strides = nullptr;
};

/// The capsule's contents (`ctmatch._ctmatch_torch.reader`). Fields are only ever added at
/// the end, with a new version.
struct TensorImplReader {
  static constexpr int current_version = 1;
  int version = current_version;
  /// 1 with `out` filled for a tensor (of any subclass) whose sizes and strides are concrete
  /// integers; 0 for anything else, with no Python error set.
  int (*read)(PyObject* object, TensorFacts* out) = nullptr;
  /// The c10 value of a torch.dtype / torch.layout object; -1 for another object.
  int (*dtype_value)(PyObject* dtype) = nullptr;
  int (*layout_value)(PyObject* layout) = nullptr;
  /// A torch.device object's c10::Device as (type << 8) | (index & 0xff) (index -1: 0xff);
  /// -1 for another object.
  int (*device_value)(PyObject* device) = nullptr;
  /// torch.__version__ of the build: the extension is used only under that very torch.
  const char* torch_version = nullptr;
};

inline constexpr const char* tensor_impl_reader_capsule = "ctmatch._ctmatch_torch.reader";

/// The reader, or nullptr where the extension is missing, fails to load, or was built for
/// another torch than `torch_version` (the running one). Called once torch is imported.
inline const TensorImplReader* load_tensor_impl_reader(const char* torch_version) {
  PyObject* module = PyImport_ImportModule("ctmatch._ctmatch_torch");
  if (!module) {
    PyErr_Clear();
    return nullptr;
  }
  Py_DECREF(module);  // the import system keeps it loaded
  auto* reader = static_cast<const TensorImplReader*>(PyCapsule_Import(tensor_impl_reader_capsule, 0));
  if (!reader) {
    PyErr_Clear();
    return nullptr;
  }
  if (reader->version != TensorImplReader::current_version || !reader->torch_version ||
      std::string_view(reader->torch_version) != torch_version)
    return nullptr;
  return reader;
}

}  // namespace ctmatch::python
