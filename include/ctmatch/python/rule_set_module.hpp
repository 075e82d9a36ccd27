#pragma once
// A Python module around a compile-time rule set, for rules written in C++ and used from
// Python (CMake: ctmatch_add_python_rules). In the module's one source file:
//
//   #include "rule_set_module.hpp"
//   constexpr auto my_rule = ctmatch::dsl::rewrite<"fuse">(pattern, replacement);
//   CTMATCH_PYTHON_RULES(my_rules, ctmatch::rule_set(my_rule))
//
// and in Python `import my_rules; ctmatch.apply(gm.graph, rules=my_rules.rules)`, or
// `ctmatch.inductor.Pass(rules=my_rules.rules)`. The module carries its own copy of the
// library (it is header-only): it converts, runs and writes back by itself, so nothing but
// Python objects crosses from one module to another.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "../rewrite/rule_set.hpp"
#include "../version.hpp"
#include "apply.hpp"

namespace ctmatch::python {

/// What `rules=` of ctmatch.apply takes besides a name: an object with _apply_to_fx(graph,
/// mode) and cache_key() (for ctmatch.inductor.Pass's uuid).
template <class Set>
struct CompiledRules {
  Set set;
  std::string module;  // the module's name, part of the cache key
};

template <class Set>
void define_rule_set(py::module_& m, Set set) {
  register_exception_translators();
  using R = CompiledRules<Set>;
  py::class_<R>(m, "CompiledRules", "A rule set compiled into this module")
      .def("_apply_to_fx", [](const R& r, py::handle g, const std::string& mode) { return apply_to_fx(g, r.set, mode); })
      .def("names", [](const R& r) { return r.set.names(); })
      .def("cache_key", [](const R& r) {
        std::string key = std::string(ctmatch::version) + "|" + r.module;
        for (const std::string& n : r.set.names()) key += "|" + n;
        return key;
      })
      .def("__repr__", [](const R& r) { return "<ctmatch rules of " + r.module + ">"; })
      // Pickled (and deep-copied, as Inductor copies its config) as "the rules of module M".
      .def("__reduce__", [](const R& r) {
        return py::make_tuple(py::module_::import("ctmatch").attr("_compiled_rules"), py::make_tuple(r.module));
      });
  m.attr("rules") = R{std::move(set), std::string(py::str(m.attr("__name__")))};
}

}  // namespace ctmatch::python

/// Defines the Python module `name` holding `rules`, the rule set (an expression).
#define CTMATCH_PYTHON_RULES(name, ...) \
  PYBIND11_MODULE(name, m) { ::ctmatch::python::define_rule_set(m, __VA_ARGS__); }
