// ctmatch-tune: the GEMM choices ctmatch offers for a problem, and on the host the fastest.
//
//   ctmatch-tune mm --m M --n N --k K [--dtype bf16|f16|f32] [--max-autotune]
//                   [--device host|cuda] [--bench] [--cache FILE] [--json]
//   ctmatch-tune node --graph FILE --node NAME [the same options]
//
// `node`: the problem is that of a GEMM-like node of a graph file (aten.mm, aten.addmm,
// seedlib.mm_scale_cast with its epilogue kwargs), as the lowering layer describes it
// (ctmatch/lower/from_node.hpp). Lists the choices get_mm_configs returns (uid and kwargs of each, in order). Listing is host
// logic: `--device cuda` lists the cuda:: configs on a machine without a GPU. `--bench` times
// the choices and prints the winner; `--cache FILE` remembers it. On `--device cuda` the tool
// times on the GPU when it was built with CUDA (cuda_bench.cu): the table then lists the
// choices the CUDA backend builds (cuBLAS and the instantiated cuda::mm configs).
// `--json` prints {"choices": [{"uid": ..., "kwargs": {...}}, ...]} (and "winner" with --bench).
#include <unistd.h>

#include <cmath>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ctmatch/io/read.hpp>
#include <ctmatch/lower/from_node.hpp>
#include <ctmatch/schema/builtin.hpp>
#include <ctmatch/tune.hpp>

#ifdef CTMATCH_TUNE_CUDA
#include "cuda_bench.hpp"
#endif

using namespace ctmatch::tune;

namespace {

constexpr std::string_view usage =
    "usage: ctmatch-tune mm --m M --n N --k K [--dtype bf16|f16|f32] [--max-autotune]\n"
    "                       [--device host|cuda] [--bench] [--cache FILE] [--json]\n"
    "       ctmatch-tune node --graph FILE --node NAME [--max-autotune] [--device host|cuda]\n"
    "                         [--bench] [--cache FILE] [--json]\n";

struct Args {
  std::int64_t m = -1, n = -1, k = -1;
  DType dtype = DType::bf16;
  std::string graph, node;  // `node`: the GEMM-like node NAME of graph FILE
  bool max_autotune = false;
  std::string device = "host";
  bool bench = false;
  std::string cache;
  bool json = false;
};

[[noreturn]] void fail(const std::string& msg, int code = 2) {
  std::cerr << "ctmatch-tune: error: " << msg << '\n';
  if (code == 2) std::cerr << usage;
  std::exit(code);
}

/// The largest dimension taken: the kernels, cuBLAS's included, index with 32-bit ints.
constexpr std::int64_t max_dim = 2147483647;

std::int64_t parse_dim(std::string_view flag, std::string_view text) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size() || v <= 0)
    fail(std::string(flag) + " needs a positive integer, got '" + std::string(text) + "'");
  if (v > max_dim)
    fail(std::string(flag) + " " + std::string(text) + " is larger than the kernels take (at most " +
         std::to_string(max_dim) + ", 32-bit indexing)");
  return v;
}

Args parse(int argc, char** argv) {
  if (argc < 2) fail("missing the op");
  if (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    std::cout << usage;
    std::exit(0);
  }
  const std::string_view what = argv[1];
  if (what != "mm" && what != "node") fail("unknown op '" + std::string(what) + "' (supported: mm, node)");
  Args a;
  for (int i = 2; i < argc; ++i) {
    const std::string_view f = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) fail(std::string(f) + " needs a value");
      return argv[++i];
    };
    if (f == "--m") a.m = parse_dim(f, value());
    else if (f == "--n") a.n = parse_dim(f, value());
    else if (f == "--k") a.k = parse_dim(f, value());
    else if (f == "--dtype") {
      const std::string_view v = value();
      const auto t = parse_dtype(v);
      if (!t || (*t != DType::bf16 && *t != DType::f16 && *t != DType::f32))
        fail("--dtype takes bf16, f16 or f32, got '" + std::string(v) + "'");
      a.dtype = *t;
    } else if (f == "--max-autotune") a.max_autotune = true;
    else if (f == "--device") {
      a.device = std::string(value());
      if (a.device != "host" && a.device != "cuda") fail("--device takes host or cuda, got '" + a.device + "'");
    } else if (f == "--bench") a.bench = true;
    else if (f == "--cache") {
      a.cache = std::string(value());
      if (a.cache.empty()) fail("--cache needs a file name, got ''");
    }
    else if (f == "--json") a.json = true;
    else if (f == "--graph" && what == "node") a.graph = std::string(value());
    else if (f == "--node" && what == "node") a.node = std::string(value());
    else fail("unknown option '" + std::string(f) + "'");
  }
  if (what == "node") {
    if (a.graph.empty() || a.node.empty()) fail("node needs --graph FILE and --node NAME");
    if (a.m >= 0 || a.n >= 0 || a.k >= 0) fail("node takes the sizes from the graph: no --m, --n or --k");
  } else if (a.m < 0 || a.n < 0 || a.k < 0) {
    fail("--m, --n and --k are required");
  }
  if (!a.cache.empty() && !a.bench) fail("--cache is only used with --bench");
  return a;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_kwargs(const Kwargs& k) {
  std::string out = "{";
  for (const auto& [name, value] : k) {
    if (out.size() > 1) out += ", ";
    out += json_string(name) + ": " + to_string(value);
  }
  return out + "}";
}

