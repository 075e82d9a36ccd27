#pragma once
// Runs ctmatch-opt (its path comes from the build: CTMATCH_OPT_EXE) and captures its exit
// status, standard output and standard error, for the CLI tests.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_data.hpp"

namespace cli_test {

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

/// Single-quotes `s` for the shell.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

inline std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("ctmatch_cli_" + std::to_string(::getpid()) + "_" + name);
}

/// Runs `ctmatch-opt ARGS` (ARGS already shell-quoted where needed).
inline Result run(const std::string& args) {
#ifdef CTMATCH_OPT_EXE
  const std::string exe = CTMATCH_OPT_EXE;
#else
  const std::string exe = "ctmatch-opt-was-not-built";
#endif
  std::filesystem::path err_file = temp_path("stderr.txt");
  std::string cmd = quote(exe) + " " + args + " 2>" + quote(err_file.string());
  Result r;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[1 << 14];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = read_test_file(err_file);
  std::filesystem::remove(err_file);
  return r;
}

}  // namespace cli_test
