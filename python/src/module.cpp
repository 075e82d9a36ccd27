// ctmatch._ctmatch: the compiled half of the Python package (python/ctmatch/ is the other):
// Graph (from_fx, parse, str, ...) and the built-in rule sets run on a torch.fx.Graph.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <unordered_map>
#include <utility>

#include <builtin_rules.hpp>
#include <ctmatch/io.hpp>
#include <ctmatch/python/apply.hpp>
#include <ctmatch/python/attribute_reader.hpp>
#include <ctmatch/version.hpp>

namespace py = pybind11;
using namespace ctmatch;

PYBIND11_MODULE(_ctmatch, m) {
  m.doc() = "ctmatch: compile-time patterns matched against torch.fx graphs";
  m.attr("__version__") = std::string(ctmatch::version);
  python::register_exception_translators();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io::ParseError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::class_<Graph>(m, "Graph", "A ctmatch graph: nodes with typed arguments and tensor metadata")
      .def_static(
          "from_fx", [](py::handle fx_graph) { return std::move(python::from_fx(fx_graph).graph); },
          py::arg("fx_graph"), "Converts a torch.fx.Graph (which is only read)")
      .def_static(
          "parse", [](const std::string& text, const std::string& file) { return io::read_graph(text, file); },
          py::arg("text"), py::arg("file") = "<string>", "Reads FX text or torch.export JSON")
      .def("__str__", [](const Graph& g) { return io::write_fx_text(g); }, "FX text, as ctmatch-opt --emit fx")
      .def("__len__", &Graph::size)
      .def("to_json", [](const Graph& g) { return io::write_export_json(g); }, "torch.export JSON")
      .def("verify", [](const Graph& g) { verify(g); }, "Checks the graph's invariants (raises ValueError)")
      .def("node_names", [](const Graph& g) {
        std::vector<std::string> names;
        for (const Node& n : g.nodes()) names.emplace_back(n.name());
        return names;
      })
      .def(
          "meta",
          [](const Graph& g, const std::string& name) {
            NodeId id = g.find(name);
            if (id == no_node) throw py::key_error(name);
            const TensorMeta& meta = g[id].meta();
            py::object dtype = meta.dtype ? py::object(py::str(std::string(torch_name(*meta.dtype)))) : py::none();
            py::object shape = py::none();
            if (meta.shape) {
              py::list s;
              for (const Value& v : *meta.shape) s.append(py::str(to_string(v, &g)));
              shape = s;
            }
            return py::make_tuple(dtype, shape);
          },
          py::arg("name"), "(dtype name, shape as printed) of a node's tensor metadata")
      .def(
          "tensor_meta",
          [](const Graph& g, const std::string& name) {
            NodeId id = g.find(name);
            if (id == no_node) throw py::key_error(name);
            const TensorMeta& m = g[id].meta();
            auto printed = [&](const std::optional<std::vector<Value>>& vs) -> py::object {
              if (!vs) return py::none();
              py::list out;
              for (const Value& v : *vs) out.append(py::str(to_string(v, &g)));
              return out;
            };
            auto text = [](bool has, auto&& make) -> py::object { return has ? py::object(py::str(make())) : py::none(); };
            py::dict d;
            d["dtype"] = text(m.dtype.has_value(), [&] { return std::string(torch_name(*m.dtype)); });
            d["shape"] = printed(m.shape);
            d["strides"] = printed(m.strides);
            d["storage_offset"] = text(m.storage_offset.has_value(), [&] { return to_string(*m.storage_offset, &g); });
            d["device"] = text(m.device.has_value(), [&] { return to_string(*m.device); });
            d["layout"] = text(m.layout.has_value(), [&] { return std::string(torch_name(*m.layout)); });
            d["requires_grad"] = m.requires_grad ? py::object(py::bool_(*m.requires_grad)) : py::none();
            auto mf = m.memory_format();
            d["memory_format"] = text(mf.has_value(), [&] { return std::string(torch_name(*mf)); });
            return d;
          },
          py::arg("name"),
          "A node's tensor metadata: dtype, shape, strides, storage_offset, device, layout, requires_grad "
          "(as printed; None where unknown) and the memory_format the strides show")
      .def(
          "op_tags",
          [](const Graph& g, const std::string& name) {
            NodeId id = g.find(name);
            if (id == no_node) throw py::key_error(name);
            std::vector<std::string> out;
            OpTags tags = op_tags(g[id].op());
            for (std::size_t i = 0; i < op_tag_count; ++i)
              if (tags.has(static_cast<OpTag>(i))) out.emplace_back(tag_name(static_cast<OpTag>(i)));
            return out;
          },
          py::arg("name"), "The torch.Tag names of a node's op (built-in table, and OpOverload.tags from Python)")
      .def(
          "apply",
          [](Graph& g, const std::string& rules, const std::string& mode) {
            return python::stats_dict(builtin::BuiltinRules(rules).run(g, mode), g);
          },
          py::arg("rules") = "bench", py::arg("mode") = "sweep", "Runs built-in rules on this graph");

  m.def(
      "apply_builtin",
      [](py::handle fx_graph, const std::string& rules, const std::string& mode) {
        return python::apply_to_fx(fx_graph, builtin::BuiltinRules(rules), mode);
      },
      py::arg("fx_graph"), py::arg("rules"), py::arg("mode"));
  m.def("builtin_rule_names", [] { return builtin::rule_names(); });
  m.def(
      "_read_attribute",
      [](py::handle object, const std::string& name) {
        // One reader per name for the process, as a conversion keeps one per field (tests).
        // Never destroyed: the names are Python objects (see Torch::get).
        using Held = std::pair<py::str, python::AttributeReader>;  // the name outlives its reader
        static auto* readers = new std::unordered_map<std::string, Held>();
        auto it = readers->find(name);
        if (it == readers->end()) {
          py::str interned = python::interned(name.c_str());
          python::AttributeReader reader(interned.ptr());
          it = readers->emplace(name, Held(std::move(interned), reader)).first;
        }
        python::AttributeReader& reader = it->second.second;
        PyObject* v = reader.get(object.ptr());
        if (!v) throw py::error_already_set();
        return py::make_tuple(py::reinterpret_steal<py::object>(v), reader.reads_field());
      },
      py::arg("object"), py::arg("name"),
      "(getattr(object, name), whether it was read from the object's field) through the conversion's reader");
  m.def(
      "_tensor_impl_reader",
      [](std::optional<bool> use) {
        python::Torch& t = python::Torch::get();
        if (use) t.use_tensor_impl = *use;
        return py::make_tuple(t.has_tensor_impl_reader(), t.use_tensor_impl);
      },
      py::arg("use") = py::none(),
      "(loaded, in use) of the TensorImpl reader ctmatch._ctmatch_torch; `use` switches it (for tests)");
}