/// Timing on the host allocates A, B and C: a problem whose matrices would take more than half
/// of this machine's memory is refused before anything is allocated.
void check_fits_in_memory(const MMKernelInputs& a) {
  using u128 = unsigned __int128;
  const u128 elements = static_cast<u128>(a.m()) * static_cast<u128>(a.k()) + static_cast<u128>(a.k()) * static_cast<u128>(a.n()) +
                        static_cast<u128>(a.m()) * static_cast<u128>(a.n());
  const u128 bytes = elements * static_cast<unsigned>(dtype_size(a.dtype()));
  const unsigned __int128 memory = static_cast<unsigned __int128>(::sysconf(_SC_PHYS_PAGES)) *
                                   static_cast<unsigned __int128>(::sysconf(_SC_PAGESIZE));
  if (bytes > memory / 2)
    fail("--bench: the matrices of m=" + std::to_string(a.m()) + ", n=" + std::to_string(a.n()) + ", k=" + std::to_string(a.k()) +
             " need more than half of this machine's memory (" +
             std::to_string(static_cast<unsigned long long>(memory >> 20)) + " MiB)",
         1);
}

/// The problem of `node NAME` in a graph file, as the lowering layer describes it.
ctmatch::lower::GemmProblem node_problem(const Args& args) {
  ctmatch::schema::ensure_builtin_schemas();
  ctmatch::Graph g;
  try {
    g = ctmatch::io::read_graph_file(args.graph);
  } catch (const std::exception& e) {
    fail(e.what(), 2);
  }
  const ctmatch::NodeId id = g.find(args.node);
  if (id == ctmatch::no_node) fail(args.graph + ": no node named '" + args.node + "'", 2);
  try {
    return ctmatch::lower::gemm_problem(g, id, args.device);
  } catch (const ctmatch::lower::GemmProblemError& e) {
    fail(args.graph + ": " + e.what(), 2);
  }
}

