// The graph's storage mechanisms: SmallVector (inline storage for users and schema bindings),
// InlineVector (a node's arguments, inside the node), HeapArray (its kwargs), NameStore (its
// name's characters), NameIndex (the flat name table), users lists and the journal past the inline capacity,
// LargeAllocator (the large arrays on huge pages), and graph copies.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <ctmatch/graph.hpp>

#if defined(__linux__)
#include <unistd.h>
#endif

using namespace ctmatch;

namespace {
OpId op2() { return intern_op("storage.op2.default"); }
// A signature with ten parameters: more than the eight a node binds inline.
// "k3": prefix and number. (Not `"k" + std::to_string(i)`: g++ 12 at -O2 warns falsely with
// -Wrestrict on that form.)
std::string numbered(std::string_view prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

OpId wide_op() {
  static OpId id = [] {
    OpId op = intern_op("storage.wide.default");
    OpSignature sig;
    sig.params.push_back({"x", false, std::nullopt});
    for (int i = 1; i < 10; ++i) sig.params.push_back({numbered("k", i), true, Value(std::int64_t{i})});
    OpRegistry::global().set_signature(op, sig);
    return op;
  }();
  return id;
}
std::vector<NodeId> users_of(const Graph& g, NodeId n) { return {g[n].users().begin(), g[n].users().end()}; }

struct Snapshot {
  std::vector<std::string> names;
  std::vector<std::vector<Value>> args;
  std::vector<std::vector<NodeId>> users;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};
Snapshot snapshot(const Graph& g) {
  Snapshot s;
  for (const Node& n : g.nodes()) {
    s.names.emplace_back(n.name());
    s.args.emplace_back(n.args().begin(), n.args().end());
    s.users.emplace_back(n.users().begin(), n.users().end());
  }
  return s;
}
}  // namespace

TEST_CASE("SmallVector grows past its inline capacity and keeps its elements") {
  SmallVector<std::uint32_t, 4> v;
  CHECK(v.is_inline());
  for (std::uint32_t i = 0; i < 4; ++i) v.push_back(i * 10);
  CHECK(v.is_inline());
  CHECK(v.size() == 4);
  v.push_back(40);  // the fifth element moves the storage to the heap
  CHECK_FALSE(v.is_inline());
  for (std::uint32_t i = 5; i < 100; ++i) v.push_back(i * 10);
  REQUIRE(v.size() == 100);
  for (std::uint32_t i = 0; i < 100; ++i) CHECK(v[i] == i * 10);
  v.push_back(v[0]);  // an element of the vector itself, at a growth
  CHECK(v.back() == 0);

  SmallVector<std::uint32_t, 4> copy = v;  // heap copy: independent storage
  copy[0] = 7;
  CHECK(v[0] == 0);
  CHECK(copy.size() == v.size());
  SmallVector<std::uint32_t, 4> moved = std::move(copy);
  CHECK(moved[0] == 7);
  CHECK(moved.size() == 101);
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
  CHECK(copy.is_inline());

  SmallVector<std::uint32_t, 4> small;  // inline copy and move
  small.push_back(1);
  small.push_back(2);
  SmallVector<std::uint32_t, 4> small2 = small;
  small2.push_back(3);
  CHECK(small.size() == 2);
  SmallVector<std::uint32_t, 4> small3 = std::move(small2);
  CHECK(small3.size() == 3);
  CHECK(small3[2] == 3);
  small3 = v;  // inline <- heap
  CHECK(small3 == v);
  small3 = small;  // heap-capacity vector <- inline one
  CHECK(small3 == small);
  const auto& alias = small3;
  small3 = alias;  // self-assignment keeps it
  CHECK(small3.size() == 2);
}

namespace {
// An element that counts the live objects of its type and marks moved-from ones, to see that
// InlineVector constructs and destroys each element exactly once.
struct Counted {
  static inline int live = 0;
  int v = -1;
  Counted() { ++live; }
  explicit Counted(int x) : v(x) { ++live; }
  Counted(const Counted& o) : v(o.v) { ++live; }
  Counted(Counted&& o) noexcept : v(o.v) {
    o.v = -2;
    ++live;
  }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
  friend bool operator==(const Counted& a, const Counted& b) { return a.v == b.v; }
};
using Counted3 = InlineVector<Counted, 3>;
std::vector<int> values(const Counted3& c) {
  std::vector<int> out;
  for (const Counted& x : c) out.push_back(x.v);
  return out;
}
}  // namespace

TEST_CASE("InlineVector keeps up to N elements inside, moves them out beyond, and makes and drops each once") {
  {
    Counted3 v;
    CHECK(v.is_inline());
    const char* self = reinterpret_cast<const char*>(&v);
    for (int i = 0; i < 3; ++i) v.emplace_back(i);
    CHECK(v.is_inline());  // the elements are inside the vector object
    CHECK(reinterpret_cast<const char*>(v.data()) >= self);
    CHECK(reinterpret_cast<const char*>(v.data() + 3) <= self + sizeof(v));
    CHECK(Counted::live == 3);
    v.push_back(v[0]);  // an element of the vector itself, at the growth to the heap
    CHECK_FALSE(v.is_inline());
    CHECK(values(v) == std::vector<int>{0, 1, 2, 0});
    CHECK(Counted::live == 4);  // the inline elements were moved out and destroyed
    for (int i = 4; i < 40; ++i) v.emplace_back(i);
    CHECK(v.size() == 40);
    CHECK(Counted::live == 40);

    Counted3 copy = v;  // heap copy: its own elements
    copy[0].v = 7;
    CHECK(v[0].v == 0);
    CHECK(Counted::live == 80);
    Counted3 moved = std::move(copy);  // a heap block changes hands: no element moves
    CHECK(moved[0].v == 7);
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    CHECK(copy.is_inline());
    CHECK(Counted::live == 80);

    Counted3 small{Counted(1), Counted(2)};
    Counted3 small2 = std::move(small);  // inline: the elements move one by one
    CHECK(values(small2) == std::vector<int>{1, 2});
    CHECK(small.empty());  // NOLINT(bugprone-use-after-move)
    small2 = moved;  // inline <- heap
    CHECK(small2 == moved);
    moved = small2;
    CHECK(moved.size() == 40);
    const Counted3& alias = small2;
    small2 = alias;  // self-assignment keeps it
    CHECK(small2.size() == 40);
    small2.pop_back();
    CHECK(small2.size() == 39);
    small2.clear();
    CHECK(small2.empty());
    CHECK(Counted::live == 80);  // v and moved: 40 each
  }
  CHECK(Counted::live == 0);  // every element made was destroyed once

  std::vector<Counted> source(5);
  for (int i = 0; i < 5; ++i) source[static_cast<std::size_t>(i)].v = i;
  Counted3 from_copy(source);  // a vector lvalue is copied
  CHECK(values(from_copy) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(source[0].v == 0);
  Counted3 from_moved(std::move(source));  // a vector rvalue gives its elements up
  CHECK(values(from_moved) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(source.empty());  // NOLINT(bugprone-use-after-move)
  Counted3 sized(2);  // value-initialized elements
  CHECK(values(sized) == std::vector<int>{-1, -1});
}

TEST_CASE("HeapArray: one pointer, nothing allocated when empty; copies, moves and destroys each element once") {
  static_assert(sizeof(HeapArray<Counted>) == sizeof(void*));
  {
    HeapArray<Counted> empty;
    CHECK(empty.empty());
    CHECK(empty.size() == 0);
    CHECK(empty.data() == nullptr);
    CHECK(empty.begin() == empty.end());
    CHECK(HeapArray<Counted>(std::vector<Counted>{}).empty());  // an empty vector allocates nothing either

    std::vector<Counted> source;
    for (int i = 0; i < 5; ++i) source.emplace_back(i);
    HeapArray<Counted> a(std::move(source));  // takes the elements
    CHECK(source.empty());  // NOLINT(bugprone-use-after-move)
    CHECK(a.size() == 5);
    CHECK(Counted::live == 5);
    for (int i = 0; i < 5; ++i) CHECK(a[static_cast<std::size_t>(i)].v == i);

    HeapArray<Counted> b = a;  // a deep copy
    b[0].v = 9;
    CHECK(a[0].v == 0);
    CHECK(Counted::live == 10);
    CHECK_FALSE(a == b);
    HeapArray<Counted> c = std::move(b);  // the block changes hands
    CHECK(b.empty());  // NOLINT(bugprone-use-after-move)
    CHECK(c[0].v == 9);
    CHECK(Counted::live == 10);
    c = a;  // replaces c's elements
    CHECK(c == a);
    CHECK(Counted::live == 10);
    const HeapArray<Counted>& alias = c;
    c = alias;  // self-assignment keeps it
    CHECK(c == a);
    std::span<const Counted> view = c;
    CHECK(view.size() == 5);
    CHECK(view.data() == c.data());
    CHECK(c.to_vector().size() == 5);
    c = HeapArray<Counted>();
    CHECK(c.empty());
    CHECK(Counted::live == 5);
  }
  CHECK(Counted::live == 0);
}

TEST_CASE("NameStore: names stay put as the store grows; a copy shares them and writes its own; pop gives the newest back") {
  NameStore s;
  std::vector<const char*> at;
  std::vector<std::string> want;
  for (int i = 0; i < 20000; ++i) {  // many chunks: 1 KiB doubling to 1 MiB
    want.push_back(numbered(i % 7 == 0 ? "a_rather_long_node_name_" : "n", i));
    at.push_back(s.add(want.back()));
  }
  std::string huge(3u << 20, 'h');  // larger than any chunk: a chunk of its own
  const char* h = s.add(huge);
  CHECK(NameStore::view(h) == huge);
  for (std::size_t i = 0; i < want.size(); ++i) {
    REQUIRE(NameStore::view(at[i]) == want[i]);
    CHECK(at[i][want[i].size()] == '\0');  // data() ends with a zero byte
  }
  CHECK(NameStore::view(NameStore::empty()).empty());
  CHECK(NameStore::view(s.add("")).empty());

  auto copy = std::make_unique<NameStore>(s);
  const char* mine = copy->add("only_in_the_copy");
  const char* theirs = s.add("only_in_the_source");  // written after the copy's last name: no overlap
  CHECK(NameStore::view(mine) == "only_in_the_copy");
  CHECK(NameStore::view(theirs) == "only_in_the_source");
  NameStore moved = std::move(s);
  s = NameStore();  // the source is gone: the copy's names still read
  CHECK(NameStore::view(at[123]) == want[123]);
  CHECK(NameStore::view(moved.add("after_the_move")) == "after_the_move");
  copy.reset();
  CHECK(NameStore::view(at[19999]) == want[19999]);  // `moved` still holds the chunks

  const char* last = moved.add("popped");
  moved.pop(last);
  CHECK(moved.add("again") == last);  // the same bytes, given back
  moved.pop(at[0]);  // not the newest: nothing happens
  CHECK(NameStore::view(at[0]) == want[0]);
}

TEST_CASE("a graph's names: a copy outlives its source, and a node taken back gives its name's bytes back") {
  auto g = std::make_unique<Graph>();
  NodeId x = g->placeholder("x");
  std::vector<NodeId> ids;
  for (int i = 0; i < 3000; ++i) ids.push_back(g->call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, numbered("node_", i)));
  Graph c = *g;
  NodeId only_g = g->call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "only_g");
  g.reset();
  for (int i = 0; i < 3000; ++i) CHECK(c[ids[static_cast<std::size_t>(i)]].name() == numbered("node_", i));
  CHECK(c.find("only_g") == no_node);
  NodeId only_c = c.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "only_c");
  CHECK(only_c == only_g);  // the same id in each graph, with a name of its own
  CHECK(c[only_c].name() == "only_c");
  const char* bytes = c[only_c].name().data();
  c.remove_newest(only_c);
  NodeId again = c.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "again");
  CHECK(c[again].name().data() == bytes);
  verify(c);
}

