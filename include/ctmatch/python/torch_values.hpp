#pragma once
// Values between torch.fx and ctmatch: a Python object an FX node carries (an fx.Node, a
// number, None, a string, torch.dtype / device / layout / memory_format, a list or tuple of
// these, a SymInt) to a ctmatch::Value, and back. The torch objects are looked up once per
// process and compared by identity, so converting a node costs a few type checks.
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../graph.hpp"
#include "../graph/value_print.hpp"
#include "tensor_impl_reader.hpp"

namespace ctmatch::python {

namespace py = pybind11;

/// A str interned as Python interns identifiers, so that it is the very object FX uses.
inline py::str interned(const char* s) { return py::reinterpret_steal<py::str>(PyUnicode_InternFromString(s)); }

/// `s` as UTF-8: the str's own buffer (cached in the str), valid while `s` lives.
inline std::string_view utf8_view(py::handle s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n);
  if (!p) throw py::error_already_set();
  return {p, static_cast<std::size_t>(n)};
}
inline std::string utf8(py::handle s) { return std::string(utf8_view(s)); }

/// Thrown for a value ctmatch cannot hold: becomes a Python TypeError naming the node.
struct UnsupportedValue : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The torch objects the conversions compare against, imported on first use (not at import
/// of ctmatch: `import ctmatch` does not import torch).
struct Torch {
  py::module_ torch, ops;
  py::object node_type, dtype_type, device_type, layout_type, memory_format_type, symint_type;
  // torch.fx's TensorMetadata (a named tuple: meta['tensor_meta']) and where its fields sit, so
  // that they are read as tuple items rather than by name; -1 where this torch lacks a field.
  py::object tensor_metadata_type;
  struct {
    Py_ssize_t shape = -1, dtype = -1, requires_grad = -1, stride = -1;
  } tensor_metadata_field;
  std::unordered_map<PyObject*, ScalarType> dtypes;
  std::unordered_map<PyObject*, Layout> layouts;
  std::unordered_map<PyObject*, MemoryFormat> memory_formats;
  std::vector<py::object> dtype_objects, layout_objects, memory_format_objects;  // by enum value
  bool old_users_spelling = false;  // torch before 2.1 prints [#users=N]
  static constexpr std::size_t max_devices_seen = 8;
  mutable std::vector<std::pair<py::object, Device>> devices_seen;  // see device_of
  mutable std::vector<std::pair<int, Device>> device_values_seen;   // by the reader's device_value
  // Attribute names, made once (kept here, never destroyed: a static py::str would be
  // released after the interpreter has finalized, and crash the process at exit).
  py::str op = interned("op"), name = interned("name"), target = interned("target"), args = interned("args"),
          kwargs = interned("kwargs"), meta = interned("meta"), val = interned("val"),
          tensor_meta = interned("tensor_meta"), dtype = interned("dtype"), shape = interned("shape"),
          stride = interned("stride"), storage_offset = interned("storage_offset"), device = interned("device"),
          fake_device = interned("fake_device"),
          layout = interned("layout"), requires_grad = interned("requires_grad");
  // Node kinds, interned as FX's own literals are: compared by identity first.
  py::str placeholder = interned("placeholder"), get_attr = interned("get_attr"),
          call_function = interned("call_function"), output = interned("output");
  // What a replacement takes over from the root whose uses it takes: its value, and where it
  // came from.
  std::vector<py::str> inherited_meta{interned("val"), interned("tensor_meta"), interned("stack_trace"),
                                      interned("nn_module_stack"), interned("source_fn_stack")};

  /// A torch.device as a Device. str() and parsing cost more than the rest of a node's
  /// metadata, and fake tensors carry a fresh device object each; a graph has one or two
  /// devices. So the devices parsed so far are kept with an object of each, and a device equal
  /// to one of them (torch.device's `==` compares the C++ devices: no Python runs) takes its
  /// value. (Keying by the object's bytes failed where torch.device carries more than its
  /// c10::Device, as on torch 2.11 with Python 3.12: every device was parsed again.) With the
  /// TensorImpl reader the c10::Device itself is the key: no comparison calls at all.
  Device device_of(py::handle d) const {
    const int value = tensor_impl() ? tensor_impl()->device_value(d.ptr()) : -1;
    if (value >= 0) {
      for (const auto& [seen, device] : device_values_seen)
        if (seen == value) return device;
    } else {
      for (const auto& [object, device] : devices_seen)
        if (object.ptr() == d.ptr()) return device;
      if (Py_TYPE(d.ptr()) == reinterpret_cast<PyTypeObject*>(device_type.ptr())) {
        for (const auto& [object, device] : devices_seen) {
          int equal = PyObject_RichCompareBool(d.ptr(), object.ptr(), Py_EQ);
          if (equal == 1) return device;
          if (equal < 0) PyErr_Clear();
        }
      }
    }
    std::string s = py::str(d);
    auto parsed = parse_device(s);
    if (!parsed) throw UnsupportedValue("a device ctmatch does not know: " + s);
    if (value >= 0 && device_values_seen.size() < max_devices_seen) device_values_seen.emplace_back(value, *parsed);
    else if (value < 0 && devices_seen.size() < max_devices_seen)
      devices_seen.emplace_back(py::reinterpret_borrow<py::object>(d), *parsed);
    return *parsed;
  }

  /// The TensorImpl reader (tensor_impl_reader.hpp), or nullptr where there is none or it is
  /// switched off (`use_tensor_impl`: the tests compare both ways of reading).
  const TensorImplReader* tensor_impl() const { return use_tensor_impl ? tensor_impl_ : nullptr; }
  bool has_tensor_impl_reader() const { return tensor_impl_ != nullptr; }
  bool use_tensor_impl = true;
  /// ctmatch's dtype / layout for torch's c10 enum value, as the reader gives them.
  std::optional<ScalarType> dtype_of_c10(int v) const { return from_c10<ScalarType>(c10_dtypes_, v); }
  std::optional<Layout> layout_of_c10(int v) const { return from_c10<Layout>(c10_layouts_, v); }

  static Torch& get() {
    static Torch* t = new Torch();  // never destroyed: see the attribute names above
    return *t;
  }

 private:
  const TensorImplReader* tensor_impl_ = nullptr;
  std::array<int, 128> c10_dtypes_{}, c10_layouts_{};  // c10 value -> ctmatch enum value, -1: none
  template <class E, std::size_t N>
  static std::optional<E> from_c10(const std::array<int, N>& table, int v) {
    if (v < 0 || static_cast<std::size_t>(v) >= N || table[static_cast<std::size_t>(v)] < 0) return std::nullopt;
    return static_cast<E>(table[static_cast<std::size_t>(v)]);
  }

  /// Loads the reader built for this torch, and maps torch's enum values to ctmatch's through
  /// the dtype and layout objects both name.
  void connect_tensor_impl_reader(const std::string& version) {
    c10_dtypes_.fill(-1);
    c10_layouts_.fill(-1);
    tensor_impl_ = python::load_tensor_impl_reader(version.c_str());
    if (!tensor_impl_) return;
    auto map = [](auto& table, const std::vector<py::object>& objects, int (*value)(PyObject*)) {
      for (std::size_t i = 0; i < objects.size(); ++i)
        if (!objects[i].is_none())
          if (int v = value(objects[i].ptr()); v >= 0 && static_cast<std::size_t>(v) < table.size())
            table[static_cast<std::size_t>(v)] = static_cast<int>(i);
    };
    map(c10_dtypes_, dtype_objects, tensor_impl_->dtype_value);
    map(c10_layouts_, layout_objects, tensor_impl_->layout_value);
  }

  Torch() {
    torch = py::module_::import("torch");
    ops = torch.attr("ops");
    node_type = py::module_::import("torch.fx").attr("Node");
    dtype_type = torch.attr("dtype");
    device_type = torch.attr("device");
    layout_type = torch.attr("layout");
    memory_format_type = torch.attr("memory_format");
    // torch 1.x names the type of a symbolic int (symbolic make_fx) SymIntNode.
    symint_type = py::getattr(torch, "SymInt", py::getattr(torch, "SymIntNode", py::none()));
    for (std::size_t i = 0; i < scalar_type_count; ++i) {
      py::object o = py::getattr(torch, py::str(std::string(torch_name(static_cast<ScalarType>(i)))), py::none());
      dtype_objects.push_back(o);
      if (!o.is_none()) dtypes.emplace(o.ptr(), static_cast<ScalarType>(i));
    }
    for (std::size_t i = 0; i < layout_count; ++i) {
      py::object o = py::getattr(torch, py::str(std::string(torch_name(static_cast<Layout>(i)))), py::none());
      layout_objects.push_back(o);
      if (!o.is_none()) layouts.emplace(o.ptr(), static_cast<Layout>(i));
    }
    for (std::size_t i = 0; i < memory_format_count; ++i) {
      py::object o = py::getattr(torch, py::str(std::string(torch_name(static_cast<MemoryFormat>(i)))), py::none());
      memory_format_objects.push_back(o);
      if (!o.is_none()) memory_formats.emplace(o.ptr(), static_cast<MemoryFormat>(i));
    }
    try {
      tensor_metadata_type = py::module_::import("torch.fx.passes.shape_prop").attr("TensorMetadata");
      py::tuple fields = tensor_metadata_type.attr("_fields");
      for (std::size_t i = 0; i < fields.size(); ++i) {
        std::string f = py::str(fields[i]);
        Py_ssize_t at = static_cast<Py_ssize_t>(i);
        if (f == "shape") tensor_metadata_field.shape = at;
        else if (f == "dtype") tensor_metadata_field.dtype = at;
        else if (f == "requires_grad") tensor_metadata_field.requires_grad = at;
        else if (f == "stride") tensor_metadata_field.stride = at;
      }
    } catch (const py::error_already_set&) {
      tensor_metadata_type = py::none();  // read by attribute name instead
    }
    std::string version = py::str(torch.attr("__version__"));
    int major = std::atoi(version.c_str());
    int minor = version.find('.') == std::string::npos ? 0 : std::atoi(version.c_str() + version.find('.') + 1);
    old_users_spelling = major < 2 || (major == 2 && minor < 1);
    connect_tensor_impl_reader(version);
  }
};

/// A Python object of an FX node's args as a Value. `node_id` maps an fx.Node to its id and
/// throws for a node of another graph; `symints` keeps each SymInt seen, by its text, to give
/// it back on writing.
template <class NodeId>
Value to_value(py::handle h, const Torch& t, NodeId&& node_id, std::unordered_map<std::string, py::object>& symints) {
  PyObject* o = h.ptr();
  if (o == Py_None) return Value();
  if (PyBool_Check(o)) return Value(o == Py_True);
  if (PyLong_CheckExact(o) || (PyLong_Check(o) && !PyBool_Check(o))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw UnsupportedValue("an int beyond 64 bits: " + std::string(py::repr(h)));
    return Value(static_cast<std::int64_t>(v));
  }
  if (PyFloat_Check(o)) return Value(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) return Value(utf8(h));
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
  if (type == t.node_type.ptr()) return Value(NodeRef{node_id(h)});
  if (PyList_Check(o) || PyTuple_Check(o)) {  // FX's immutable_list is a list: the same items
    const bool tuple = PyTuple_Check(o);
    const Py_ssize_t size = tuple ? PyTuple_GET_SIZE(o) : PyList_GET_SIZE(o);
    std::vector<Value> items;
    items.reserve(static_cast<std::size_t>(size));
    for (Py_ssize_t i = 0; i < size && (tuple || i < PyList_GET_SIZE(o)); ++i) {
      // held while converted: converting may run Python (a SymInt's str)
      auto item = py::reinterpret_borrow<py::object>(tuple ? PyTuple_GET_ITEM(o, i) : PyList_GET_ITEM(o, i));
      items.push_back(to_value(item, t, node_id, symints));
    }
    return tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  if (type == t.dtype_type.ptr()) {
    auto it = t.dtypes.find(o);
    if (it == t.dtypes.end()) throw UnsupportedValue("a dtype ctmatch does not know: " + std::string(py::str(h)));
    return Value(it->second);
  }
  if (type == t.device_type.ptr()) return Value(t.device_of(h));
  if (type == t.layout_type.ptr()) {
    auto it = t.layouts.find(o);
    if (it == t.layouts.end()) throw UnsupportedValue("a layout ctmatch does not know: " + std::string(py::str(h)));
    return Value(it->second);
  }
  if (type == t.memory_format_type.ptr()) {
    auto it = t.memory_formats.find(o);
    if (it == t.memory_formats.end())
      throw UnsupportedValue("a memory format ctmatch does not know: " + std::string(py::str(h)));
    return Value(it->second);
  }
  if (!t.symint_type.is_none() && type == t.symint_type.ptr()) {
    std::string expr = py::str(h);
    symints.emplace(expr, py::reinterpret_borrow<py::object>(h));
    return Value(SymInt{expr});
  }
  throw UnsupportedValue("a value of type " + std::string(py::str(py::type::handle_of(h).attr("__qualname__"))) +
                         " (" + std::string(py::repr(h)) + ")");
}

/// `o`, the torch object of a dtype, layout or memory format, unless this torch has none.
inline py::object known(const py::object& o, const Value& v) {
  if (o.is_none()) throw UnsupportedValue(to_string(v) + ", which this torch does not have");
  return o;
}

/// A Value as the Python object FX would carry; `node_object(id)` gives the fx.Node of an id.
template <class NodeObject>
py::object to_python(const Value& v, const Torch& t, NodeObject&& node_object,
                     const std::unordered_map<std::string, py::object>& symints) {
  switch (v.kind()) {
    case Value::Kind::None: return py::none();
    case Value::Kind::Bool: return py::bool_(*v.get_if<bool>());
    case Value::Kind::Int: return py::int_(*v.get_if<std::int64_t>());
    case Value::Kind::Double: return py::float_(*v.get_if<double>());
    case Value::Kind::String: return py::str(*v.get_if<std::string>());
    case Value::Kind::ScalarType:
      return known(t.dtype_objects.at(static_cast<std::size_t>(*v.get_if<ScalarType>())), v);
    case Value::Kind::Layout: return known(t.layout_objects.at(static_cast<std::size_t>(*v.get_if<Layout>())), v);
    case Value::Kind::MemoryFormat:
      return known(t.memory_format_objects.at(static_cast<std::size_t>(*v.get_if<MemoryFormat>())), v);
    case Value::Kind::Device: return t.device_type(to_string(*v.get_if<Device>()));
    case Value::Kind::Node: return node_object(v.node());
    case Value::Kind::SymInt: {
      auto it = symints.find(v.get_if<SymInt>()->expr);
      if (it == symints.end()) throw UnsupportedValue("a symbolic int the graph did not carry: " + v.get_if<SymInt>()->expr);
      return it->second;
    }
    case Value::Kind::List: {
      const List& l = *v.get_if<List>();
      if (l.tuple) {
        py::tuple out(l.items.size());
        for (std::size_t i = 0; i < l.items.size(); ++i) out[i] = to_python(l.items[i], t, node_object, symints);
        return out;
      }
      py::list out(l.items.size());
      for (std::size_t i = 0; i < l.items.size(); ++i) out[i] = to_python(l.items[i], t, node_object, symints);
      return out;
    }
  }
  throw UnsupportedValue("a value of unknown kind");
}

}  // namespace ctmatch::python
