#pragma once
// torch.fx.Graph -> ctmatch::Graph, in memory. Every node kind FX has but call_method and
// call_module (refused: their meaning lives in Python objects ctmatch cannot see), every value
// kind of torch_values.hpp, targets spelled as str(graph) spells them (so the result equals
// the FX-text reader's graph of str(graph)), an OpOverload's schema taken from op._schema when
// ctmatch has none, its tags (OpOverload.tags), and tensor metadata (dtype, shape, strides,
// device, ...) from meta['val'] or meta['tensor_meta'].
// The same checks as the FX-text reader: arguments against the schema, getitem indices.
#include "../io/fx_syntax.hpp"
#include "../schema/registry.hpp"
#include "../schema/value_fits.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "attribute_reader.hpp"
#include "torch_values.hpp"

namespace ctmatch::python {

/// What converting an fx.Graph leaves for writing the pass's result back into it.
struct FxGraph {
  Graph graph;
  std::vector<py::object> fx_nodes;                        // by NodeId: the fx.Node it came from
  std::unordered_map<OpId, py::object> targets;            // the Python target of each op seen
  std::unordered_map<std::string, py::object> symints;     // SymInts seen, by their text
};

/// A conversion error: becomes a Python exception (ValueError, TypeError for a value kind).
struct FromFxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

/// The op of a call_function target, with its spelling as FX prints it; schemas registered
/// from op._schema for an OpOverload ctmatch does not know. Cached per target object for the
/// whole process: looking a target up the first time (FX's printing of it, its schema and
/// tags, all Python) costs some 20 µs, and a graph of a thousand nodes has dozens of targets,
/// which made the first sight of each the largest cost of converting it. The cache holds a
/// reference to each target, so that its address cannot be reused by another object; torch's
/// OpOverloads live as long as the process anyway. Used with the GIL held.
struct Targets {
  struct Info {
    OpId op;
    std::string spelled;  // kept on the node when FX spells it unlike ctmatch's writer
    py::object target;    // keeps the key alive
  };
  std::unordered_map<PyObject*, Info> by_object;
  /// Past this many targets (graphs of generated Python callables), the cache starts again.
  static constexpr std::size_t max_entries = 1 << 14;

  static Targets& of_process() {
    static Targets* t = new Targets();  // never destroyed: it holds Python objects (see Torch::get)
    return *t;
  }

  /// An OpOverload's `tags` (torch.Tag values) into the op registry; tags ctmatch does not
  /// name are skipped (torch adds tags over time; none changes what a match means here).
  static void add_tags(OpId op, py::handle target) {
    py::object tags = py::getattr(target, "tags", py::none());
    if (tags.is_none() || !PySequence_Check(tags.ptr())) return;
    OpTags found;
    for (py::handle tag : tags) {
      std::string name = py::str(py::getattr(tag, "name", tag));
      if (auto dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
      if (auto t = parse_tag(name)) found |= OpTags{*t};
    }
    if (!found.empty()) OpRegistry::global().add_tags(op, found);
  }

  const Info& of(py::handle node, py::handle target) {
    auto it = by_object.find(target.ptr());
    if (it != by_object.end()) return it->second;
    std::string spelled = py::str(node.attr("_pretty_print_target")(target));
    std::string_view name = io::fx::op_name_of_target(spelled);
    OpId op = intern_op(name);
    const schema::FunctionSchema* sch = io::fx::schema_of(op);
    if (!sch && py::hasattr(target, "_schema")) {
      std::string text = py::str(target.attr("_schema"));
      try {
        schema::register_schema(text);
      } catch (const std::exception& e) {
        throw FromFxError("the schema of " + spelled + " does not parse: " + e.what());
      }
    }
    add_tags(op, target);
    if (by_object.size() >= max_entries) by_object.clear();
    Info info{op, io::fx::spelled_unlike_fx(spelled) ? spelled : std::string(),
              py::reinterpret_borrow<py::object>(target)};
    return by_object.emplace(target.ptr(), std::move(info)).first->second;
  }
};

/// The kind of an fx node from its `op`: the kinds ctmatch converts, or nullopt (call_method,
/// call_module). FX's op strings are interned, as Torch's are: compared by identity first.
inline std::optional<NodeKind> node_kind(py::handle op, const Torch& t) {
  auto is = [&](const py::str& kind) { return op.ptr() == kind.ptr() || py::reinterpret_borrow<py::object>(op).equal(kind); };
  if (is(t.call_function)) return NodeKind::CallFunction;
  if (is(t.placeholder)) return NodeKind::Placeholder;
  if (is(t.get_attr)) return NodeKind::GetAttr;
  if (is(t.output)) return NodeKind::Output;
  return std::nullopt;
}

/// fx.Node object -> the id its conversion got: an open-addressing table (linear probing, at
/// most half full) sized once for the graph, so that recording a node allocates nothing and
/// resolving a reference (every node argument) probes a flat array. std::unordered_map cost a
/// heap node per fx node.
class NodeIds {
 public:
  explicit NodeIds(std::size_t nodes) {
    std::size_t capacity = 16;
    while (capacity < 2 * nodes) capacity *= 2;
    slots_.assign(capacity, Slot{});
  }
  /// Records `node` (not recorded yet: fx nodes are distinct objects).
  void add(PyObject* node, NodeId id) {
    std::size_t i = home(node);
    while (slots_[i].node) i = (i + 1) & mask();
    slots_[i] = {node, id};
  }
  /// The id of `node`, or no_node when it was not recorded.
  NodeId find(PyObject* node) const {
    for (std::size_t i = home(node);; i = (i + 1) & mask()) {
      if (slots_[i].node == node) return slots_[i].id;
      if (!slots_[i].node) return no_node;
    }
  }

