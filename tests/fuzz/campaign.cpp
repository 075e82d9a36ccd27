// The mutant campaign: mutants of real graphs through fuzz::check_input, without libFuzzer, so
// that the same check runs in every build (g++ Release, clang with ASan + UBSan) and a run is
// repeatable from its seed.
//
//   fuzz_campaign [--mutants N] [--seed S] FILE...
//
// Each FILE gets N mutants (default 1000), each one to four edits of the file: a byte changed,
// a range deleted or repeated, two lines swapped, a number replaced by another, a dtype by
// another (mutants that still read, and so reach the writers and the drivers), a word replaced
// by one of the tokens that broke readers and writers before (indexes past an op's outputs,
// keywords as names, dtypes in the wrong slot, huge and negative numbers, quotes, brackets,
// non-ASCII), or a node name put where another was. A bug aborts with the input; otherwise it prints, per
// file, how many mutants were read and how many were refused.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <ctmatch/files.hpp>

#include "pipeline.hpp"

namespace {

constexpr std::string_view tokens[] = {
    "-1", "-2", "3", "99", "100000000", "-2147483649", "9223372036854775807", "-9223372036854775809", "1e999",
    "0", "inf", "-inf", "nan", "None", "True", "False", "%x", "x", "'", "\"", "\\", "[", "]", "(", ")", "{", "}",
    ",", ":", ".", " ", "\n", "\t", "\xc3\xa9", "\xff", "torch.float32", "torch.qint8", "torch.float8_e4m3fn",
    "[torch.float32]", "'float32'", "torch.ops.aten.getitem", "operator.getitem", "get_attr", "call_method",
    "placeholder", "%None", "num_users=", "\"name\": \"a b\"", "\"as_tensor\"", "\"as_int\": -1", "{}", "[]",
    "null", "true", "cpu", "cuda:0", "torch.strided", "torch.channels_last", "my_python_fn", "_tensor_constant0"};

/// Values that keep a graph readable more often than not: numbers for numbers, dtypes for
/// dtypes, so that mutants reach the writers and the drivers, not only the readers' errors.
constexpr std::string_view numbers[] = {"0", "1", "2", "3", "-1", "-2", "64", "99", "768", "2147483648", "-9223372036854775808",
                                        "1e-05", "0.5", "-0.0", "1e308", "inf", "nan", "True", "None"};
constexpr std::string_view dtypes[] = {"torch.float32", "torch.float16", "torch.bfloat16", "torch.int64", "torch.bool",
                                       "torch.float8_e4m3fn", "torch.complex64", "torch.qint8", "torch.uint8"};

struct Mutator {
  std::mt19937_64 rng;
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; }

  /// Where the words (node names, numbers) of `s` are: runs of identifier characters.
  static std::vector<std::pair<std::size_t, std::size_t>> words(const std::string& s) {
    std::vector<std::pair<std::size_t, std::size_t>> w;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
    for (std::size_t i = 0; i < s.size();) {
      if (!ident(s[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < s.size() && ident(s[j])) ++j;
      w.emplace_back(i, j - i);
      i = j;
    }
    return w;
  }

  void edit(std::string& s, const std::vector<std::pair<std::size_t, std::size_t>>& w) {
    if (s.empty()) {
      s = std::string(tokens[below(std::size(tokens))]);
      return;
    }
    switch (below(8)) {
      case 0: s[below(s.size())] = static_cast<char>(below(256)); break;
      case 1: {
        std::size_t at = below(s.size());
        s.erase(at, 1 + below(16));
        break;
      }
      case 2: {
        std::size_t at = below(s.size()), n = 1 + below(64);
        s.insert(at, s.substr(at, n));
        break;
      }
      case 3: {  // two lines swapped
        std::size_t a = s.rfind('\n', below(s.size())), b = s.rfind('\n', below(s.size()));
        if (a == std::string::npos || b == std::string::npos || a == b) break;
        if (a > b) std::swap(a, b);
        std::size_t ae = s.find('\n', a + 1), be = s.find('\n', b + 1);
        if (ae == std::string::npos || ae > b) break;
        if (be == std::string::npos) be = s.size();
        std::string la = s.substr(a + 1, ae - a - 1), lb = s.substr(b + 1, be - b - 1);
        s = s.substr(0, a + 1) + lb + s.substr(ae, b + 1 - ae) + la + s.substr(be);
        break;
      }
      case 4: {  // a number replaced by another (a size, an index, a dim, a count)
        std::vector<std::size_t> nums;
        for (std::size_t i = 0; i < w.size(); ++i)
          if (w[i].first + w[i].second <= s.size() && (std::isdigit(static_cast<unsigned char>(s[w[i].first])) ||
                                                       (s[w[i].first] == '-' && w[i].second > 1)))
            nums.push_back(i);
        if (nums.empty()) break;
        auto [at, n] = w[nums[below(nums.size())]];
        s.replace(at, n, numbers[below(std::size(numbers))]);
        break;
      }
      case 5: {  // a dtype replaced by another
        std::size_t at = s.find("torch.", below(s.size()));
        if (at == std::string::npos) at = s.find("torch.");
        if (at == std::string::npos || s.compare(at, 10, "torch.ops.") == 0) break;
        std::size_t end = at + 6;
        while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
        s.replace(at, end - at, dtypes[below(std::size(dtypes))]);
        break;
      }
      default: {  // a word replaced by a token or by another word of the file
        if (w.empty()) break;
        auto [at, n] = w[below(w.size())];
        if (at + n > s.size()) break;
        std::string by;
        if (below(2)) {
          by = std::string(tokens[below(std::size(tokens))]);
        } else {
          auto [from, m] = w[below(w.size())];
          if (from + m > s.size()) break;
          by = s.substr(from, m);
        }
        s.replace(at, n, by);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t mutants = 1000;
  std::uint64_t seed = 1;
  std::vector<const char*> files;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--mutants" && i + 1 < argc) mutants = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else files.push_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: fuzz_campaign [--mutants N] [--seed S] FILE...\n");
    return 2;
  }
  std::size_t total = 0;
  for (const char* path : files) {
    std::string original;
    try {
      original = ctmatch::read_file(path);
    } catch (const ctmatch::FileError& e) {
      std::fprintf(stderr, "fuzz_campaign: %s\n", e.what());
      return 2;
    }
    fuzz::check_input(original);  // the seed itself
    const auto w = Mutator::words(original);
    Mutator m{std::mt19937_64(seed ^ std::hash<std::string>{}(path))};
    std::size_t accepted = 0;
    for (std::size_t k = 0; k < mutants; ++k) {
      std::string s = original;
      for (std::size_t e = 0, edits = 1 + m.below(4); e < edits; ++e) m.edit(s, w);
      accepted += fuzz::check_input(s);
    }
    total += mutants;
    std::printf("%s: %zu mutants, %zu read, %zu refused\n", path, mutants, accepted, mutants - accepted);
  }
  std::printf("fuzz_campaign: %zu mutants, no bug found\n", total);
  return 0;
}
