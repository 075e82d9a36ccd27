// The order of reading a graph and registering its ops' schemas does not matter: a graph read
// while a custom op had no schema is bound to it when a pass starts (Graph::bind_late), in
// every build type. Its own executable: the ops here must be unknown until each test names them.
#include <doctest/doctest.h>

#include <ctmatch/graph.hpp>
#include <ctmatch/io.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/schema.hpp>

using namespace ctmatch;
using namespace ctmatch::dsl;

namespace {
// mylate::cast(mm(a, b)) with its kwargs out of schema order and `flag` left to its default.
constexpr std::string_view graph_text = R"(graph():
    %a : [num_users=1] = placeholder[target=a]
    %b : [num_users=1] = placeholder[target=b]
    %mm : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%a, %b), kwargs = {})
    %cast : [num_users=1] = call_function[target=torch.ops.mylate.cast.default](args = (%mm,), kwargs = {scale: 0.5, dtype: torch.float16})
    return (cast,)
)";

constexpr auto cast = op<"mylate::cast(Tensor x, *, ScalarType dtype, bool flag=False, float scale=1.0) -> Tensor">;
constexpr auto fused = op<"mylate::mm_cast(Tensor a, Tensor b, *, ScalarType dtype, bool flag=False) -> Tensor">;
constexpr auto rule = rewrite<"mm_cast">(
    cast(aten::mm("a"_x, "b"_x), "dtype"_kw = slot<"dtype", DType>, "flag"_kw = slot<"flag", bool>),
    fused("a"_x, "b"_x, "dtype"_kw = slot<"dtype", DType>, "flag"_kw = slot<"flag", bool>));

PassOptions checked() {
  PassOptions o;
  o.verify_each_rewrite = true;
  o.verify_after_pass = true;  // also in a release build: the behaviour must not differ
  return o;
}
}  // namespace

TEST_CASE("a graph read before its op's schema was registered is bound when the pass starts") {
  REQUIRE(OpRegistry::global().find("mylate.cast.default") == no_op);  // not known yet
  Graph g = io::read_fx_text(graph_text);
  const NodeId c = g.find("cast");
  CHECK(g[c].signature() == nullptr);
  CHECK(g.binding_current());  // nothing registered since: nothing to bind

  auto rules = rule_set(rule);  // registers mylate::cast (the rule's root op)
  CHECK_FALSE(g.binding_current());
  CHECK_THROWS_WITH_AS(verify(g), doctest::Contains("call Graph::bind_late()"), GraphError);

  PassStats st = sweep(g, rules, checked());
  CHECK(st.total_matches() == 1);
  verify(g);
  CHECK(g.binding_current());
  const Node& r = g[g.find("mm_cast")];
  CHECK(op_name(r.op()) == "mylate.mm_cast.default");
  CHECK(*r.kwarg("dtype") == Value(ScalarType::Half));
  CHECK(*r.kwarg("flag") == Value(false));  // the late-bound default, read through the schema
}

TEST_CASE("bind_late binds the nodes left unbound and refuses, unchanged, a node that does not fit") {
  Graph bad = io::read_fx_text(R"(graph():
    %x : [num_users=2] = placeholder[target=x]
    %good : [num_users=1] = call_function[target=torch.ops.mylate2.f.default](args = (%x,), kwargs = {k: 2})
    %bad : [num_users=1] = call_function[target=torch.ops.mylate2.f.default](args = (%x,), kwargs = {nope: 1})
    return (good, bad)
)");
  Graph g = io::read_fx_text(R"(graph():
    %x : [num_users=1] = placeholder[target=x]
    %good : [num_users=1] = call_function[target=torch.ops.mylate2.f.default](args = (%x,), kwargs = {k: 2})
    %other : [num_users=1] = call_function[target=torch.ops.mylate2.g.default](args = (%good, %good), kwargs = {})
    return (other,)
)");
  CHECK(bad.binding_current());
  schema::register_schema("mylate2::f(Tensor x, *, int k=1) -> Tensor");
  CHECK_FALSE(bad.binding_current());
  CHECK_THROWS_WITH_AS(bad.bind_late(), doctest::Contains("node bad does not fit"), GraphError);
  CHECK(bad[bad.find("good")].signature() == nullptr);  // nothing bound: all or nothing
  CHECK_FALSE(bad.binding_current());

  CHECK_FALSE(g.binding_current());
  g.bind_late();
  CHECK(g[g.find("good")].signature() == OpRegistry::global().signature(intern_op("mylate2.f.default")));
  CHECK(*g[g.find("good")].arg(1) == Value(std::int64_t{2}));
  CHECK(g[g.find("other")].signature() == nullptr);
  CHECK(g.binding_current());  // mylate2.g has no schema: it stays unbound, and that is current
  schema::register_schema("mylate2::g(Tensor a, Tensor b) -> Tensor");
  CHECK_FALSE(g.binding_current());
  g.bind_late();
  CHECK(g[g.find("other")].signature() != nullptr);
  CHECK(g.binding_current());
  verify(g);
}

TEST_CASE("a mutating op registered late is counted as mutating once bound") {
  Graph g = io::read_fx_text(R"(graph():
    %x : [num_users=1] = placeholder[target=x]
    %w : [num_users=1] = call_function[target=torch.ops.mylate3.fill.default](args = (%x,), kwargs = {})
    return (w,)
)");
  CHECK(g.num_mutating() == 0);
  schema::register_schema("mylate3::fill(Tensor(a!) x) -> Tensor(a!)");
  g.bind_late();
  CHECK(g.num_mutating() == 1);
  verify(g);
}