 private:
  struct Slot {
    PyObject* node = nullptr;
    NodeId id = no_node;
  };
  std::size_t mask() const { return slots_.size() - 1; }
  // Objects are at least 16-byte aligned: the low bits say nothing; a multiply spreads the rest.
  std::size_t home(PyObject* p) const {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask();
  }
  std::vector<Slot> slots_;
};

/// A value of a tensor's metadata as a Value; an empty one for what ctmatch does not know (a
/// device type it has no name for): metadata never refuses a graph.
inline Value meta_value(py::handle o, const Torch& t, std::unordered_map<std::string, py::object>& symints) {
  auto no_node = [](py::handle) -> NodeId { throw UnsupportedValue("a node in a tensor's metadata"); };
  try {
    return to_value(o, t, no_node, symints);
  } catch (const UnsupportedValue&) {
    return Value();
  }
}

/// The device of a value: a fake tensor's `fake_device` (a plain attribute), else `device`.
inline void read_device(TensorMeta& m, PyObject* val, const Torch& t, std::unordered_map<std::string, py::object>& symints) {
  for (const py::str* name : {&t.fake_device, &t.device}) {
    auto d = py::reinterpret_steal<py::object>(PyObject_GetAttr(val, name->ptr()));
    if (!d) {
      PyErr_Clear();
      continue;
    }
    if (Value v = meta_value(d, t, symints); v.get_if<Device>()) {
      m.device = *v.get_if<Device>();
      return;
    }
  }
}

/// A tensor's metadata from its C++ TensorImpl (tensor_impl_reader.hpp): false, with `n`
/// untouched, where the reader is off or cannot read `val`, or torch has a dtype or layout
/// ctmatch does not name.
inline bool read_tensor_impl(Node& n, PyObject* val, const Torch& t) {
  TensorFacts f;
  if (!t.tensor_impl() || !t.tensor_impl()->read(val, &f)) return false;
  const std::optional<ScalarType> dtype = t.dtype_of_c10(f.scalar_type);
  const std::optional<Layout> layout = t.layout_of_c10(f.layout);
  if (!dtype || !layout) return false;
  auto ints = [](const std::int64_t* p, std::size_t count) {
    std::vector<Value> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(p[i]);
    return out;
  };
  TensorMeta& m = n.edit_meta();
  m.dtype = *dtype;
  m.shape = ints(f.sizes, f.ndim);
  m.strides = ints(f.strides, f.ndim);
  m.storage_offset = Value(f.storage_offset);
  m.layout = *layout;
  m.requires_grad = f.requires_grad;
  return true;
}

/// A tensor's metadata: from meta['val'] (a fake tensor) through its TensorImpl where the
/// reader is there; else from meta['tensor_meta'] (a named tuple: dtype, shape, stride,
/// requires_grad, each a plain attribute read) and meta['val']'s Python attributes. Those cost
/// a call each, some a dispatch (2.5 µs a node for device, layout and storage_offset on torch
/// 2.11, three times the rest of the conversion): with tensor_meta present only the device is
/// read from the value; without, everything is. Nothing for other values (a tuple of outputs,
/// a SymInt); a field neither has stays unset.
inline void read_meta(Node& n, py::handle meta, const Torch& t, std::unordered_map<std::string, py::object>& symints) {
  if (!PyDict_Check(meta.ptr())) return;
  auto entry = [&](const py::str& key) -> PyObject* {
    PyObject* v = PyDict_GetItem(meta.ptr(), key.ptr());
    return v == Py_None ? nullptr : v;
  };
  PyObject* val = entry(t.val);
  if (val && read_tensor_impl(n, val, t)) {
    read_device(n.edit_meta(), val, t, symints);
    return;
  }
  PyObject* tm = entry(t.tensor_meta);
  PyObject* src = tm ? tm : val;
  if (!src) return;
  const bool indexed = tm && Py_TYPE(tm) == reinterpret_cast<PyTypeObject*>(t.tensor_metadata_type.ptr());
  // An attribute (of tensor_meta, its tuple item where the field's position is known), or for
  // a fake tensor's stride()/storage_offset() the method's result.
  auto get = [&](PyObject* from, const py::str& name, bool call, Py_ssize_t item = -1) -> py::object {
    if (indexed && from == tm && item >= 0 && item < PyTuple_GET_SIZE(tm))
      return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(tm, item));
    PyObject* a = PyObject_GetAttr(from, name.ptr());
    if (a && call && PyCallable_Check(a)) {
      PyObject* r = PyObject_CallNoArgs(a);
      Py_DECREF(a);
      a = r;
    }
    if (!a) PyErr_Clear();
    return py::reinterpret_steal<py::object>(a);
  };
  const auto& field = t.tensor_metadata_field;
  py::object dtype = get(src, t.dtype, false, field.dtype);
  if (!dtype) return;
  auto dt = t.dtypes.find(dtype.ptr());
  if (dt == t.dtypes.end()) return;
  py::object dims = get(src, t.shape, false, field.shape);
  if (!dims || !PyTuple_Check(dims.ptr())) return;  // torch.Size is a tuple
  // The sizes or strides as Values; nullopt where an item is none ctmatch can hold (an int of a
  // kind it does not know): the field stays unset, as metadata never refuses a graph.
  auto ints = [&](const py::object& tuple) -> std::optional<std::vector<Value>> {
    std::vector<Value> out;
    out.reserve(static_cast<std::size_t>(PyTuple_GET_SIZE(tuple.ptr())));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple.ptr()); ++i) {
      out.push_back(meta_value(PyTuple_GET_ITEM(tuple.ptr(), i), t, symints));
      if (out.back().is_none()) return std::nullopt;
    }
    return out;
  };
  TensorMeta& m = n.edit_meta();
  m.dtype = dt->second;
  if (auto shape = ints(dims)) m.shape = std::move(*shape);
  if (py::object s = get(src, t.stride, true, field.stride);
      s && PyTuple_Check(s.ptr()) && PyTuple_GET_SIZE(s.ptr()) == PyTuple_GET_SIZE(dims.ptr()))
    if (auto strides = ints(s)) m.strides = std::move(*strides);
  if (py::object r = get(src, t.requires_grad, false, field.requires_grad); r && PyBool_Check(r.ptr()))
    m.requires_grad = r.ptr() == Py_True;
  if (!val) return;
  read_device(m, val, t, symints);
  if (tm) return;
  auto known = [&](const py::str& name, bool call) -> Value {
    py::object o = get(val, name, call);
    return o ? meta_value(o, t, symints) : Value();
  };
  if (Value o = known(t.storage_offset, true); o.get_if<std::int64_t>() || o.get_if<SymInt>()) m.storage_offset = o;
  if (Value l = known(t.layout, false); l.get_if<Layout>()) m.layout = *l.get_if<Layout>();
}

}  // namespace detail

