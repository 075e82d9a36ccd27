// ctmatch-opt as a user runs it: the embedded sample, emitting every format, output files,
// standard input, and exit status 2 with `FILE:LINE:COL: error: ...` for every malformed input.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_cli_run.hpp"

using cli_test::quote;
using cli_test::run;


namespace {
const std::filesystem::path data = CTMATCH_TEST_DATA;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

TEST_CASE("the CLI tests know where ctmatch-opt is") {
#ifndef CTMATCH_OPT_EXE
  FAIL("ctmatch-opt was not built (configure with CTMATCH_BUILD_TOOLS=ON to test it)");
#else
  CHECK(std::filesystem::exists(CTMATCH_OPT_EXE));
#endif
}

TEST_CASE("without FILE it reads the embedded sample graph, seed_mlp (--emit fx prints it as FX text)") {
  // (With no arguments at all it runs the rule sets on it instead: tests/rewrite/test_cli_rewrite.cpp.)
  auto r = run("--emit fx");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out == read_test_file(data / "seed_mlp.export.fx.txt") + "\n");
}

TEST_CASE("a .pt2 archive reads as the exported program inside; an error in it is named FILE:ENTRY:LINE:COL") {
  auto r = run(quote((data / "seed_mlp.pt2").string()) + " --emit fx");
#if defined(CTMATCH_HAVE_LIBZIP)
  CHECK(r.status == 0);
  CHECK(r.out == read_test_file(data / "seed_mlp.export.fx.txt") + "\n");
  auto bad = run(quote((data / "bad" / "pt2_bad_json.pt2").string()) + " --emit none");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("pt2_bad_json.pt2:seed_mlp/models/model.json:1:268: error: ") != std::string::npos);
#else
  CHECK(r.status == 2);
  CHECK(r.err.find("built without libzip") != std::string::npos);
#endif
}

TEST_CASE("--emit fx -o OUT writes the graph back byte for byte (and a final newline)") {
  for (std::string name : {"resnet18.postgrad.fx.txt", "gpt2.joint.fx.txt"}) {
    INFO(name);
    auto out = cli_test::temp_path("out.fx.txt");
    auto r = run(quote((data / name).string()) + " --emit fx -o " + quote(out.string()));
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(read_test_file(out) == read_test_file(data / name) + "\n");
    std::filesystem::remove(out);
  }
}

TEST_CASE("--emit dot and --emit none") {
  auto dot = run("--emit dot");
  CHECK(dot.status == 0);
  CHECK(dot.out.rfind("digraph G {\n", 0) == 0);
  CHECK(dot.out.find("aten.mm.default") != std::string::npos);
  auto none = run("--emit none");
  CHECK(none.status == 0);
  CHECK(none.out.empty());
}

TEST_CASE("--emit json writes torch.export JSON that reads back to the same graph") {
  auto json = cli_test::temp_path("seed.json");
  auto r = run("--emit json -o " + quote(json.string()));
  REQUIRE(r.status == 0);
  std::string text = read_test_file(json);
  CHECK(text.find('{') == 0);
  // Read back (format detected from the content) and printed as FX: the sample again.
  auto back = run(quote(json.string()) + " --emit fx");
  CHECK(back.status == 0);
  CHECK(back.err.empty());
  CHECK(back.out == read_test_file(data / "seed_mlp.export.fx.txt") + "\n");
  std::filesystem::remove(json);
}

TEST_CASE("'-' reads standard input") {
  auto r = run("- --emit fx < " + quote((data / "seed_mlp.joint.fx.txt").string()));
  CHECK(r.status == 0);
  CHECK(r.out == read_test_file(data / "seed_mlp.joint.fx.txt") + "\n");
}

TEST_CASE("every malformed input: exit status 2 and FILE:LINE:COL: error: ... on stderr") {
  const auto dir = data / "bad";
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (ends_with(n, ".fx.txt") || ends_with(n, ".json")) inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  REQUIRE(inputs.size() >= 18);
  for (const auto& path : inputs) {
    std::string file = path.string();
    INFO(file);
    std::string stem = path.filename().string();
    stem = stem.substr(0, stem.size() - (ends_with(stem, ".json") ? 5 : 7));
    std::string expected = read_test_file(dir / (stem + ".expect"));
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) expected.pop_back();
    auto r = run(quote(file) + " --emit fx");
    CHECK(r.status == 2);
    CHECK(r.out.empty());  // nothing half-written
    CHECK(r.err == file + ":" + expected + "\n");
  }
}

