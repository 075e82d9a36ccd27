// ctmatch-opt's rewrite flags as a user runs them: --rules bench --mode sweep --stats-json
// gives Inductor's matches, roots and histogram for every graph of tests/data in both formats;
// --explain, --rules errors, DOT highlighting, and the report without arguments.
#include <doctest/doctest.h>

#include <boost/json/src.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../io/test_cli_run.hpp"

namespace {
using cli_test::quote;
const std::filesystem::path data = CTMATCH_TEST_DATA;

cli_test::Result run(const std::string& args) { return cli_test::run(args); }

boost::json::object expected_models() {
  return boost::json::parse(read_test_file(data / "bench_expected.json")).at("models").as_object();
}
}  // namespace

TEST_CASE("--rules bench --mode sweep --stats-json: Inductor's results, from JSON and FX alike") {
  std::size_t files = 0;
  for (const auto& [model, exp] : expected_models()) {
    for (const auto& file : exp.at("files").as_array()) {
      std::string name(file.as_string());
      CAPTURE(name);
      auto r = run(quote((data / name).string()) + " --rules bench --mode sweep --stats-json");
      REQUIRE(r.status == 0);
      auto got = boost::json::parse(r.out).as_object();
      CHECK(got.at("matches") == exp.at("matches"));
      CHECK(got.at("roots") == exp.at("roots"));
      CHECK(got.at("hist_after") == exp.at("hist_after"));
      CHECK(got.at("hist") == exp.at("hist_after"));
      CHECK(got.at("time_s").as_double() > 0);
      ++files;
    }
  }
  CHECK(files == 9);
}

TEST_CASE("--mode fixpoint and --rules by name") {
  auto r = run(quote((data / "gpt2.export.fx.txt").string()) + " --rules view_view,layer_norm --mode fixpoint --stats-json");
  REQUIRE(r.status == 0);
  auto got = boost::json::parse(r.out).as_object();
  CHECK(got.at("mode") == "fixpoint");
  CHECK(got.at("cap_hit") == false);
  CHECK(got.at("matches").at("layer_norm") == 25);
  CHECK(got.at("matches").as_object().size() == 2);  // view_view of both sets counts under one name
}

TEST_CASE("--rules inductor_joint: the joint-graph port, with Inductor's count of handlers that change nothing") {
  auto r = run(quote((data / "inductor" / "joint" / "_sfdp_pattern_13_half_inference_scalar_nodrop.export.json").string()) +
               " --rules inductor_joint --stats-json");
  REQUIRE(r.status == 0);
  auto got = boost::json::parse(r.out).as_object();
  CHECK(got.at("matches").at("_sfdp_pattern_13[_sfdp_params_check]") == 1);
  CHECK(got.at("unchanged").at("bmm_to_mm") == 1);  // a cpu tensor: looked, left alone
  CHECK(got.at("nodes") == 10);
}

TEST_CASE("--rules inductor_joint_early, inductor_joint_late: the passes Inductor runs around the joint one") {
  const std::string gpt2 = quote((data / "inductor" / "joint" / "gpt2.export.json").string());
  auto early = run(gpt2 + " --rules inductor_joint_early --stats-json --emit none");
  REQUIRE(early.status == 0);
  auto got = boost::json::parse(early.out).as_object();
  CHECK(got.at("rules") == "inductor_joint_early");
  // Inductor's oracle: 220 pointless_view calls of which 2 remove a view; 12 calls each of the
  // pairs, which change nothing
  CHECK(got.at("matches").at("pointless_view") == 2);
  CHECK(got.at("unchanged").at("pointless_view") == 218);
  CHECK(got.at("unchanged").at("pointless_view_pair") == 12);
  CHECK(got.at("unchanged").at("pointless_permute_pair") == 12);
  // The scaled softmax's max on the SDPA module whose scale is a number no SDPA entry takes.
  auto late = run(quote((data / "inductor" / "joint" / "_sfdp_pattern_4_inference_scalar.export.fx.txt").string()) +
                  " --rules inductor_joint_late --stats-json --emit none");
  REQUIRE(late.status == 0);
  CHECK(boost::json::parse(late.out).as_object().at("matches").at("mul_softmax_pattern") == 1);
}

TEST_CASE("--rules inductor_post_grad: the post-grad port, whose checks need the metadata FX text lacks") {
  auto r = run(quote((data / "inductor" / "postgrad" / "addmm_bias.before.fx.txt").string()) +
               " --rules inductor_post_grad --stats-json");
  REQUIRE(r.status == 0);
  auto got = boost::json::parse(r.out).as_object();
  CHECK(got.at("rules") == "inductor_post_grad");
  CHECK(got.at("matches").as_object().empty());  // add(mm, bias) stays: no shapes, no dtypes to check
  CHECK(got.at("hist_after").at("aten.mm.default") == 1);
}

TEST_CASE("--explain NODE says why each rule of its op does or does not match") {
  auto r = run("--explain gelu --emit none");
  CHECK(r.status == 0);
  CHECK(r.err.find("node gelu (aten.gelu.default):") != std::string::npos);
  CHECK(r.err.find("gelu_tanh: matches") != std::string::npos);
  auto s = run("--explain scale_cast --rules bench --emit none");
  CHECK(s.err.find("mm_scale_cast: matches") != std::string::npos);
  auto m = run("--explain mm --rules bench --emit none");
  CHECK(m.err.find("no rule has this op as its root") != std::string::npos);
  auto bad = run("--explain nope --emit none");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no node called 'nope'") != std::string::npos);
}

TEST_CASE("wrong --rules and --mode are usage errors") {
  auto r = run("--rules bench,nope --emit none");
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown rule 'nope'") != std::string::npos);
  auto m = run("--rules bench --mode twice --emit none");
  CHECK(m.status == 2);
  CHECK(m.err.find("unknown mode 'twice'") != std::string::npos);
}

TEST_CASE("--emit dot highlights the nodes the rewrites created") {
  auto r = run("--rules bench --emit dot");
  REQUIRE(r.status == 0);
  std::size_t filled = 0;
  for (std::size_t p = r.out.find("style=filled"); p != std::string::npos; p = r.out.find("style=filled", p + 1))
    ++filled;
  CHECK(filled == 8);  // 4 gelu_tanh, 4 mm_scale_cast
  CHECK(r.out.find("bench.gelu_tanh.default") != std::string::npos);
}

TEST_CASE("without arguments: default and bench on the embedded seed_mlp, a short report") {
  auto r = run("");
  CHECK(r.status == 0);
  CHECK(r.out.find("seed_mlp") != std::string::npos);
  CHECK(r.out.find("gelu_tanh: 4 at gelu_3 gelu_2 gelu_1 gelu") != std::string::npos);
  CHECK(r.out.find("mm_scale_cast: 4 at") != std::string::npos);
  CHECK(r.out.find("19 -> 15 nodes") != std::string::npos);
  CHECK(r.out.find("seedlib.mm_scale_cast.default") != std::string::npos);  // the graph after
}
