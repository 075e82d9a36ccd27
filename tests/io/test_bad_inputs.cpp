// The malformed-input corpus: every tests/data/bad/NAME.fx.txt, NAME.json and NAME.pt2 is read through
// io::read_graph (format detected from the content) and must fail with exactly the message in
// NAME.expect (`LINE:COL: error: MESSAGE`, what follows `FILE:`). Inputs too large to commit
// (nesting 100000 deep) are generated here.
#include <doctest/doctest.h>

#include <ctmatch/io/read.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_data.hpp"

using namespace ctmatch;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// What reading `text` throws, as `FILE:LINE:COL: error: ...`; "no error" when it reads.
std::string error_of(std::string_view text, const std::string& file) {
  try {
    io::read_graph(text, file);
  } catch (const io::ParseError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("every malformed input in tests/data/bad fails with its expected message") {
  const std::filesystem::path dir = std::filesystem::path(CTMATCH_TEST_DATA) / "bad";
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (ends_with(n, ".fx.txt") || ends_with(n, ".json") || ends_with(n, ".pt2")) inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  std::size_t fx = 0;
  for (const auto& path : inputs) {
    std::string file = path.filename().string();
    bool is_fx = ends_with(file, ".fx.txt");
    fx += is_fx;
    std::string stem = file.substr(0, file.size() - (is_fx ? 7 : ends_with(file, ".pt2") ? 4 : 5));
    std::filesystem::path expect_path = dir / (stem + ".expect");
    INFO(file);
    REQUIRE_MESSAGE(std::filesystem::exists(expect_path), "missing " << stem << ".expect");
    std::string expected = read_test_file(expect_path);
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) expected.pop_back();
#if !defined(CTMATCH_HAVE_LIBZIP)
    if (ends_with(file, ".pt2"))  // a build without libzip refuses every archive, saying why
      expected = "1:1: error: a .pt2 archive, which this build of ctmatch cannot open: it was built without libzip (Debian: libzip-dev)";
#endif
    CHECK(error_of(read_test_file(path), file) == file + ":" + expected);
  }
  CHECK(fx >= 18);
}

TEST_CASE("nesting 100000 deep is an error, not a stack overflow") {
  const std::size_t depth = 100000;
  std::string text =
      "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
      "    %v : [num_users=1] = call_function[target=torch.ops.mylib.deep.default](args = (%x, ";
  std::size_t col = text.size() - text.rfind('\n');  // column of the first '['
  text.append(depth, '[');
  text.append(depth, ']');
  text += "), kwargs = {})\n    return (v,)";
  // Column of the bracket that goes past the limit (the args tuple is level 1).
  std::size_t limit_col = col + static_cast<std::size_t>(io::fx::detail::max_nesting) - 1;
  CHECK(error_of(text, "deep.fx.txt") ==
        "deep.fx.txt:3:" + std::to_string(limit_col) + ": error: lists and tuples nested more than " +
            std::to_string(io::fx::detail::max_nesting) + " deep");

  // The same in the returned value, and unclosed.
  std::string ret = "graph():\n    %x : [num_users=1] = placeholder[target=x]\n    return ";
  ret.append(depth, '(');
  CHECK(error_of(ret, "deep_return.fx.txt").find("nested more than") != std::string::npos);

  // torch.export JSON nested as deep: an error too (the message is the JSON reader's).
  std::string json(depth, '[');
  json.insert(0, "{\"graph_module\": ");
  CHECK(error_of(json, "deep.json") != "no error");
}

TEST_CASE("nesting up to the limit reads") {
  std::string text =
      "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
      "    %v : [num_users=1] = call_function[target=torch.ops.mylib.deep.default](args = (%x, ";
  const std::size_t inner = static_cast<std::size_t>(io::fx::detail::max_nesting) - 1;
  text.append(inner, '[');
  text += "%x";
  text.append(inner, ']');
  text += "), kwargs = {})\n    return (v,)";
  Graph g = io::read_fx_text(text);
  const Value* v = &g[g.find("v")].args()[1];
  std::size_t levels = 0;
  while (v->is_list()) {
    ++levels;
    v = &v->items()->front();
  }
  CHECK(levels == inner);
  CHECK(v->node() == g.find("x"));
  CHECK(io::write_fx_text(g) == text);
}

TEST_CASE("a failed read leaves nothing behind: reading again works") {
  std::string good = read_test_file(std::filesystem::path(CTMATCH_TEST_DATA) / "seed_mlp.export.fx.txt");
  std::string bad = good.substr(0, good.size() / 2);
  CHECK(error_of(bad, "half.fx.txt").find("half.fx.txt:") == 0);
  Graph g = io::read_graph(good, "seed_mlp.export.fx.txt");
  CHECK(g.size() == 19);
}

TEST_CASE("every prefix of a real graph is either read or rejected with a position") {
  // Truncation at any byte must give a ParseError, never a crash or another exception type.
  std::string good = read_test_file(std::filesystem::path(CTMATCH_TEST_DATA) / "seed_mlp.export.fx.txt");
  std::size_t errors = 0;
  for (std::size_t n = 0; n < good.size(); ++n) {
    std::string e = error_of(std::string_view(good).substr(0, n), "p.fx.txt");
    errors += e.rfind("p.fx.txt:", 0) == 0;
  }
  // A prefix reads only if it ends after `return (sum_1` closed: `return (sum_1,)` is the end.
  CHECK(errors == good.size());
}