TEST_CASE("a node keeps up to four arguments inside itself; list arguments stay shared with their source") {
  Graph g;
  NodeId x = g.placeholder("x");
  Value shape = Value::list({Value(2), Value(3)});
  NodeId a = g.call(op2(), {NodeRef{x}, shape});
  const Node& na = g[a];
  const char* node = reinterpret_cast<const char*>(&na);
  const char* args = reinterpret_cast<const char*>(na.args().data());
  CHECK(args >= node);
  CHECK(args + na.args().size() * sizeof(Value) <= node + sizeof(Node));
  CHECK(na.args()[1].items() == shape.items());  // one box, shared: a copy did not deep-copy it

  NodeId wide = g.call(intern_op("storage.five.default"), {NodeRef{x}, Value(1), Value(2), Value(3), Value(4)});
  const char* wargs = reinterpret_cast<const char*>(g[wide].args().data());
  const char* wnode = reinterpret_cast<const char*>(&g[wide]);
  CHECK((wargs < wnode || wargs >= wnode + sizeof(Node)));  // the fifth argument sends them to the heap
  CHECK(g[wide].args().size() == 5);
  CHECK(g[wide].args()[4] == Value(4));

  // A copy of the graph has its own nodes, with their arguments inside them, equal to the source's.
  Graph copy = g;
  const char* cnode = reinterpret_cast<const char*>(&copy[a]);
  const char* cargs = reinterpret_cast<const char*>(copy[a].args().data());
  CHECK((cargs >= cnode && cargs < cnode + sizeof(Node)));
  CHECK(std::equal(copy[a].args().begin(), copy[a].args().end(), g[a].args().begin(), g[a].args().end()));
  CHECK(copy[x].users().size() == 2);
}

