// ctmatch-opt: reads a graph (FX text or torch.export JSON, told apart by content), runs the
// passes asked for, and emits the graph and its statistics.
//
//   ctmatch-opt [FILE] [--emit fx|json|dot|none] [--stats] [--stats-json] [-o OUT]
//               [--rules bench|default|NAME,...] [--mode sweep|fixpoint] [--explain NODE]
//
// Without FILE it runs on a sample graph compiled into the binary (seed_mlp), so it shows
// what it does with no arguments. The program is a pipeline — parse options, load, read,
// verify, run passes, emit, report — and each stage is one function, so that new options
// (rules to apply, a driver mode, an explanation of a node) add a field to Options, an entry
// to the option table and a stage, without touching the others.
//
// Exit status: 0 on success; 2 when the input is malformed or unreadable, or the command line
// is wrong (the message says which, `FILE:LINE:COL: error: ...` for malformed input); 1 when
// the output cannot be written or an internal check fails.
#include <ctmatch/files.hpp>
#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io.hpp>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "embedded_sample.hpp"
#include "rewrite_stage.hpp"

namespace {

using namespace ctmatch;

constexpr int exit_ok = 0;
constexpr int exit_failure = 1;    // output not written, internal check failed
constexpr int exit_bad_input = 2;  // malformed or unreadable input, or bad usage

enum class Emit { Fx, Json, Dot, None };

struct Options {
  std::string input;  // empty: the embedded sample; "-": standard input
  std::optional<Emit> emit;
  bool stats = false;       // human-readable statistics, on standard error
  bool stats_json = false;  // one JSON object, on standard output
  std::string output;       // empty: standard output
  std::size_t max_input_bytes = default_max_input_bytes;
  bool help = false;
  ctmatch_opt::RewriteOptions rewrite;  // --rules, --mode, --explain (rewrite_stage.hpp)
  bool sample_report = false;           // no arguments at all: the rule sets on the sample
};

/// A wrong command line: reported with the usage, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Input that cannot be read (missing file): exit status 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr std::string_view usage_text =
    "usage: ctmatch-opt [FILE] [--emit fx|json|dot|none] [--stats] [--stats-json] [-o OUT]\n"
    "\n"
    "Reads a graph from FILE (FX text as str(torch.fx.Graph) prints it, or torch.export JSON;\n"
    "the format is told from the content; '-' reads standard input). Without FILE it runs on\n"
    "a sample graph built into the program (seed_mlp); with no arguments at all it runs the\n"
    "default and bench rules on it and prints what they did.\n"
    "\n"
    "  --emit FORMAT  write the graph as fx (default), json (torch.export), dot (Graphviz) or none\n"
    "  --stats        print node counts and an op histogram to standard error\n"
    "  --stats-json   print {\"nodes\": N, \"hist\": {op: count}, ...} to standard output\n"
    "                 (the graph is then not emitted unless --emit and -o are given)\n"
    "  -o OUT         write the emitted graph to OUT instead of standard output (atomically:\n"
    "                 OUT is replaced only once the whole graph is written)\n"
    "  --max-input-bytes N\n"
    "                 refuse an input larger than N bytes (default 1073741824, 1 GiB)\n"
    "  --rules SET    rewrite with bench (the benchmark rules, Inductor's semantics), default\n"
    "                 (clean-ups), inductor_joint, inductor_joint_early, inductor_joint_late and\n"
    "                 inductor_post_grad (the ports of Inductor's joint-graph and post-grad\n"
    "                 pattern passes),\n"
    "                 or NAME,NAME... (rules by name); --stats-json then adds\n"
    "                 matches, roots, hist_after and time_s; --emit dot highlights new nodes\n"
    "  --mode MODE    sweep (default: one reverse pass, as Inductor's) or fixpoint\n"
    "  --explain NODE say on standard error why each rule of NODE's op does or does not match\n"
    "  -h, --help     print this help\n"
    "\n"
    "Exit status: 0 success; 2 malformed or unreadable input, or a wrong command line;\n"
    "1 the output could not be written.\n";

// ---- options ----

struct OptionSpec {
  std::string_view name;
  bool takes_value;
  std::function<void(Options&, std::string_view)> apply;
};

Emit parse_emit(std::string_view v) {
  if (v == "fx") return Emit::Fx;
  if (v == "json") return Emit::Json;
  if (v == "dot") return Emit::Dot;
  if (v == "none") return Emit::None;
  throw UsageError("--emit: unknown format '" + std::string(v) + "' (expected fx, json, dot or none)");
}

std::size_t parse_size(std::string_view v) {
  std::size_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc{} || p != v.data() + v.size() || n == 0)
    throw UsageError("--max-input-bytes: expected a positive number of bytes, got '" + std::string(v) + "'");
  return n;
}

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = {
      {"--emit", true, [](Options& o, std::string_view v) { o.emit = parse_emit(v); }},
      {"--stats", false, [](Options& o, std::string_view) { o.stats = true; }},
      {"--stats-json", false, [](Options& o, std::string_view) { o.stats_json = true; }},
      {"-o", true, [](Options& o, std::string_view v) { o.output = std::string(v); }},
      {"--output", true, [](Options& o, std::string_view v) { o.output = std::string(v); }},
      {"--max-input-bytes", true, [](Options& o, std::string_view v) { o.max_input_bytes = parse_size(v); }},
      {"--rules", true, [](Options& o, std::string_view v) { o.rewrite.rules = std::string(v); }},
      {"--mode", true, [](Options& o, std::string_view v) { o.rewrite.mode = std::string(v); }},
      {"--explain", true, [](Options& o, std::string_view v) { o.rewrite.explain = std::string(v); }},
      {"-h", false, [](Options& o, std::string_view) { o.help = true; }},
      {"--help", false, [](Options& o, std::string_view) { o.help = true; }},
  };
  return table;
}