/// Converts `fx_graph` (a torch.fx.Graph). Throws FromFxError or UnsupportedValue, naming
/// the node; the fx graph is only read.
inline FxGraph from_fx(py::handle fx_graph) {
  const Torch& t = Torch::get();
  io::fx::ensure_schemas();
  FxGraph out;
  Graph& g = out.graph;
  if (t.old_users_spelling) g.annotations.push_back({"fx.users_key", "[#users="});
  detail::Targets& targets = detail::Targets::of_process();
  // A list first: iterating graph.nodes through pybind11's generic iterator revisits the
  // first node in torch 2.11 (its node iterator is C++); list() is what Python's for does.
  py::list nodes(fx_graph.attr("nodes"));
  out.fx_nodes.reserve(nodes.size());
  detail::NodeIds ids(nodes.size());
  // Where each node keeps its args and kwargs: the private fields behind FX's `args` and
  // `kwargs` properties (torch 2.x's node type, or torch 1.x's instance attributes), read
  // without the property's Python call per node. A Node without them is read by the properties.
  py::str args_name = t.args, kwargs_name = t.kwargs;
  if (nodes.size() != 0 && PyObject_HasAttrString(nodes[0].ptr(), "_args") &&
      PyObject_HasAttrString(nodes[0].ptr(), "_kwargs")) {
    args_name = interned("_args");
    kwargs_name = interned("_kwargs");
  }
  // The six attributes read of every node (see attribute_reader.hpp).
  AttributeReader name_field(t.name.ptr()), op_field(t.op.ptr()), target_field(t.target.ptr()),
      args_field(args_name.ptr()), kwargs_field(kwargs_name.ptr()), meta_field(t.meta.ptr());
  auto read = [](AttributeReader& field, py::handle node) {
    PyObject* v = field.get(node.ptr());
    if (!v) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(v);
  };
  for (py::handle node : nodes) {
    py::object name_object = read(name_field, node);
    const std::string_view name = utf8_view(name_object);  // the str's own buffer, while it lives
    py::object op = read(op_field, node);
    auto fail = [&](const std::string& why) -> FromFxError {
      return FromFxError("node " + std::string(name) + ": " + why);
    };
    auto node_id = [&](py::handle ref) -> NodeId {
      const NodeId id = ids.find(ref.ptr());
      if (id == no_node)
        throw UnsupportedValue("a reference to node " + std::string(py::str(ref.attr(t.name))) +
                               ", which is not an earlier node of this graph");
      return id;
    };
    NodeSpec spec;
    spec.name = name;
    py::object target = read(target_field, node);
    const detail::Targets::Info* info = nullptr;
    if (std::optional<NodeKind> kind = detail::node_kind(op, t)) spec.kind = *kind;
    else
      throw fail(std::string(py::str(op)) + " nodes are not supported: ctmatch matches ATen-level graphs (trace "
                 "with make_fx, torch.export or torch.compile's aot graphs, which call functions only)");
    if (spec.kind == NodeKind::CallFunction) {
      info = &targets.of(node, target);
      spec.op = info->op;
      spec.target = info->spelled;
      if (!out.targets.count(info->op)) out.targets.emplace(info->op, target);
    } else {
      if (!PyUnicode_Check(target.ptr()))
        throw fail("the target of a " + std::string(py::str(op)) + " node is not a string");
      spec.target = utf8(target);
    }
    const schema::FunctionSchema* sch = info ? io::fx::schema_of(spec.op) : nullptr;
    try {
      py::object args = read(args_field, node);
      if (!PyTuple_Check(args.ptr())) args = py::tuple(args);
      const std::size_t num_args = static_cast<std::size_t>(PyTuple_GET_SIZE(args.ptr()));
      spec.args.reserve(num_args);
      for (std::size_t i = 0; i < num_args; ++i) {
        spec.args.push_back(to_value(PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i)), t, node_id, out.symints));
        if (sch && i < sch->num_args && !schema::value_fits(sch->args[i].type, spec.args.back()))
          throw fail(schema::misfit_message(op_name(spec.op), sch->args[i].name, sch->args[i].type, spec.args.back()));
      }
      py::dict kwargs = read(kwargs_field, node);
      for (auto [k, v] : kwargs) {
        Kwarg kw{utf8(k), to_value(v, t, node_id, out.symints)};
        if (sch) {
          int p = sch->find(kw.name);
          if (p >= 0 && !schema::value_fits(sch->args[p].type, kw.value))
            throw fail(schema::misfit_message(op_name(spec.op), kw.name, sch->args[p].type, kw.value));
        }
        spec.kwargs.push_back(std::move(kw));
      }
    } catch (const UnsupportedValue& e) {
      throw UnsupportedValue("node " + std::string(name) + ": " + e.what());
    }
    if (std::string why = io::fx::getitem_index_misfit(g, spec); !why.empty()) throw fail(why);
    NodeId id;
    try {
      id = g.create(std::move(spec));
    } catch (const GraphError& e) {
      throw fail(e.what());
    }
    detail::read_meta(g[id], read(meta_field, node), t, out.symints);
    ids.add(node.ptr(), id);
    out.fx_nodes.push_back(py::reinterpret_borrow<py::object>(node));
  }
  return out;
}

}  // namespace ctmatch::python
