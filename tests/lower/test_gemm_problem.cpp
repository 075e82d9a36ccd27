// lower/: a GEMM-like graph node as the typed GemmProblem the tuner and kernels take, and its
// refusals (each naming the node).
#include <doctest/doctest.h>

#include <string>

#include <ctmatch/io/read.hpp>
#include <ctmatch/lower.hpp>
#include <ctmatch/schema/builtin.hpp>

#include "test_data.hpp"

using namespace ctmatch;
using lower::GemmProblemError;

namespace {

NodeId with_meta(Graph& g, NodeId id, ScalarType t, std::vector<Value> shape) {
  g[id].edit_meta().dtype = t;
  g[id].edit_meta().shape = std::move(shape);
  return id;
}

struct Built {
  Graph g;
  NodeId a, b, bias;
};

Built operands(ScalarType t = ScalarType::BFloat16) {
  schema::ensure_builtin_schemas();
  Built x;
  x.a = with_meta(x.g, x.g.placeholder("a"), t, {Value(96), Value(40)});
  x.b = with_meta(x.g, x.g.placeholder("b"), t, {Value(40), Value(24)});
  x.bias = with_meta(x.g, x.g.placeholder("bias"), t, {Value(24)});
  return x;
}

std::string message(auto&& f) {
  try {
    f();
  } catch (const GemmProblemError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an mm node of a read graph: sizes and dtypes from its inputs' metadata") {
  schema::ensure_builtin_schemas();
  const Graph g = io::read_graph(read_test_data("seed_mlp.export.json"), "seed_mlp.export.json");
  const auto p = lower::gemm_problem(g, g.find("mm"));
  CHECK(p.op == "aten::mm");
  CHECK(std::holds_alternative<std::monostate>(p.epilogue));
  CHECK(p.inputs.m() == 64);
  CHECK(p.inputs.k() == 512);
  CHECK(p.inputs.n() == 512);
  CHECK(p.inputs.dtype() == tune::DType::f32);
  CHECK(p.inputs.out_dtype() == tune::DType::f32);
  CHECK(p.inputs.mat1().strides == std::vector<std::int64_t>{512, 1});
  CHECK(lower::heuristic_op(p) == "mm");
  // a later layer's mm reads the intermediate gelu's metadata
  CHECK(lower::gemm_problem(g, g.find("mm_2")).inputs.m() == 64);
}

TEST_CASE("mm_scale_cast: the typed kwargs become the epilogue and the kernel inputs' scalars") {
  Built x = operands();
  const NodeId n = x.g.call(intern_op("seedlib.mm_scale_cast.default"), {NodeRef{x.a}, NodeRef{x.b}},
                            {{"dtype", ScalarType::Float8_e4m3fn}, {"clamp", true}, {"scale", 0.25}});
  const auto p = lower::gemm_problem(x.g, n);
  const auto* e = std::get_if<lower::ScaleCast>(&p.epilogue);
  REQUIRE(e);
  CHECK(*e == lower::ScaleCast{ScalarType::Float8_e4m3fn, true, 0.25});
  CHECK(p.op == "seedlib::mm_scale_cast(dtype=float8_e4m3fn,clamp=1,scale=0.25)");
  CHECK(p.inputs.out_dtype() == tune::DType::f8e4m3fn);
  CHECK(p.inputs.get_scalar("scale") == 0.25);
  CHECK(p.inputs.get_scalar("clamp") == 1);
  CHECK(p.inputs.dtype() == tune::DType::bf16);
  CHECK(p.inputs.m() == 96);
  CHECK(p.inputs.n() == 24);

  // defaults come from the schema: clamp=False, scale=1.0
  const NodeId d = x.g.call(intern_op("seedlib.mm_scale_cast.default"), {NodeRef{x.a}, NodeRef{x.b}},
                            {{"dtype", ScalarType::Half}});
  CHECK(std::get<lower::ScaleCast>(lower::gemm_problem(x.g, d).epilogue) ==
        lower::ScaleCast{ScalarType::Half, false, 1.0});
}

TEST_CASE("addmm: the bias first, alpha and beta as the kernel inputs' scalars") {
  Built x = operands();
  const NodeId n = x.g.call(intern_op("aten.addmm.default"), {NodeRef{x.bias}, NodeRef{x.a}, NodeRef{x.b}},
                            {{"beta", 0.5}, {"alpha", 2}});
  const auto p = lower::gemm_problem(x.g, n);
  CHECK(std::get<lower::AddBias>(p.epilogue) == lower::AddBias{2.0, 0.5});
  CHECK(p.inputs.nodes().size() == 3);
  CHECK(p.inputs.mat1_index() == 1);
  CHECK(p.inputs.get_scalar("alpha") == 2.0);
  CHECK(p.inputs.get_scalar("beta") == 0.5);
  CHECK(lower::heuristic_op(p) == "addmm");
}

TEST_CASE("refusals name the node and the reason") {
  Built x = operands();
  const NodeId bare = x.g.placeholder("bare");  // no metadata
  const NodeId mm = x.g.call(intern_op("aten.mm.default"), {NodeRef{x.a}, NodeRef{bare}});
  CHECK(message([&] { lower::gemm_problem(x.g, mm); }) ==
        "node 'mm': argument 'mat2' ('bare') has no dtype and shape metadata");
  const NodeId gelu = x.g.call(intern_op("aten.gelu.default"), {NodeRef{x.a}});
  CHECK(message([&] { lower::gemm_problem(x.g, gelu); }).find("node 'gelu': aten.gelu.default is not a GEMM") == 0);
  CHECK(message([&] { lower::gemm_problem(x.g, x.a); }) == "node 'a': not an op call");

  const NodeId sym = with_meta(x.g, x.g.placeholder("sym"), ScalarType::BFloat16, {Value(SymInt{"s0"}), Value(40)});
  const NodeId mm_sym = x.g.call(intern_op("aten.mm.default"), {NodeRef{sym}, NodeRef{x.b}});
  CHECK(message([&] { lower::gemm_problem(x.g, mm_sym); }).find("has a symbolic size") != std::string::npos);

  const NodeId wrong_k = with_meta(x.g, x.g.placeholder("wrong_k"), ScalarType::BFloat16, {Value(41), Value(24)});
  const NodeId mm_k = x.g.call(intern_op("aten.mm.default"), {NodeRef{x.a}, NodeRef{wrong_k}});
  CHECK(message([&] { lower::gemm_problem(x.g, mm_k); }).find("inner dimensions differ: 40 vs 41") != std::string::npos);

  const NodeId cast_int = x.g.call(intern_op("seedlib.mm_scale_cast.default"), {NodeRef{x.a}, NodeRef{x.b}},
                                   {{"dtype", ScalarType::Long}});
  CHECK(message([&] { lower::gemm_problem(x.g, cast_int); }) == "no GEMM output of dtype int64");
}