Options parse_options(int argc, char** argv) {
  Options o;
  bool have_input = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-') {
      std::string_view name = arg, value;
      bool inline_value = false;
      if (auto eq = arg.find('='); eq != std::string_view::npos && arg.substr(0, 2) == "--") {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
      const OptionSpec* spec = nullptr;
      for (const OptionSpec& s : option_table())
        if (s.name == name) spec = &s;
      if (!spec) throw UsageError("unknown option '" + std::string(arg) + "'");
      if (spec->takes_value && !inline_value) {
        if (i + 1 >= argc) throw UsageError("option '" + std::string(name) + "' needs a value");
        value = argv[++i];
      } else if (!spec->takes_value && inline_value) {
        throw UsageError("option '" + std::string(name) + "' takes no value");
      }
      spec->apply(o, value);
    } else {
      if (have_input) throw UsageError("more than one input file ('" + o.input + "' and '" + std::string(arg) + "')");
      o.input = std::string(arg);
      have_input = true;
    }
  }
  if (o.stats_json && o.output.empty() && o.emit && *o.emit != Emit::None)
    throw UsageError("--stats-json writes to standard output: give -o OUT for the emitted graph");
  if (!o.emit) o.emit = o.stats_json ? Emit::None : Emit::Fx;
  o.rewrite.report = o.stats || o.stats_json;
  if (o.rewrite.mode != "sweep" && o.rewrite.mode != "fixpoint")
    throw UsageError("--mode: unknown mode '" + o.rewrite.mode + "' (expected sweep or fixpoint)");
  o.sample_report = argc == 1;
  return o;
}

// ---- stages ----

struct Input {
  FileText text;
  std::string name;  // for messages
};

Input load(const Options& o) {
  if (o.input.empty())
    return {std::string(ctmatch_opt::embedded_sample), "<embedded " + std::string(ctmatch_opt::embedded_sample_name) + ">"};
  try {
    // a .pt2 archive gives the exported program inside: positions in messages are in it
    auto source = [&](FileText bytes, std::string name) {
      io::GraphSource s = io::graph_source(std::move(bytes), std::move(name), o.max_input_bytes);
      return Input{std::move(s.text), std::move(s.name)};
    };
    if (o.input == "-") return source(read_stdin(o.max_input_bytes), "<stdin>");
    return source(read_file_text(o.input, o.max_input_bytes), o.input);
  } catch (const FileError& e) {
    throw InputError(std::string(e.what()));
  }
}

std::string render(const Graph& g, Emit emit, const std::unordered_set<NodeId>& highlight = {}) {
  switch (emit) {
    case Emit::Fx: return io::write_fx_text(g) + "\n";
    case Emit::Json: return io::write_export_json(g);
    case Emit::Dot: return io::write_dot(g, highlight);
    case Emit::None: return {};
  }
  return {};
}