TEST_CASE("SmallVector insert_at, erase_at and resize keep the order") {
  SmallVector<std::int16_t, 8> v;
  v.resize(6, std::int16_t{-1});
  CHECK(v.size() == 6);
  CHECK(std::all_of(v.begin(), v.end(), [](std::int16_t x) { return x == -1; }));
  for (std::int16_t i = 0; i < 6; ++i) v[static_cast<std::size_t>(i)] = i;
  v.insert_at(0, 100);
  v.insert_at(3, 101);
  v.insert_at(v.size(), 102);  // 9 elements: past the inline capacity
  CHECK_FALSE(v.is_inline());
  std::vector<std::int16_t> expect{100, 0, 1, 101, 2, 3, 4, 5, 102};
  CHECK(std::vector<std::int16_t>(v.begin(), v.end()) == expect);
  v.erase_at(3);
  v.erase_at(0);
  v.erase_at(v.size() - 1);
  expect = {0, 1, 2, 3, 4, 5};
  CHECK(std::vector<std::int16_t>(v.begin(), v.end()) == expect);
  v.resize(20);
  CHECK(v[19] == 0);
  v.clear();
  CHECK(v.empty());
}

TEST_CASE("NameIndex agrees with a map through random inserts and erases") {
  // Many names in a small table: long probe runs, so erasure must shift entries back correctly.
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back(numbered("n", i % 7) + numbered("_", i));
  NameIndex index;
  std::map<std::string, NodeId> ref;
  auto name_of = [&](NodeId id) { return std::string_view(names[id]); };
  auto all_live = [](NodeId) { return true; };
  std::mt19937 rng(12345);
  for (int step = 0; step < 20000; ++step) {
    NodeId id = static_cast<NodeId>(rng() % names.size());
    if (ref.count(names[id])) {
      CHECK(index.erase(names[id], id));
      ref.erase(names[id]);
    } else {
      index.insert(names[id], id, all_live);
      ref.emplace(names[id], id);
    }
    if (step % 1000 == 0) {
      for (NodeId i = 0; i < names.size(); ++i) {
        auto it = ref.find(names[i]);
        CHECK(index.find(names[i], name_of, all_live) == (it == ref.end() ? no_node : it->second));
      }
    }
  }
  CHECK(index.size() == ref.size());
  for (const auto& [name, id] : ref) CHECK(index.find(name, name_of, all_live) == id);
  CHECK(index.find("absent", name_of, all_live) == no_node);
  CHECK_FALSE(index.erase("absent", 0));
}

