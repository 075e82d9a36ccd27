// register_schema / find_schema, and nodes of a registered op resolving positional, keyword and
// omitted-default forms of an argument alike.
#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>
#include <ctmatch/schema/registry.hpp>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace ctmatch;
using namespace ctmatch::schema;

TEST_CASE("register_schema interns the op key and sets the signature") {
  OpId id = register_schema(
      "regtest::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor");
  CHECK(op_name(id) == "regtest.scale_cast.default");
  CHECK(intern_op("regtest.scale_cast.default") == id);
  const OpSignature* sig = OpRegistry::global().signature(id);
  REQUIRE(sig);
  CHECK(sig->params.size() == 4);
  CHECK(sig->params[3].default_value == Value(1.0));
  const FunctionSchema* fs = find_schema(id);
  REQUIRE(fs);
  CHECK(fs->name == "scale_cast");
  CHECK(fs->args[1].type.base == BaseType::ScalarType);
  CHECK(find_schema("regtest.scale_cast.default") == fs);
  CHECK(find_schema("regtest.never.default") == nullptr);
  CHECK(find_schema(intern_op("regtest.unregistered.default")) == nullptr);
}

TEST_CASE("register_schema keeps its own copy of a temporary text") {
  OpId id;
  {
    std::string text = "regtest::tmp.Tensor(Tensor self, int dim=0, *, str mode='sum') -> Tensor";
    id = register_schema(text);
    text.assign(text.size(), '#');  // the caller's buffer is overwritten...
  }
  const FunctionSchema* fs = find_schema(id);
  REQUIRE(fs);  // ...but the registered schema still reads right
  CHECK(fs->ns == "regtest");
  CHECK(fs->overload == "Tensor");
  CHECK(fs->args[2].name == "mode");
  CHECK(fs->args[2].default_text == "'sum'");
  // a short text (small-string optimisation) is kept too
  std::string small = "r::s(int a) -> ()";
  OpId s = register_schema(small);
  small.assign(small.size(), '#');
  REQUIRE(find_schema(s));
  CHECK(find_schema(s)->args[0].name == "a");
}

TEST_CASE("registering twice: same interface is a no-op, another one is an error") {
  OpId a = register_schema("regtest::twice(Tensor x, float scale=1.0) -> Tensor");
  const FunctionSchema* first = find_schema(a);
  CHECK(register_schema("regtest::twice(Tensor  x, float scale=1.00) -> Tensor") == a);
  CHECK(find_schema(a) == first);
  CHECK_THROWS_AS(register_schema("regtest::twice(Tensor x, float scale=2.0) -> Tensor"), std::invalid_argument);
  CHECK_THROWS_AS(register_schema("regtest::twice(Tensor y, float scale=1.0) -> Tensor"), std::invalid_argument);
  CHECK(find_schema(a) == first);
  OpId n = register_schema("regtest::nan_default(float x=nan) -> Tensor");
  CHECK(register_schema("regtest::nan_default(float x=nan) -> Tensor") == n);
}

TEST_CASE("register_schema errors carry position and message, and change nothing") {
  std::size_t before = OpRegistry::global().size();
  try {
    register_schema("regtest::bad(Tensor x, bool b=1) -> Tensor");
    FAIL("expected an exception");
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    CHECK(what.find("offset 30") != std::string::npos);
    CHECK(what.find("True or False") != std::string::npos);
    CHECK(what.find("^") != std::string::npos);
  }
  CHECK(OpRegistry::global().size() == before);
  CHECK(OpRegistry::global().find("regtest.bad.default") == no_op);
}

TEST_CASE("an op whose signature was set by hand is not silently re-typed") {
  OpId id = intern_op("regtest.manual.default");
  OpRegistry::global().set_signature(id, OpSignature{});
  CHECK_THROWS_AS(register_schema("regtest::manual(Tensor x) -> Tensor"), std::invalid_argument);
  CHECK(find_schema(id) == nullptr);
}