void write_output(const Options& o, const std::string& text) {
  if (*o.emit == Emit::None) return;
  if (o.output.empty() || o.output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw std::runtime_error("cannot write standard output");
    return;
  }
  write_file_atomically(o.output, text);
}

struct Stats {
  std::size_t nodes = 0;
  std::map<std::string, std::size_t> by_kind;  // placeholder, call_function, ...
  std::map<std::string, std::size_t> hist;     // op -> count over call_function nodes
};

Stats collect_stats(const Graph& g) {
  Stats s;
  s.nodes = g.size();
  for (const Node& n : g.nodes()) {
    ++s.by_kind[std::string(kind_name(n.kind()))];
    if (n.kind() == NodeKind::CallFunction) ++s.hist[std::string(op_name(n.op()))];
  }
  return s;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

void append_json_counts(std::string& out, const std::map<std::string, std::size_t>& m) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, k);
    out += ": " + std::to_string(v);
  }
  out += '}';
}

std::string stats_json(const Stats& s) {
  std::string out = "{\"nodes\": " + std::to_string(s.nodes) + ", \"kinds\": ";
  append_json_counts(out, s.by_kind);
  out += ", \"hist\": ";
  append_json_counts(out, s.hist);
  out += "}\n";
  return out;
}

std::string stats_text(const Stats& s, const std::string& input_name) {
  std::string out = input_name + ": " + std::to_string(s.nodes) + " nodes (";
  bool first = true;
  for (const auto& [k, v] : s.by_kind) {
    if (!first) out += ", ";
    first = false;
    out += std::to_string(v) + " " + k;
  }
  out += ")\n";
  for (const auto& [op, count] : s.hist) {
    std::string c = std::to_string(count);
    out += std::string(c.size() < 6 ? 6 - c.size() : 0, ' ') + c + "  " + op + "\n";
  }
  return out;
}

int run(const Options& o) {
  Input in = load(o);
  Graph g = io::read_graph(in.text, in.name);
  verify(g);
  if (o.sample_report) {
    std::cout << ctmatch_opt::sample_report(g, in.name);
    return exit_ok;
  }
  if (!o.rewrite.explain.empty()) std::cerr << ctmatch_opt::explain_node(g, o.rewrite);
  ctmatch_opt::RewriteReport rw = ctmatch_opt::run_rewrites(g, o.rewrite);
  try {
    write_output(o, render(g, *o.emit, *o.emit == Emit::Dot ? ctmatch_opt::created_nodes(g, rw) : std::unordered_set<NodeId>{}));
  } catch (const io::WriteError& e) {  // valid input the format cannot hold: where it is
    std::cerr << io::describe_at(e, g, in.text, in.name) << "\n";
    return exit_bad_input;
  }
  Stats s = collect_stats(g);
  if (o.stats) std::cerr << stats_text(s, in.name);
  if (o.stats && rw.ran) std::cerr << ctmatch_opt::report_text(rw, g);
  if (o.stats_json) {
    std::string j = stats_json(s);
    if (rw.ran) j = j.substr(0, j.size() - 2) + ctmatch_opt::report_json_fields(g, rw) + "}\n";
    std::fwrite(j.data(), 1, j.size(), stdout);
    if (std::fflush(stdout) != 0) throw std::runtime_error("cannot write standard output");
  }
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which is reported and
  // leaves the old output in place, instead of the signal killing the program mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "ctmatch-opt: error: " << e.what() << "\n" << usage_text;
    return exit_bad_input;
  }
  if (o.help) {
    std::cout << usage_text;
    return exit_ok;
  }
  try {
    return run(o);
  } catch (const io::ParseError& e) {
    std::cerr << e.what() << "\n";
    return exit_bad_input;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return exit_bad_input;
  } catch (const std::invalid_argument& e) {  // --rules or --explain naming what is not there
    std::cerr << "ctmatch-opt: error: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const FileError& e) {  // the output: its message names the file and the reason
    std::cerr << e.what() << "\n";
    return exit_failure;
  } catch (const std::exception& e) {
    std::cerr << "ctmatch-opt: error: " << e.what() << "\n";
    return exit_failure;
  }
}