int run(const Args& args) {
  TuneOptions options;
  options.max_autotune = args.max_autotune;
  const ctmatch::lower::GemmProblem problem =
      args.graph.empty() ? ctmatch::lower::gemm_problem(TensorDesc::contiguous({args.m, args.k}, args.dtype),
                                                        TensorDesc::contiguous({args.k, args.n}, args.dtype),
                                                        std::monostate{}, args.device)
                         : node_problem(args);
  const MMKernelInputs& inputs = problem.inputs;

  // The template stacks: host kernels here; on cuda the declared uids (listing only — the
  // kernels belong to the CUDA backend).
  host::HostAtenMm host_aten_mm;
  host::HostMmTemplate host_mm;
  DeclaredKernelTemplate<uids::aten_mm, TemplateKind::Extern> cuda_aten_mm;
  DeclaredKernelTemplate<uids::cuda_mm> cuda_mm;
  DeclaredKernelTemplate<uids::cuda_mm_wgmma> cuda_mm_wgmma;
  const TemplateStack stack = args.device == "host" ? TemplateStack{&host_aten_mm, &host_mm}
                                                    : TemplateStack{&cuda_aten_mm, &cuda_mm, &cuda_mm_wgmma};
  auto choices = get_mm_configs(inputs, stack, ctmatch::lower::heuristic_op(problem), {}, options);
  for (const auto& d : default_heuristic_registry().diagnostics()) std::cerr << d << '\n';

  std::optional<AutotuneResult> result;
  std::vector<std::shared_ptr<ChoiceCaller>> made;
  if (args.bench) {
    if (args.device != "host") {
#ifdef CTMATCH_TUNE_CUDA
      if (!std::holds_alternative<std::monostate>(problem.epilogue))
        fail("--bench on cuda times plain mm; " + problem.op + " has an epilogue (the CUDA backend instantiates "
             "the fused epilogues for the torch op and seed_end_to_end, not for this tool)", 1);
      try {
        ctmatch_tune::CudaBench b = ctmatch_tune::cuda_bench(inputs, options, args.cache);
        if (!args.json)
          std::cout << b.device << ": timing " << b.choices.size() << " of the " << choices.size()
                    << " listed choices, those the CUDA backend builds (cuBLAS, instantiated cuda::mm configs)\n";
        choices = std::move(b.choices);
        result = std::move(b.result);
      } catch (const std::exception& e) {
        fail(e.what(), 1);
      }
#else
      fail("--bench runs host kernels only; timing cuda:: choices needs the CUDA backend", 1);
#endif
    }
  }
  if (args.bench && args.device == "host") {
    check_fits_in_memory(inputs);
    made = make_choices(choices);
    if (made.size() != choices.size())
      fail("the host kernels run plain mm of f32 or bf16 inputs, not every choice of " + problem.op + " on " +
               std::string(dtype_name(inputs.dtype())), 1);
    HostRunner runner;
    std::optional<AutotuneCache> cache;
    if (!args.cache.empty()) cache.emplace(args.cache);
    Autotuner tuner(runner, cache ? &*cache : nullptr);
    result = tuner.tune(problem.op, inputs, made);
  }

  if (args.json) {
    std::cout << "{\"choices\": [";
    for (std::size_t i = 0; i < choices.size(); ++i) {
      std::cout << (i ? ", " : "") << "{\"uid\": " << json_string(choices[i].uid())
                << ", \"kwargs\": " << json_kwargs(choices[i].all_kwargs());
      if (result && !result->from_cache)  // null: the choice failed (see "failed")
        std::cout << ", \"median_ms\": "
                  << (std::isnan(result->median_ms[i]) ? std::string("null") : to_string(KwargValue(result->median_ms[i])));
      std::cout << "}";
    }
    std::cout << "]";
    if (result)
      std::cout << ", \"winner\": {\"index\": " << result->index << ", \"uid\": " << json_string(result->winner->uid())
                << ", \"kwargs\": " << json_kwargs(result->winner->kwargs())
                << ", \"ms\": " << to_string(KwargValue(result->ms))
                << ", \"from_cache\": " << (result->from_cache ? "true" : "false") << ", \"pruned\": " << result->pruned
                << ", \"rematched\": " << result->rematched << ", \"failed\": " << result->failed.size() << "}";
    std::cout << "}\n";
    return 0;
  }

  std::cout << problem.op << " m=" << inputs.m() << " n=" << inputs.n() << " k=" << inputs.k() << " dtype=" << dtype_name(inputs.dtype())
            << " device=" << args.device << " max-autotune=" << (args.max_autotune ? "on" : "off") << ": "
            << choices.size() << " choice" << (choices.size() == 1 ? "" : "s") << '\n';
  for (std::size_t i = 0; i < choices.size(); ++i) {
    char idx[32];
    std::snprintf(idx, sizeof idx, "%3zu  ", i);
    std::cout << idx << choices[i].uid();
    const Kwargs k = choices[i].all_kwargs();
    if (!k.empty()) std::cout << "  " << to_string(k);
    if (result && !result->from_cache) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "  %.4f ms", result->median_ms[i]);
      std::cout << ms;
    }
    std::cout << '\n';
  }
  if (result) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.4f ms", result->ms);
    std::cout << "winner: " << result->winner->description() << "  " << ms
              << (result->from_cache ? " (from cache, nothing measured)" : "") << '\n';
    if (!result->from_cache)
      std::cout << "pruned after one timed run: " << result->pruned << ", re-timed interleaved: " << result->rematched
                << ", failed: " << result->failed.size() << '\n';
    for (const auto& f : result->failed) std::cout << "  failed " << f.description << ": " << f.message << '\n';
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  try {
    return run(args);
  } catch (const std::bad_alloc&) {
    fail("not enough memory for the problem's matrices", 1);
  } catch (const std::invalid_argument& e) {  // a cache path that cannot be one
    fail(e.what(), 2);
  } catch (const std::exception& e) {
    fail(e.what(), 1);
  }
}
