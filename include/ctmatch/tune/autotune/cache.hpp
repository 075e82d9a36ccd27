#pragma once
// The autotuner's on-disk cache: which choice won for a key (op, shapes, strides, dtypes,
// device name, ctmatch version). A text file:
//     ctmatch-autotune-cache 1
//     <key> TAB <choice description: uid(kwargs)> TAB <median ms>
// A file that is not such a cache (foreign, another format version, or corrupted: any line that
// does not parse) is ignored as a whole, with a warning, and replaced on the next store.
// Stores write a temporary file and rename it over the cache, so a crash leaves the old file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <ctmatch/tune/kernel_inputs.hpp>
#include <ctmatch/version.hpp>

namespace ctmatch::tune {

/// The cache key of one tuning problem; no tabs or newlines (the file's separators).
inline std::string autotune_key(std::string_view op, const MMKernelInputs& inputs, std::string_view device_name) {
  std::ostringstream s;
  s << "op=" << op;
  for (const TensorDesc& t : inputs.nodes()) {
    s << " [";
    for (std::size_t i = 0; i < t.sizes.size(); ++i) s << (i ? "x" : "") << t.sizes[i];
    s << ":";
    for (std::size_t i = 0; i < t.strides.size(); ++i) s << (i ? "," : "") << t.strides[i];
    s << ":" << dtype_name(t.dtype) << "]";
  }
  s << " out=" << dtype_name(inputs.out_dtype());
  for (const auto& [name, v] : inputs.scalars()) s << " " << name << "=" << v;
  s << " device=" << device_name << " ctmatch=" << ctmatch::version;
  std::string out = s.str();
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

class AutotuneCache {
 public:
  struct Entry {
    std::string choice;  ///< ChoiceCaller::description() of the winner
    double ms = 0;
  };
  static constexpr std::string_view header = "ctmatch-autotune-cache 1";

  /// Reads `path` if it exists. `warn` receives warnings (default: stderr).
  explicit AutotuneCache(std::string path, std::function<void(const std::string&)> warn = nullptr)
      : path_(std::move(path)), warn_(std::move(warn)) {
    load();
  }

  [[nodiscard]] std::optional<Entry> lookup(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  /// Records and writes the whole cache back; a write failure is a warning, not an error.
  void store(const std::string& key, Entry e) {
    entries_[key] = std::move(e);
    save();
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void warn(const std::string& msg) const {
    if (warn_) warn_(msg);
    else std::cerr << msg << '\n';
  }

  void load() {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      warn("ctmatch: warning: cannot read autotune cache " + path_ + "; ignoring it");
      return;
    }
    std::string line;
    if (!std::getline(in, line) || line != header) {
      warn("ctmatch: warning: " + path_ + " is not a ctmatch autotune cache (format 1); ignoring it");
      return;
    }
    std::map<std::string, Entry> read;
    int lineno = 1;
    while (std::getline(in, line)) {
      ++lineno;
      if (line.empty()) continue;
      const auto t1 = line.find('\t');
      const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
      bool ok = t1 != std::string::npos && t2 != std::string::npos && t1 > 0 && t2 > t1 + 1 &&
                line.find('\t', t2 + 1) == std::string::npos;
      double ms = 0;
      if (ok) {
        const std::string num = line.substr(t2 + 1);
        char* end = nullptr;
        ms = std::strtod(num.c_str(), &end);
        ok = !num.empty() && end == num.c_str() + num.size() && ms >= 0;
      }
      if (!ok) {
        warn("ctmatch: warning: " + path_ + ":" + std::to_string(lineno) +
             ": corrupted autotune cache line; ignoring the whole file");
        return;
      }
      read[line.substr(0, t1)] = Entry{line.substr(t1 + 1, t2 - t1 - 1), ms};
    }
    entries_ = std::move(read);
  }

  void save() const {
    const std::string tmp = path_ + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) {
        warn("ctmatch: warning: cannot write autotune cache " + path_);
        return;
      }
      out << header << '\n';
      for (const auto& [k, e] : entries_) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.6g", e.ms);
        out << k << '\t' << e.choice << '\t' << ms << '\n';
      }
      if (!out) {
        warn("ctmatch: warning: cannot write autotune cache " + path_);
        return;
      }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path_, ec);
    if (ec) warn("ctmatch: warning: cannot replace autotune cache " + path_ + ": " + ec.message());
  }

  std::string path_;
  std::function<void(const std::string&)> warn_;
  std::map<std::string, Entry> entries_;
};

}  // namespace ctmatch::tune
