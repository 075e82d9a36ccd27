// ctmatch._ctmatch_torch: a tensor's metadata read from its C++ TensorImpl, handed to the
// graph conversion as a C interface in a capsule (include/ctmatch/python/tensor_impl_reader.hpp
// says why). The one file built against torch's C++ headers and libraries; a plain CPython
// module, so that torch's own pybind11 and ABI stay inside it.
#include <torch/csrc/Device.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Layout.h>
#include <torch/csrc/autograd/python_variable.h>

#include <ctmatch/python/tensor_impl_reader.hpp>

#ifndef CTMATCH_TORCH_VERSION
#error "CTMATCH_TORCH_VERSION (torch.__version__ of the torch built against) is set by python/CMakeLists.txt"
#endif

namespace {

using ctmatch::python::TensorFacts;
using ctmatch::python::TensorImplReader;

int read(PyObject* object, TensorFacts* out) noexcept {
  // Any subclass of torch.Tensor (FakeTensor, Parameter, ...) has THPVariable's layout.
  if (!THPVariableClass || !PyObject_TypeCheck(object, reinterpret_cast<PyTypeObject*>(THPVariableClass))) return 0;
  try {
    const c10::TensorImpl* impl = THPVariable_Unpack(object).unsafeGetTensorImpl();
    // Symbolic sizes need the Python SymInts (kept for writing back); a layout without
    // strides (sparse) leaves them to the Python path too.
    if (impl->has_symbolic_sizes_strides() || impl->layout() != c10::kStrided) return 0;
    const c10::IntArrayRef sizes = impl->sizes();
    const c10::IntArrayRef strides = impl->strides();
    out->scalar_type = static_cast<int>(c10::typeMetaToScalarType(impl->dtype()));
    out->layout = static_cast<int>(impl->layout());
    out->requires_grad = impl->requires_grad();
    out->storage_offset = impl->storage_offset();
    out->ndim = sizes.size();
    out->sizes = sizes.data();
    out->strides = strides.data();
    return strides.size() == sizes.size() ? 1 : 0;
  } catch (...) {  // a custom sizes policy that throws, a dtype with no ScalarType
    return 0;
  }
}

int dtype_value(PyObject* dtype) {
  return THPDtype_Check(dtype) ? static_cast<int>(reinterpret_cast<THPDtype*>(dtype)->scalar_type) : -1;
}

int layout_value(PyObject* layout) {
  return THPLayout_Check(layout) ? static_cast<int>(reinterpret_cast<THPLayout*>(layout)->layout) : -1;
}

int device_value(PyObject* device) {
  if (!THPDevice_Check(device)) return -1;
  const c10::Device d = reinterpret_cast<THPDevice*>(device)->device;
  return (static_cast<int>(d.type()) << 8) | (static_cast<int>(d.index()) & 0xff);
}

TensorImplReader reader{TensorImplReader::current_version, &read, &dtype_value, &layout_value, &device_value,
                        CTMATCH_TORCH_VERSION};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_ctmatch_torch",
                          "ctmatch: tensor metadata read from torch's C++ TensorImpl (internal)", -1,
                          nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__ctmatch_torch() {
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  PyObject* capsule = PyCapsule_New(&reader, ctmatch::python::tensor_impl_reader_capsule, nullptr);
  if (!capsule || PyModule_AddObject(m, "reader", capsule) < 0) {
    Py_XDECREF(capsule);
    Py_DECREF(m);
    return nullptr;
  }
  PyModule_AddStringConstant(m, "torch_version", CTMATCH_TORCH_VERSION);
  return m;
}
