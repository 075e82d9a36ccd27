#pragma once
// The pass's result written back into the torch.fx.Graph it was converted from: the nodes the
// pass created are inserted where it put them, under the names it gave them; the arguments of
// the nodes whose uses moved are set again; the nodes it erased are erased. Everything that can
// fail (a new op torch does not know, a value with no Python form) is checked before the fx
// graph is touched, so a failure leaves it as it was.
#include <utility>
#include <vector>

#include "../rewrite/stats.hpp"
#include "from_fx.hpp"

namespace ctmatch::python {

/// The Python callable of an op the graph did not carry: torch.ops.<ns>.<name>.<overload>.
inline py::object resolve_op(const Torch& t, std::string_view name) {
  if (name.starts_with("operator.")) return py::module_::import("operator").attr(py::str(std::string(name.substr(9))));
  py::object o = t.ops;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::string part(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    try {
      o = o.attr(py::str(part));
    } catch (py::error_already_set&) {
      throw FromFxError("the pass created a node of " + std::string(name) +
                        ", which torch does not know (register the op with torch.library first)");
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return o;
}

/// Writes the pass's result (fx.graph, converted from `fx_graph`, on which keep_first_args()
/// was called before the pass) back into `fx_graph`. A new node that took a root's uses gets
/// that root's value and provenance meta (Torch::inherited_meta: the value is the same;
/// input-specific keys such as eager_input_vals are not), as Inductor's replacements do; the
/// others are left for fake propagation. Returns the fx nodes created, in graph order.
inline std::vector<py::object> write_back(py::handle fx_graph, FxGraph& fx, const PassStats& st) {
  const Torch& t = Torch::get();
  const Graph& g = fx.graph;
  const NodeId originals = static_cast<NodeId>(fx.fx_nodes.size());

  // 1. Everything that can fail, before the fx graph is touched.
  std::vector<NodeId> created;
  for (NodeId id = g.first(); id != no_node; id = g.next(id))
    if (id >= originals) created.push_back(id);
  std::vector<py::object> targets;
  for (NodeId id : created) {
    const Node& n = g[id];
    if (n.kind() != NodeKind::CallFunction) throw FromFxError("the pass created a node that is not a call: " + std::string(n.name()));
    auto it = fx.targets.find(n.op());
    targets.push_back(it != fx.targets.end() ? it->second : resolve_op(t, op_name(n.op())));
  }
  auto check_values = [&](const Node& n) {
    auto no_object = [](NodeId) { return py::object(py::none()); };
    for (const Value& v : n.args()) (void)to_python(v, t, no_object, fx.symints);
    for (const Kwarg& k : n.kwargs()) (void)to_python(k.value, t, no_object, fx.symints);
  };
  for (NodeId id : created) check_values(g[id]);
  // Original nodes whose args or kwargs the pass changed (each setter is a Python call that
  // re-walks the arguments: only what changed is set), in node id order.
  struct Changed {
    NodeId id;
    bool args, kwargs;
  };
  std::vector<Changed> changed;
  for (const auto& [id, was] : g.first_args()) {
    const Node& now = g[id];
    if (id >= originals || !now.alive()) continue;
    bool args = !std::ranges::equal(now.args(), was.args);
    bool kwargs = !std::ranges::equal(now.kwargs(), was.kwargs, [](const Kwarg& a, const Kwarg& b) {
      return a.name == b.name && a.value == b.value;
    });
    if (args || kwargs) {
      check_values(now);
      changed.push_back({id, args, kwargs});
    }
  }
  std::ranges::sort(changed, {}, &Changed::id);

  // 2. The edit: create, rewire, erase, rename.
  std::vector<py::object> objects(fx.fx_nodes.begin(), fx.fx_nodes.end());
  objects.resize(g.id_bound());
  auto object_of = [&](NodeId id) { return objects[id]; };
  auto args_of = [&](const Node& n) {
    py::tuple args(n.args().size());
    for (std::size_t i = 0; i < n.args().size(); ++i) args[i] = to_python(n.args()[i], t, object_of, fx.symints);
    py::dict kwargs;
    for (const Kwarg& k : n.kwargs()) kwargs[py::str(k.name)] = to_python(k.value, t, object_of, fx.symints);
    return std::pair{std::move(args), std::move(kwargs)};
  };
  std::vector<py::object> made;
  for (std::size_t i = 0; i < created.size(); ++i) {
    const Node& n = g[created[i]];
    NodeId anchor = g.next(created[i]);
    while (anchor != no_node && anchor >= originals) anchor = g.next(anchor);
    auto [args, kwargs] = args_of(n);
    py::object node = fx_graph.attr("create_node")(t.call_function, targets[i], args, kwargs, py::str(n.name()));
    objects[created[i]] = node;
    if (anchor != no_node) objects[anchor].attr("prepend")(node);
    made.push_back(node);
  }
  for (const Changed& c : changed) {
    auto [args, kwargs] = args_of(g[c.id]);
    if (c.args) objects[c.id].attr(t.args) = args;
    if (c.kwargs) objects[c.id].attr(t.kwargs) = kwargs;
  }
  // The root each replacement stands for, followed back to a node of the input graph.
  std::unordered_map<NodeId, NodeId> root_of;
  for (const RuleStats& r : st.rules)
    for (std::size_t i = 0; i < r.replacements.size() && i < r.roots.size(); ++i) root_of[r.replacements[i]] = r.roots[i];
  for (std::size_t i = 0; i < created.size(); ++i) {
    NodeId at = created[i];
    for (auto it = root_of.find(at); it != root_of.end() && at >= originals; it = root_of.find(at)) at = it->second;
    if (at >= originals) continue;
    py::dict from = objects[at].attr(t.meta), to = made[i].attr(t.meta);
    for (const py::str& key : t.inherited_meta)
      if (from.contains(key)) to[key] = from[key];
  }
  for (NodeId id = originals; id-- > 0;)
    if (!g[id].alive()) fx_graph.attr("erase_node")(objects[id]);
  // FX's namespace keeps the names of erased nodes, so a name the pass reused came out with a
  // suffix: give each node the name the pass gave it (no live node has it).
  for (std::size_t i = 0; i < created.size(); ++i) {
    const std::string want(g[created[i]].name());
    if (std::string(py::str(made[i].attr("name"))) == want) continue;
    if (py::hasattr(made[i], "_rename")) made[i].attr("_rename")(py::str(want));
    if (std::string(py::str(made[i].attr("name"))) != want) made[i].attr("name") = py::str(want);
  }
  return made;
}

}  // namespace ctmatch::python
