#pragma once
// torch.fx.Graph -> ctmatch::Graph, in memory. Every node kind FX has but call_method and
// call_module (refused: their meaning lives in Python objects ctmatch cannot see), every value
// kind of torch_values.hpp, targets spelled as str(graph) spells them (so the result equals
// the FX-text reader's graph of str(graph)), an OpOverload's schema taken from op._schema when
// ctmatch has none, and tensor metadata (dtype, shape) from meta['val'] or meta['tensor_meta'].
// The same checks as the FX-text reader: arguments against the schema, getitem indices.
#include "../io/fx_syntax.hpp"
#include "../schema/registry.hpp"
#include "../schema/value_fits.hpp"

#include <string>
#include <unordered_map>
#include <vector>

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
/// from op._schema for an OpOverload ctmatch does not know. Cached per target object.
struct Targets {
  struct Info {
    OpId op;
    std::string spelled;  // kept on the node when FX spells it unlike ctmatch's writer
    const schema::FunctionSchema* schema;
  };
  std::unordered_map<PyObject*, Info> by_object;

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
      sch = schema::find_schema(op);
    }
    Info info{op, io::fx::spelled_unlike_fx(spelled) ? spelled : std::string(), sch};
    return by_object.emplace(target.ptr(), std::move(info)).first->second;
  }
};

/// dtype and shape from meta['tensor_meta'] (a named tuple: cheap to read) or meta['val'] (a
/// fake tensor, whose attributes cost a call each); nothing for other values (a tuple of
/// outputs, a SymInt).
inline void read_meta(Node& n, py::handle meta, const Torch& t, std::unordered_map<std::string, py::object>& symints) {
  if (!PyDict_Check(meta.ptr())) return;
  PyObject* v = PyDict_GetItem(meta.ptr(), t.tensor_meta.ptr());
  if (!v || v == Py_None) v = PyDict_GetItem(meta.ptr(), t.val.ptr());
  if (!v || v == Py_None) return;
  PyObject* dtype = PyObject_GetAttr(v, t.dtype.ptr());
  if (!dtype) {
    PyErr_Clear();
    return;
  }
  auto dt = t.dtypes.find(dtype);
  Py_DECREF(dtype);
  if (dt == t.dtypes.end()) return;
  PyObject* dims = PyObject_GetAttr(v, t.shape.ptr());
  if (!dims) {
    PyErr_Clear();
    return;
  }
  py::object shape_obj = py::reinterpret_steal<py::object>(dims);
  if (!PyTuple_Check(dims)) return;  // torch.Size is a tuple
  n.meta.dtype = dt->second;
  std::vector<Value> shape;
  shape.reserve(static_cast<std::size_t>(PyTuple_GET_SIZE(dims)));
  auto no_node = [](py::handle) -> NodeId { throw UnsupportedValue("a node in a tensor's shape"); };
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dims); ++i)
    shape.push_back(to_value(PyTuple_GET_ITEM(dims, i), t, no_node, symints));
  n.meta.shape = std::move(shape);
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
  std::unordered_map<PyObject*, NodeId> ids;
  detail::Targets targets;
  // A list first: iterating graph.nodes through pybind11's generic iterator revisits the
  // first node in torch 2.11 (its node iterator is C++); list() is what Python's for does.
  py::list nodes(fx_graph.attr("nodes"));
  out.fx_nodes.reserve(nodes.size());
  for (py::handle node : nodes) {
    std::string name = utf8(py::object(node.attr(t.name)));
    py::object op = node.attr(t.op);
    auto fail = [&](const std::string& why) -> FromFxError { return FromFxError("node " + name + ": " + why); };
    auto node_id = [&](py::handle ref) -> NodeId {
      auto it = ids.find(ref.ptr());
      if (it == ids.end())
        throw UnsupportedValue("a reference to node " + std::string(py::str(ref.attr(t.name))) +
                               ", which is not an earlier node of this graph");
      return it->second;
    };
    NodeSpec spec;
    spec.name = name;
    py::object target = node.attr(t.target);
    const detail::Targets::Info* info = nullptr;
    auto is = [&](const py::str& kind) { return op.ptr() == kind.ptr() || op.equal(kind); };
    if (is(t.call_function)) spec.kind = NodeKind::CallFunction;
    else if (is(t.placeholder)) spec.kind = NodeKind::Placeholder;
    else if (is(t.get_attr)) spec.kind = NodeKind::GetAttr;
    else if (is(t.output)) spec.kind = NodeKind::Output;
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
    try {
      py::tuple args = node.attr(t.args_field);
      for (std::size_t i = 0; i < args.size(); ++i) {
        spec.args.push_back(to_value(args[i], t, node_id, out.symints));
        if (info && info->schema && i < info->schema->num_args &&
            !schema::value_fits(info->schema->args[i].type, spec.args.back()))
          throw fail(schema::misfit_message(op_name(spec.op), info->schema->args[i].name,
                                            info->schema->args[i].type, spec.args.back()));
      }
      py::dict kwargs = node.attr(t.kwargs_field);
      for (auto [k, v] : kwargs) {
        Kwarg kw{utf8(k), to_value(v, t, node_id, out.symints)};
        if (info && info->schema) {
          int p = info->schema->find(kw.name);
          if (p >= 0 && !schema::value_fits(info->schema->args[p].type, kw.value))
            throw fail(schema::misfit_message(op_name(spec.op), kw.name, info->schema->args[p].type, kw.value));
        }
        spec.kwargs.push_back(std::move(kw));
      }
    } catch (const UnsupportedValue& e) {
      throw UnsupportedValue("node " + name + ": " + e.what());
    }
    if (std::string why = io::fx::getitem_index_misfit(g, spec); !why.empty()) throw fail(why);
    NodeId id;
    try {
      id = g.create(std::move(spec));
    } catch (const GraphError& e) {
      throw fail(e.what());
    }
    detail::read_meta(g[id], node.attr(t.meta), t, out.symints);
    ids.emplace(node.ptr(), id);
    out.fx_nodes.push_back(py::reinterpret_borrow<py::object>(node));
  }
  return out;
}

}  // namespace ctmatch::python
