#pragma once
// Reading the files tests use: the graphs and corpora under tests/data (CTMATCH_TEST_DATA).
#include <filesystem>
#include <string>

#include <ctmatch/io/read.hpp>

inline std::string read_test_file(const std::filesystem::path& p) { return ctmatch::io::read_file(p.string()); }
inline std::string read_test_data(const std::string& name) {
  return read_test_file(std::filesystem::path(CTMATCH_TEST_DATA) / name);
}