TEST_CASE("a node resolves positional, keyword and omitted-default arguments alike") {
  OpId op = register_schema(
      "regtest::node_op(Tensor x, int dim=0, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor");
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId positional = g.call(op, {NodeRef{x}, Value(std::int64_t{2})},
                             {{"dtype", Value(ScalarType::Half)}, {"clamp", Value(true)}, {"scale", Value(0.5)}});
  NodeId keyword = g.call(op, {NodeRef{x}},
                          {{"scale", Value(0.5)}, {"dim", Value(std::int64_t{2})}, {"dtype", Value(ScalarType::Half)},
                           {"clamp", Value(true)}});
  NodeId omitted = g.call(op, {NodeRef{x}}, {{"dtype", Value(ScalarType::Half)}});
  g.output({NodeRef{positional}, NodeRef{keyword}, NodeRef{omitted}});
  verify(g);
  for (NodeId n : {positional, keyword}) {
    const Node& node = g[n];
    REQUIRE(node.signature());
    CHECK(*node.arg(std::size_t{0}) == Value(NodeRef{x}));
    CHECK(*node.arg(std::size_t{1}) == Value(std::int64_t{2}));
    CHECK(*node.arg("dtype") == Value(ScalarType::Half));
    CHECK(*node.arg("clamp") == Value(true));
    CHECK(*node.arg("scale") == Value(0.5));
    CHECK(node.arg_written(1));
  }
  const Node& o = g[omitted];
  REQUIRE(o.signature());
  CHECK(*o.arg(std::size_t{1}) == Value(std::int64_t{0}));
  CHECK(*o.arg("clamp") == Value(false));
  CHECK(*o.arg("scale") == Value(1.0));
  CHECK_FALSE(o.arg_written(1));
  CHECK_FALSE(o.arg_written(3));
  CHECK(o.arg_written(2));
  // arguments that do not fit the schema are refused
  CHECK_THROWS(g.call(op, {NodeRef{x}}));                                        // dtype missing
  CHECK_THROWS(g.call(op, {NodeRef{x}}, {{"dtype", Value(ScalarType::Half)}, {"nope", Value(1)}}));
  CHECK_THROWS(g.call(op, {NodeRef{x}, Value(1), Value(ScalarType::Half)}));     // dtype is keyword-only
}

TEST_CASE("dead-code elimination keeps side-effecting registered ops") {
  OpId effect = register_schema("regtest::effect(Tensor x) -> ()");
  OpId pure = register_schema("regtest::pure(Tensor x) -> Tensor");
  Graph g;
  NodeId x = g.placeholder("x");
  g.call(effect, {NodeRef{x}});
  g.call(pure, {NodeRef{x}});
  g.output({NodeRef{x}});
  std::size_t before = g.size();
  g.eliminate_dead_code();
  CHECK(g.size() == before - 1);
  bool effect_alive = false;
  for (const Node& n : g.nodes()) effect_alive |= n.op() == effect;
  CHECK(effect_alive);
}

TEST_CASE("registering and looking up from several threads at once") {
  constexpr int threads = 4, per_thread = 50;
  std::vector<std::thread> pool;
  std::vector<std::vector<OpId>> ids(threads);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &ids] {
      for (int i = 0; i < per_thread; ++i) {
        // every thread also registers the shared op, which must come out as one id
        std::string text = "regthreads::op" + std::to_string(t) + "_" + std::to_string(i) +
                           "(Tensor x, int k=" + std::to_string(i) + ") -> Tensor";
        ids[static_cast<std::size_t>(t)].push_back(register_schema(text));
        ids[static_cast<std::size_t>(t)].push_back(register_schema("regthreads::shared(Tensor x) -> Tensor"));
      }
    });
  for (auto& th : pool) th.join();
  OpId shared = ids[0][1];
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < per_thread; ++i) {
      OpId id = ids[static_cast<std::size_t>(t)][static_cast<std::size_t>(2 * i)];
      CHECK(op_name(id) == "regthreads.op" + std::to_string(t) + "_" + std::to_string(i) + ".default");
      const FunctionSchema* fs = find_schema(id);
      REQUIRE(fs);
      CHECK(fs->args[1].default_text == std::to_string(i));
      CHECK(*OpRegistry::global().signature(id)->params[1].default_value == Value(std::int64_t{i}));
      CHECK(ids[static_cast<std::size_t>(t)][static_cast<std::size_t>(2 * i + 1)] == shared);
    }
}
