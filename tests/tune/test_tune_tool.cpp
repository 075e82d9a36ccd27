// ctmatch-tune's output, run as a user runs it: --json parses, its cuda::mm configs equal
// Inductor's lists (tests/data/mm_configs_expected.json), --bench with --cache measures once.
// (Registered from tools/ctmatch-tune/CMakeLists.txt, which knows where the executable is.)
#include <doctest/doctest.h>

#include <boost/json/src.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
struct Run {
  int status = -1;
  std::string out;
};
Run run(const std::string& args) {
  const std::string cmd = std::string(CTMATCH_TUNE_EXE) + " " + args + " 2>&1";
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.status = ::pclose(p);
  return r;
}
boost::json::value expected() {
  std::ifstream in(std::string(CTMATCH_TEST_DATA) + "/mm_configs_expected.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str());
}
}  // namespace

TEST_CASE("--device cuda --json lists Inductor's configs for every case, without a GPU") {
  const auto doc = expected();
  for (const auto& cv : doc.at("cases").as_array()) {
    const auto& c = cv.as_object();
    const std::string dims = "--m " + std::to_string(c.at("m").as_int64()) + " --n " + std::to_string(c.at("n").as_int64()) +
                             " --k " + std::to_string(c.at("k").as_int64());
    const Run r = run("mm " + dims + " --dtype bf16 --device cuda --max-autotune --json");
    CAPTURE(dims);
    CAPTURE(r.out);
    REQUIRE(r.status == 0);
    const auto out = boost::json::parse(r.out);
    const auto& choices = out.at("choices").as_array();
    REQUIRE(choices.size() >= 2);
    CHECK(choices[0].at("uid").as_string() == "aten::mm");
    CHECK(choices[0].at("kwargs").as_object().empty());
    boost::json::array cuda_mm;
    for (const auto& ch : choices)
      if (ch.at("uid").as_string() == "cuda::mm") cuda_mm.push_back(ch.at("kwargs"));
    const auto& want = c.at("configs").as_array();
    REQUIRE(cuda_mm.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(cuda_mm[i] == want[i]);  // names, values and order
    // cuda::mm's choices come right after aten::mm, then cuda::mm_wgmma's
    CHECK(choices[1].at("uid").as_string() == "cuda::mm");
    CHECK(choices.back().at("uid").as_string() == "cuda::mm_wgmma");
  }
}

TEST_CASE("without --max-autotune only the extern choice is listed") {
  const Run r = run("mm --m 128 --n 128 --k 128 --json");
  REQUIRE(r.status == 0);
  CHECK(r.out == "{\"choices\": [{\"uid\": \"aten::mm\", \"kwargs\": {}}]}\n");
}

TEST_CASE("--bench times host choices and --cache makes the second run measure nothing") {
  const auto path = std::filesystem::temp_directory_path() / ("ctmatch_tune_tool_" + std::to_string(::getpid()) + ".cache");
  std::filesystem::remove(path);
  const std::string args = "mm --m 31 --n 45 --k 27 --dtype bf16 --max-autotune --bench --json --cache " + path.string();
  const Run first = run(args);
  REQUIRE(first.status == 0);
  const auto a = boost::json::parse(first.out);
  CHECK(a.at("winner").at("from_cache").as_bool() == false);
  CHECK(a.at("choices").as_array()[0].as_object().contains("median_ms"));
  const Run second = run(args);
  REQUIRE(second.status == 0);
  const auto b = boost::json::parse(second.out);
  CHECK(b.at("winner").at("from_cache").as_bool() == true);
  CHECK(b.at("winner").at("index") == a.at("winner").at("index"));
  CHECK_FALSE(b.at("choices").as_array()[0].as_object().contains("median_ms"));
  std::filesystem::remove(path);
}

TEST_CASE("bad arguments are clear errors") {
  CHECK(run("conv --m 1 --n 1 --k 1").out.find("unknown op 'conv'") != std::string::npos);
  CHECK(run("mm --m 4 --n 4").out.find("--m, --n and --k are required") != std::string::npos);
  CHECK(run("mm --m 4 --n 4 --k x").out.find("--k needs a positive integer, got 'x'") != std::string::npos);
  CHECK(run("mm --m 4 --n 4 --k 4 --dtype f64").out.find("--dtype takes bf16, f16 or f32") != std::string::npos);
  CHECK(run("mm --m 4 --n 4 --k 4 --device tpu").out.find("--device takes host or cuda") != std::string::npos);
  {
    // Without the CUDA backend or a GPU this is a clear error; where both exist it times the
    // choices and names a winner.
    const auto cuda = run("mm --m 4 --n 4 --k 4 --device cuda --max-autotune --bench");
    if (cuda.out.find("needs the CUDA backend") == std::string::npos) {
      CHECK(cuda.status == 0);
      CHECK(cuda.out.find("winner") != std::string::npos);
    }
  }
  CHECK(run("mm --m 4 --n 4 --k 4 --dtype f16 --max-autotune --bench").out.find("f32 or bf16") != std::string::npos);
  CHECK(run("mm --m 4 --n 4 --k 4 --wat").status != 0);
}

TEST_CASE("sizes the kernels cannot run are refused, and what remains is caught: no hang, no abort") {
  // Past 2^62 the config generator's next_power_of_2 once looped forever.
  const Run huge = run("mm --m 4611686018427387905 --n 4 --k 4 --max-autotune");
  CHECK(WEXITSTATUS(huge.status) == 2);
  CHECK(huge.out.find("--m 4611686018427387905 is larger than the kernels take (at most 2147483647") != std::string::npos);
  CHECK(WEXITSTATUS(run("mm --m 9223372036854775807 --n 9223372036854775807 --k 9223372036854775807 --bench").status) == 2);
  // Within the limit, matrices too large to allocate: a message and exit status 1.
  const Run big = run("mm --m 2147483647 --n 2147483647 --k 2147483647 --bench");
  CHECK(WEXITSTATUS(big.status) == 1);
  CHECK(big.out.find("ctmatch-tune: error: ") != std::string::npos);
  CHECK(big.out.find("terminate called") == std::string::npos);
}

TEST_CASE("--cache: an empty name and a FIFO are errors, not ignored or blocking") {
  const Run empty = run("mm --m 4 --n 4 --k 4 --bench --cache ''");
  CHECK(WEXITSTATUS(empty.status) == 2);
  CHECK(empty.out.find("--cache needs a file name") != std::string::npos);
  const auto fifo = std::filesystem::temp_directory_path() / ("ctmatch_tune_fifo_" + std::to_string(::getpid()));
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Run r = run("mm --m 4 --n 4 --k 4 --bench --cache " + fifo.string());
  CHECK(WEXITSTATUS(r.status) == 2);
  CHECK(r.out.find("not a regular file") != std::string::npos);
  std::filesystem::remove(fifo);
}