TEST_CASE("Graph::find takes a view of any string, not only whole strings") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "alpha");
  std::string text = "alphabet";
  CHECK(g.find(std::string_view(text).substr(0, 5)) == a);
  CHECK(g.find(std::string_view(text)) == no_node);
  CHECK(g.find("") == no_node);
}

TEST_CASE("users lists past the inline capacity: erase, replace and rollback keep them exact") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId y = g.placeholder("y");
  std::vector<NodeId> us;
  for (int i = 0; i < 9; ++i) us.push_back(g.call(op2(), {NodeRef{x}, NodeRef{y}}));
  // A node using x three times (once in a list) is listed once.
  NodeId triple = g.call(op2(), {NodeRef{x}, Value::list({NodeRef{x}, NodeRef{y}, NodeRef{x}})});
  std::vector<Value> outs;
  for (NodeId u : us) outs.push_back(NodeRef{u});
  outs.push_back(NodeRef{triple});
  NodeId out = g.output(outs);
  std::vector<NodeId> expect = us;
  expect.push_back(triple);
  CHECK(users_of(g, x) == expect);
  CHECK(users_of(g, y) == expect);
  verify(g);

  // Rolled back: the users come back in their original order.
  Snapshot before = snapshot(g);
  {
    Graph::Transaction tx(g);
    NodeId r = g.call(op2(), {NodeRef{y}, NodeRef{y}}, {}, us[0], "r");
    g.replace_all_uses(us[4], r);
    g.erase(us[4]);
    g.replace_all_uses(us[0], r);
    g.erase(us[0]);
    g.set_args(us[7], {NodeRef{y}, NodeRef{y}}, {});
    verify(g);
    CHECK(std::count(g[x].users().begin(), g[x].users().end(), us[4]) == 0);
  }
  verify(g);
  CHECK(snapshot(g) == before);

  // Committed: erasing users from the middle keeps the order of the others.
  g.replace_all_uses(us[4], us[5]);
  g.erase(us[4]);
  g.replace_all_uses(us[1], us[2]);
  g.erase(us[1]);
  expect = {us[0], us[2], us[3], us[5], us[6], us[7], us[8], triple};
  CHECK(users_of(g, x) == expect);
  CHECK(users_of(g, y) == expect);
  auto out_users = users_of(g, us[5]);
  CHECK(std::count(out_users.begin(), out_users.end(), out) == 1);
  verify(g);
}

