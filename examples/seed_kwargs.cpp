// seed_kwargs: the two questions Inductor's pattern matcher cannot answer well, answered on the
// seed MLP graph (four `mm -> seedlib::scale_cast(dtype=..., clamp=..., scale=...)` blocks).
//
//  (a) Put non-scalar keyword arguments in a pattern: typed slots bind the dtype as a DType,
//      clamp as a bool, scale as a double, whether the node writes them or leaves them to the
//      schema's defaults (clamp is absent on two of the four nodes: it reads as false).
//  (b) Read the kwargs of the matched node when the pattern does not name them: the match
//      gives every matched node with all its arguments, typed.
#include <cstdio>
#include <string>

#include <ctmatch/graph/value_print.hpp>
#include <ctmatch/io/read.hpp>
#include <ctmatch/pattern.hpp>
#include <ctmatch/schema/builtin.hpp>

using namespace ctmatch;
using namespace ctmatch::dsl;

// A custom op, declared from its schema: names, positions, keyword-only markers, types and
// defaults are known at compile time.
constexpr auto scale_cast =
    op<"seedlib::scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor">;

// (a) mm -> scale_cast, with a typed slot for each keyword argument.
constexpr auto typed_kwargs = scale_cast(aten::mm("a"_x, "b"_x),                 //
                                         "dtype"_kw = slot<"dtype", DType>,      //
                                         "clamp"_kw = slot<"clamp", bool>,       //
                                         "scale"_kw = slot<"scale", double>);

// (b) the same structure, naming no keyword argument of scale_cast.
constexpr auto no_kwargs = scale_cast(aten::mm("a"_x, "b"_x));

int main(int argc, char** argv) {
  std::string file = argc > 1 ? argv[1] : std::string(CTMATCH_TEST_DATA) + "/seed_mlp.export.fx.txt";
  schema::ensure_builtin_schemas();
  Graph g = io::read_graph_file(file);

  std::printf("(a) typed kwarg slots\n");
  int typed = 0;
  for (const Node& n : g.nodes()) {
    auto m = match(typed_kwargs, g, n.id());
    if (!m) continue;
    ++typed;
    DType dtype = m->get<"dtype">();  // a DType, not a string or a Python object
    bool clamp = m->get<"clamp">();
    double scale = m->get<"scale">();
    std::printf("  %-13s mm=%-5s a=%-6s dtype=torch.%s clamp=%s%s scale=%g\n", n.name().data(),
                m->node(1).name().data(), g[m->get<"a">()].name().data(),
                std::string(torch_name(dtype)).c_str(), clamp ? "true " : "false",
                n.arg_written(2) ? "" : " (absent: default)", scale);
  }

  std::printf("(b) every kwarg of the matched node, though the pattern names none\n");
  int plain = 0;
  for (const Node& n : g.nodes()) {
    auto m = match(no_kwargs, g, n.id());
    if (!m) continue;
    ++plain;
    const Node& root = m->root_node();
    std::string kwargs;
    for (const Kwarg& k : root.kwargs())
      kwargs += (kwargs.empty() ? "" : ", ") + k.name + "=" + to_string(k.value, &g) + " (" +
                std::string(kind_name(k.value.kind())) + ")";
    std::printf("  %-13s {%s}\n", root.name().data(), kwargs.c_str());
  }

  // Both patterns find the four blocks of the seed MLP; anything else is a failure.
  if (typed != 4 || plain != 4) {
    std::fprintf(stderr, "seed_kwargs: expected 4 and 4 matches, found %d and %d\n", typed, plain);
    return 1;
  }
  return 0;
}
