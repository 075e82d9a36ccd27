#pragma once
// What ctmatch promises for any input, checked on one: it is refused with a ParseError whose
// position lies inside the text, or it reads into a graph that
// - verifies;
// - writes as FX text that reads back and writes the same again;
// - writes as torch.export JSON, or is refused with a WriteError (what the format cannot hold),
//   and the JSON reads back to the same FX text and writes the same JSON again;
// - survives both drivers with both built-in rule sets: each result verifies and passes the
//   two checks above.
// Anything else — another exception, a crash, a sanitizer report, a round trip that differs —
// is a bug: the check prints what happened and aborts (libFuzzer and the campaign record it).
#include <ctmatch/graph/verify.hpp>
#include <ctmatch/io.hpp>
#include <ctmatch/rewrite.hpp>
#include <ctmatch/rules/bench.hpp>
#include <ctmatch/rules/default.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace fuzz {

using namespace ctmatch;

/// Reports a bug and aborts; the whole input goes to ctmatch-fuzz-bug.txt in the working
/// directory, its first 4000 bytes to standard error.
[[noreturn]] inline void bug(const std::string& what, std::string_view text) {
  if (std::FILE* f = std::fopen("ctmatch-fuzz-bug.txt", "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr, "ctmatch fuzz: %s\n--- input (%zu bytes, all of it in ctmatch-fuzz-bug.txt)\n%.*s\n---\n",
               what.c_str(), text.size(), static_cast<int>(std::min<std::size_t>(text.size(), 4000)), text.data());
  std::abort();
}

/// A refusal's position must name a place in the text: line 1.. its line count, column 1.. one
/// past that line's end.
inline void check_position(const io::ParseError& e, std::string_view text) {
  std::size_t line = 1, begin = 0;
  for (std::size_t i = 0; i < text.size() && line < e.line(); ++i)
    if (text[i] == '\n') {
      ++line;
      begin = i + 1;
    }
  std::size_t end = text.find('\n', begin);
  std::size_t length = (end == std::string_view::npos ? text.size() : end) - begin;
  if (e.line() < 1 || line != e.line() || e.column() < 1 || e.column() > length + 1)
    bug(std::string("position out of range: ") + e.what(), text);
}

/// Both writers on `g`, and back (see the header comment).
inline void check_writers(const Graph& g, std::string_view input, const char* stage) {
  auto fail = [&](const std::string& what) { bug(std::string(stage) + ": " + what, input); };
  const std::string fx = io::write_fx_text(g);
  try {
    if (io::write_fx_text(io::read_fx_text(fx, "written.fx.txt")) != fx) fail("FX text -> read -> FX text differs\n" + fx);
  } catch (const std::exception& e) {
    fail(std::string("written FX text does not read back: ") + e.what() + "\n" + fx);
  }
  std::string json;
  try {
    json = io::write_export_json(g);
  } catch (const io::WriteError&) {
    return;  // refused, naming the node: the format cannot hold it
  } catch (const std::exception& e) {
    fail(std::string("the JSON writer threw something other than WriteError: ") + e.what());
  }
  try {
    Graph j = io::read_export_json(json, "written.json");
    verify(j);
    if (io::write_fx_text(j) != fx) fail("FX text -> JSON -> FX text differs\n" + fx + "\n---\n" + io::write_fx_text(j));
    if (io::write_export_json(j) != json) fail("JSON -> read -> JSON differs");
  } catch (const std::exception& e) {
    fail(std::string("written JSON does not read back: ") + e.what());
  }
}

/// Checks one input; returns whether it was read (false: refused with a good position).
inline bool check_input(std::string_view text) {
  Graph g;
  try {
    g = io::read_graph(text, "fuzz");
  } catch (const io::ParseError& e) {
    check_position(e, text);
    return false;
  } catch (const std::exception& e) {
    bug(std::string("a reader threw something other than ParseError: ") + e.what(), text);
  }
  try {
    verify(g);
  } catch (const std::exception& e) {
    bug(std::string("a graph as read does not verify: ") + e.what(), text);
  }
  check_writers(g, text, "as read");
  PassOptions options;
  options.verify_after_pass = false;  // verified below, with the input to show if it fails
  auto run = [&](const char* stage, auto pass) {
    Graph h = g;
    try {
      pass(h);
      verify(h);
    } catch (const std::exception& e) {
      bug(std::string(stage) + ": " + e.what(), text);
    }
    check_writers(h, text, stage);
  };
  run("sweep bench", [&](Graph& h) { sweep(h, rules::bench_rules(), options); });
  run("fixpoint bench", [&](Graph& h) { fixpoint(h, rules::bench_rules(), options); });
  run("sweep default", [&](Graph& h) { sweep(h, rules::default_rules(), options); });
  run("fixpoint default", [&](Graph& h) { fixpoint(h, rules::default_rules(), options); });
  return true;
}

}  // namespace fuzz
