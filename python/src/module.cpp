// ctmatch._ctmatch: the compiled half of the Python package (python/ctmatch/ is the other).
// Graph (from_fx, parse, str), and the pass on a torch.fx.Graph with the result written back.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <ctmatch/io.hpp>
#include <ctmatch/rules/builtin.hpp>
#include <ctmatch/version.hpp>

#include <chrono>
#include <map>

#include "from_fx.hpp"
#include "write_back.hpp"

namespace py = pybind11;
using namespace ctmatch;
using ctmatch::python::FxGraph;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The statistics ctmatch-opt --stats-json prints, as a dict.
py::dict stats_dict(const PassStats& st, const Graph& g) {
  py::dict d;
  py::dict matches, roots, hist;
  for (const auto& [rule, n] : st.matches()) matches[py::str(rule)] = n;
  for (const auto& [rule, names] : st.root_names(g)) roots[py::str(rule)] = names;
  std::map<std::string, std::size_t> h;
  for (const Node& n : g.nodes())
    if (n.kind() == NodeKind::CallFunction) ++h[std::string(op_name(n.op()))];
  for (const auto& [op, n] : h) hist[py::str(op)] = n;
  d["matches"] = matches;
  d["roots"] = roots;
  d["hist_after"] = hist;
  d["time_s"] = st.seconds;
  d["nodes_before"] = st.nodes_before;
  d["nodes_after"] = st.nodes_after;
  std::size_t dropped = 0;
  for (const RuleStats& r : st.rules) dropped += r.kwargs_dropped;
  d["kwargs_dropped"] = dropped;
  return d;
}

/// Runs the built-in rules named `rules` on g with the driver `mode`.
PassStats run_builtin(Graph& g, const std::string& rules, const std::string& mode) {
  auto set = rules::all_rules();
  rules::select_rules(set, rules);
  return rules::run_pass(g, set, mode);
}

/// ctmatch.apply's compiled part: convert, run, write back. Returns (stats, new fx nodes).
py::tuple apply_to_fx(py::handle fx_graph, const std::string& rules, const std::string& mode) {
  auto t0 = std::chrono::steady_clock::now();
  FxGraph fx = python::from_fx(fx_graph);
  double convert_s = seconds_since(t0);
  Graph before = fx.graph;
  PassStats st = run_builtin(fx.graph, rules, mode);
  auto t1 = std::chrono::steady_clock::now();
  std::vector<py::object> made;
  if (st.total_matches() != 0) made = python::write_back(fx_graph, fx, before);
  py::dict d = stats_dict(st, fx.graph);
  d["convert_s"] = convert_s;
  d["write_back_s"] = seconds_since(t1);
  return py::make_tuple(d, made);
}

}  // namespace

PYBIND11_MODULE(_ctmatch, m) {
  m.doc() = "ctmatch: compile-time patterns matched against torch.fx graphs";
  m.attr("__version__") = std::string(ctmatch::version);

  static py::exception<GraphError> graph_error(m, "GraphError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const python::UnsupportedValue& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const python::FromFxError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const io::ParseError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const GraphError& e) {
      graph_error(e.what());
    }
  });

  py::class_<Graph>(m, "Graph", "A ctmatch graph: nodes with typed arguments and tensor metadata")
      .def_static(
          "from_fx", [](py::handle fx_graph) { return std::move(python::from_fx(fx_graph).graph); },
          py::arg("fx_graph"), "Converts a torch.fx.Graph (read only)")
      .def_static(
          "parse", [](const std::string& text, const std::string& file) { return io::read_graph(text, file); },
          py::arg("text"), py::arg("file") = "<string>", "Reads FX text or torch.export JSON")
      .def("__str__", [](const Graph& g) { return io::write_fx_text(g); })
      .def("__len__", &Graph::size)
      .def("to_json", [](const Graph& g) { return io::write_export_json(g); })
      .def("verify", [](const Graph& g) { verify(g); })
      .def("node_names", [](const Graph& g) {
        std::vector<std::string> names;
        for (const Node& n : g.nodes()) names.push_back(n.name());
        return names;
      })
      .def(
          "meta",
          [](const Graph& g, const std::string& name) -> py::object {
            NodeId id = g.find(name);
            if (id == no_node) throw py::key_error(name);
            const TensorMeta& m = g[id].meta;
            py::object dtype = m.dtype ? py::object(py::str(std::string(torch_name(*m.dtype)))) : py::none();
            py::object shape = py::none();
            if (m.shape) {
              py::list s;
              for (const Value& v : *m.shape) s.append(py::str(to_string(v, &g)));
              shape = s;
            }
            return py::make_tuple(dtype, shape);
          },
          py::arg("name"), "(dtype name, shape as printed) of a node's tensor metadata")
      .def(
          "apply",
          [](Graph& g, const std::string& rules, const std::string& mode) {
            PassStats st = run_builtin(g, rules, mode);
            return stats_dict(st, g);
          },
          py::arg("rules") = "bench", py::arg("mode") = "sweep", "Runs built-in rules on this graph");

  m.def("apply_to_fx", &apply_to_fx, py::arg("fx_graph"), py::arg("rules"), py::arg("mode"));
}