TEST_CASE("a schema with more parameters than the inline binding holds binds every one") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId w = g.call(wide_op(), {NodeRef{x}}, {{"k9", Value(std::int64_t{90})}, {"k2", Value(std::int64_t{20})}});
  const Node& n = g[w];
  REQUIRE(n.signature());
  CHECK(n.arg(0)->node() == x);
  CHECK(*n.arg(9)->get_if<std::int64_t>() == 90);
  CHECK(*n.arg(2)->get_if<std::int64_t>() == 20);
  CHECK(*n.arg(8)->get_if<std::int64_t>() == 8);  // default
  CHECK(n.arg_written(9));
  CHECK_FALSE(n.arg_written(8));
  Graph copy = g;  // the heap-held binding is copied, not shared
  g.set_args(w, {NodeRef{x}}, {});
  CHECK(*g[w].arg(9)->get_if<std::int64_t>() == 9);
  CHECK(*copy[w].arg(9)->get_if<std::int64_t>() == 90);
  verify(g);
  verify(copy);
}

TEST_CASE("a copied graph is independent and finds its names") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId a = g.call(op2(), {NodeRef{x}, NodeRef{x}});
  g.output({NodeRef{a}});
  Graph c = g;
  NodeId b = c.call(op2(), {NodeRef{a}, NodeRef{x}}, {}, c.last(), "b");
  c.replace_all_uses(a, b);
  CHECK(c.find("b") == b);
  CHECK(g.find("b") == no_node);
  CHECK(users_of(g, a) == std::vector<NodeId>{g.last()});
  CHECK(g.size() == 3);
  CHECK(c.size() == 4);
  verify(g);
  verify(c);
  c = g;  // copy assignment replaces the name table as well
  CHECK(c.find("b") == no_node);
  verify(c);
}

TEST_CASE("names stay unique and findable through many creations and erasures") {
  Graph g;
  NodeId x = g.placeholder("x");
  std::vector<NodeId> live;
  std::mt19937 rng(7);
  for (int step = 0; step < 3000; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      std::size_t k = rng() % live.size();
      g.erase(live[k]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      live.push_back(g.call(op2(), {NodeRef{x}, NodeRef{x}}));  // fresh name from the op: op2, op2_1, ...
    }
  }
  std::set<std::string> names;
  for (const Node& n : g.nodes()) {
    CHECK(names.emplace(n.name()).second);
    CHECK(g.find(n.name()) == n.id());
  }
  CHECK(names.size() == live.size() + 1);
  verify(g);
}

TEST_CASE("NameIndex skips entries of nodes that are not live and drops them when it grows") {
  std::vector<std::string> names{"a", "b", "a"};  // node 2 takes the name of node 0 once 0 is gone
  std::vector<bool> alive{true, true, false};
  auto name_of = [&](NodeId id) { return std::string_view(names[id]); };
  auto live = [&](NodeId id) { return id < alive.size() && alive[id]; };
  NameIndex index;
  CHECK(index.insert_unique("a", 0, name_of, live) == no_node);
  CHECK(index.insert_unique("b", 1, name_of, live) == no_node);
  CHECK(index.insert_unique("a", 2, name_of, live) == 0);  // "a" is taken by live node 0
  alive[0] = false;                                         // node 0 erased: its entry stays
  CHECK(index.find("a", name_of, live) == no_node);
  CHECK(index.insert_unique("a", 2, name_of, live) == no_node);
  alive[2] = true;
  CHECK(index.find("a", name_of, live) == 2);
  CHECK(index.size() == 3);  // the dead entry of node 0 is still held
  for (NodeId i = 3; i < 40; ++i) {  // growth rehashes and drops it
    names.push_back(numbered("n", static_cast<int>(i)));
    alive.push_back(true);
    index.insert(names[i], i, live);
  }
  CHECK(index.size() == 39);
  CHECK(index.find("a", name_of, live) == 2);
  alive[0] = true;  // even if node 0 came back, its entry is gone
  CHECK(index.find("a", name_of, live) == 2);
}

