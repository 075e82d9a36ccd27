// A graph read from a file has room for a quarter more nodes (Graph::room_for): the first pass
// over it does not start by moving every node to a larger arena.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <ctmatch/io/read.hpp>

using namespace ctmatch;

TEST_CASE("a graph read from a file has room for a quarter more nodes without moving") {
  // gpt2 has 949 nodes: grown by doubling, its arena would hold 1024 and move at the 76th new one.
  for (std::string file : {"gpt2.export.json", "gpt2.export.fx.txt"}) {
    CAPTURE(file);
    Graph g = io::read_graph_file((std::filesystem::path(CTMATCH_TEST_DATA) / file).string());
    const std::size_t n = g.size();
    REQUIRE(n == 949);
    const Node* first = &g[g.first()];
    const NodeId x = g.first();
    const OpId relu = intern_op("aten.relu.default");
    for (std::size_t i = 0; i < n / 4; ++i) g.call(relu, {NodeRef{x}}, {}, g.last());
    CHECK(&g[g.first()] == first);
    Graph copy = g;  // a copy keeps the room left
    const Node* copied = &copy[copy.first()];
    copy.call(relu, {NodeRef{x}}, {}, copy.last());
    CHECK(&copy[copy.first()] == copied);
  }
}
