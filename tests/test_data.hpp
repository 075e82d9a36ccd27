#pragma once
// Reading the files tests use: the graphs and corpora under tests/data (CTMATCH_TEST_DATA).
#include <filesystem>
#include <string>
#include <vector>

#include <ctmatch/io/read.hpp>

inline std::string read_test_file(const std::filesystem::path& p) { return ctmatch::io::read_file(p.string()); }
inline std::string read_test_data(const std::string& name) {
  return read_test_file(std::filesystem::path(CTMATCH_TEST_DATA) / name);
}

/// The graphs of tests/data: its own files and the Inductor oracle's (tests/data/inductor/),
/// not the malformed inputs of tests/data/bad.
inline std::vector<std::filesystem::path> test_graph_files() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(CTMATCH_TEST_DATA))
    if (e.is_regular_file()) out.push_back(e.path());
  for (const auto& e : fs::recursive_directory_iterator(fs::path(CTMATCH_TEST_DATA) / "inductor"))
    if (e.is_regular_file()) out.push_back(e.path());
  return out;
}
