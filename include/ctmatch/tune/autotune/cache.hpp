#pragma once
// The autotuner's on-disk cache: which choice won for a key (op, shapes, strides, dtypes,
// device name, ctmatch version). A text file:
//     ctmatch-autotune-cache 1
//     <key> TAB <choice description: uid(kwargs)> TAB <median ms>
// A file that is not such a cache (foreign, another format version, or corrupted: any line that
// does not parse) is ignored as a whole, with a warning, and replaced on the next store.
// Stores write a temporary file and rename it over the cache (write_file_atomically), so a crash
// leaves the old file, and a cache that is a symbolic link stays one. The path must name a
// regular file or nothing yet: an empty path, a directory, a FIFO (which would block the
// reader forever) or a device is refused when the cache is made (std::invalid_argument). A time
// must be finite and not negative: a line with another is corruption.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "../../files.hpp"
#include "../kernel_inputs.hpp"
#include "../../version.hpp"

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

  /// Reads `path` if it exists. `warn` receives warnings (default: stderr). Throws
  /// std::invalid_argument for a path that cannot be a cache (see the header comment).
  explicit AutotuneCache(std::string path, std::function<void(const std::string&)> warn = nullptr)
      : path_(std::move(path)), warn_(std::move(warn)) {
    if (path_.empty()) throw std::invalid_argument("autotune cache: empty file name");
    if (is_special_file(path_))
      throw std::invalid_argument("autotune cache " + path_ + ": not a regular file");
    load();
  }

  [[nodiscard]] std::optional<Entry> lookup(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  /// Records and writes the whole cache back; a write failure is a warning, not an error. A
  /// time that is not finite and >= 0 is not recorded (std::invalid_argument).
  void store(const std::string& key, Entry e) {
    if (!std::isfinite(e.ms) || e.ms < 0)
      throw std::invalid_argument("autotune cache: time " + std::to_string(e.ms) + " ms is not a finite time");
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
    std::string text;
    try {
      text = read_file(path_);
    } catch (const FileError& e) {
      warn("ctmatch: warning: cannot read autotune cache: " + std::string(e.what()) + "; ignoring it");
      return;
    }
    std::istringstream in(text);
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
        ok = !num.empty() && end == num.c_str() + num.size() && std::isfinite(ms) && ms >= 0;
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
    std::string text(header);
    text += '\n';
    for (const auto& [k, e] : entries_) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.6g", e.ms);
      text += k + '\t' + e.choice + '\t' + ms + '\n';
    }
    try {
      write_file_atomically(path_, text);
    } catch (const FileError& e) {
      warn("ctmatch: warning: cannot write autotune cache: " + std::string(e.what()));
    }
  }

  std::string path_;
  std::function<void(const std::string&)> warn_;
  std::map<std::string, Entry> entries_;
};

}  // namespace ctmatch::tune