TEST_CASE("erased names are free again, and a rollback brings an erased name back even after a rehash") {
  Graph g;
  NodeId x = g.placeholder("x");
  NodeId keep = g.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "keep");
  g.erase(keep);
  CHECK(g.find("keep") == no_node);
  NodeId again = g.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "keep");
  CHECK(g.find("keep") == again);
  CHECK_THROWS_AS(g.call(op2(), {NodeRef{x}, NodeRef{x}}, {}, no_node, "keep"), GraphError);
  {
    Graph::Transaction tx(g);
    g.erase(again);
    for (int i = 0; i < 300; ++i) g.call(op2(), {NodeRef{x}, NodeRef{x}});  // the name table grows
    CHECK(g.find("keep") == no_node);
  }
  CHECK(g.find("keep") == again);
  CHECK(g.size() == 2);
  verify(g);
}

TEST_CASE("LargeVector: small buffers as usual, large ones on 2 MiB boundaries; contents survive growth, copy and shrink") {
  constexpr std::size_t huge = LargeAllocator<int>::huge_page;
  LargeVector<std::uint64_t> v;
  v.reserve(16);  // small: wherever the usual allocator puts it
  for (std::uint64_t i = 0; i < 16; ++i) v.push_back(i * 7);
  v.reserve(huge / sizeof(std::uint64_t) + 1);  // large: aligned, rounded up to whole pages
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % huge == 0);
  for (std::uint64_t i = 16; i < 600'000; ++i) v.push_back(i * 7);  // grows past 4 MiB
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % huge == 0);
  LargeVector<std::uint64_t> copy = v;
  CHECK(reinterpret_cast<std::uintptr_t>(copy.data()) % huge == 0);
  bool same = copy.size() == 600'000;
  for (std::uint64_t i = 0; i < copy.size(); ++i) same &= copy[i] == i * 7;
  CHECK(same);
  copy.resize(10);
  copy.shrink_to_fit();  // back to a small buffer, freed through the small path
  CHECK(copy.size() == 10);
  CHECK(copy[9] == 63);
  // Over-aligned elements (a Node is aligned to a cache line) keep their alignment either way.
  struct alignas(64) Line { char bytes[64]; };
  LargeVector<Line> small(3), large(huge / sizeof(Line) * 2);
  CHECK(reinterpret_cast<std::uintptr_t>(small.data()) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % huge == 0);
}

#if defined(__linux__)
namespace {
/// Resident memory of this process in bytes (/proc/self/statm: pages).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  REQUIRE(f != nullptr);
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  REQUIRE(read == 2);
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}
}  // namespace

TEST_CASE("LargeVector: a freed large buffer goes back to the system, each time") {
  // The C library's heap would keep it: after a freed 30 MB block its mmap threshold rises past
  // 24 MB, a 24 MB block then comes from the heap, and a small block taken after it keeps it
  // from being trimmed when freed. Large arrays are mapped on their own instead.
  { LargeVector<std::uint64_t> warm((std::size_t{30} << 20) / sizeof(std::uint64_t), 1); }
  constexpr std::size_t bytes = std::size_t{24} << 20;
  std::vector<std::unique_ptr<char[]>> later;  // small blocks taken after each large one
  for (int round = 0; round < 3; ++round) {
    std::size_t before_free = 0;
    {
      LargeVector<std::uint64_t> v(bytes / sizeof(std::uint64_t), 1);  // written: resident
      later.push_back(std::make_unique<char[]>(4096));
      before_free = resident_bytes();
      CHECK(v[v.size() - 1] == 1);
    }
    const std::size_t after_free = resident_bytes();
    CAPTURE(round);
    CHECK(after_free + bytes / 2 < before_free);
  }
}
#endif