TEST_CASE("a missing file and a wrong command line: exit status 2 with a message") {
  auto missing = run(quote((data / "no_such_graph.fx.txt").string()));
  CHECK(missing.status == 2);
  CHECK(missing.err == (data / "no_such_graph.fx.txt").string() + ": error: cannot open file: No such file or directory\n");

  auto unknown = run("--frobnicate");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.rfind("ctmatch-opt: error: unknown option '--frobnicate'\nusage: ctmatch-opt", 0) == 0);

  auto bad_emit = run("--emit yaml");
  CHECK(bad_emit.status == 2);
  CHECK(bad_emit.err.find("--emit: unknown format 'yaml'") != std::string::npos);

  auto no_value = run("-o");
  CHECK(no_value.status == 2);
  CHECK(no_value.err.find("option '-o' needs a value") != std::string::npos);

  auto two = run("a.fx.txt b.fx.txt");
  CHECK(two.status == 2);
  CHECK(two.err.find("more than one input file") != std::string::npos);

  auto mixed = run("--stats-json --emit fx");
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("give -o OUT") != std::string::npos);

  auto help = run("--help");
  CHECK(help.status == 0);
  CHECK(help.out.rfind("usage: ctmatch-opt", 0) == 0);
}

TEST_CASE("an output that cannot be written: exit status 1, and the reason") {
  auto r = run("-o " + quote((data / "no_such_dir" / "out.fx.txt").string()));
  CHECK(r.status == 1);
  CHECK(r.err.find("out.fx.txt: error: cannot create a temporary file beside it: No such file or directory") != std::string::npos);
}

TEST_CASE("-o is atomic: a write that fails leaves the old file, and -o naming the input keeps it whole") {
  const auto out = cli_test::temp_path("atomic.fx.txt");
  { std::ofstream(out) << "old content\n"; }
  // Past the file-size limit (as on a full disk) the write fails: reported with its reason.
  const std::string cmd = "bash -c " + quote("ulimit -f 0; " + quote(CTMATCH_OPT_EXE) + " -o " + quote(out.string())) + " 2>&1";
  std::string said;
  {
    std::FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) said.append(buf, n);
    CHECK(WEXITSTATUS(::pclose(p)) == 1);
  }
  CHECK(said.find("cannot write: File too large") != std::string::npos);
  CHECK(read_test_file(out) == "old content\n");
  std::size_t left = 0;  // no temporary file beside it
  for (const auto& e : std::filesystem::directory_iterator(out.parent_path()))
    left += e.path().filename().string().rfind(out.filename().string() + ".tmp", 1) == 1;
  CHECK(left == 0);

  // The input as the output: read whole, then replaced.
  std::filesystem::copy_file(data / "seed_mlp.export.fx.txt", out, std::filesystem::copy_options::overwrite_existing);
  auto r = run(quote(out.string()) + " --rules bench -o " + quote(out.string()));
  CHECK(r.status == 0);
  CHECK(read_test_file(out).find("seedlib.mm_scale_cast") != std::string::npos);

  // A link is written through: the link stays, its target gets the graph.
  const auto link = cli_test::temp_path("link.fx.txt");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(out, link);
  CHECK(run("--emit fx -o " + quote(link.string())).status == 0);
  CHECK(std::filesystem::is_symlink(std::filesystem::symlink_status(link)));
  CHECK(read_test_file(out) == read_test_file(data / "seed_mlp.export.fx.txt") + "\n");
  std::filesystem::remove(link);
  std::filesystem::remove(out);
}

TEST_CASE("inputs are bounded: a stream without end, a file over --max-input-bytes, a directory") {
  auto zero = run("/dev/zero --max-input-bytes 1000000");
  CHECK(zero.status == 2);
  CHECK(zero.err == "/dev/zero: error: input larger than the limit of 1000000 bytes (raise it with the tool's --max-input-bytes)\n");
  auto small = run(quote((data / "seed_mlp.export.fx.txt").string()) + " --max-input-bytes 100");
  CHECK(small.status == 2);
  CHECK(small.err.find("is larger than the limit of 100 bytes") != std::string::npos);
  auto dir = run(quote(data.string()));
  CHECK(dir.status == 2);
  CHECK(dir.err.find(": error: is a directory") != std::string::npos);
  CHECK(run("--max-input-bytes 0").status == 2);
  CHECK(run(quote((data / "seed_mlp.export.fx.txt").string()) + " --max-input-bytes 100000 --emit none").status == 0);
}

TEST_CASE("valid input that JSON cannot hold: exit status 2, at the node") {
  auto r = run(quote((data / "gpt2.joint.fx.txt").string()) + " --emit json");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("gpt2.joint.fx.txt:189:5: error: cannot write node '_tensor_constant0' as torch.export JSON: a get_attr node") !=
        std::string::npos);
}

TEST_CASE("a model's torch.export JSON, emitted as FX text, is its FX text byte for byte") {
  for (std::string model : {"seed_mlp", "resnet18", "gpt2"}) {
    INFO(model);
    auto r = run(quote((data / (model + ".export.json")).string()) + " --emit fx");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(r.out == read_test_file(data / (model + ".export.fx.txt")) + "\n");
  }
}

TEST_CASE("--stats prints counts and the op histogram on standard error") {
  auto r = run("--stats --emit none");
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("<embedded seed_mlp.export.fx.txt>: 19 nodes (13 call_function, 1 output, 5 placeholder)\n", 0) == 0);
  CHECK(r.err.find("     4  aten.mm.default\n") != std::string::npos);
  CHECK(r.err.find("     1  aten.sum.dim_IntList\n") != std::string::npos);
}
