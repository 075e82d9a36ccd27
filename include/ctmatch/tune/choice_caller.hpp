#pragma once
// ChoiceCaller: one runnable kernel choice (a template instantiated with one config, or an
// extern library call), made by KernelTemplate::choice_or_none. It is what the autotuner
// times. It runs on buffers the backend's Runner allocated (host pointers for `host::`,
// device pointers for `cuda::`); run() may be asynchronous — the Runner's Timer synchronizes.
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kwargs.hpp"

namespace ctmatch::tune {

/// Input and output pointers in the backend's address space, in the op's input order.
struct Buffers {
  std::vector<const void*> inputs;
  void* output = nullptr;
};

class ChoiceCaller {
 public:
  virtual ~ChoiceCaller() = default;
  /// The uid of the template or extern choice this came from.
  [[nodiscard]] virtual std::string_view uid() const = 0;
  /// Every kwarg it was made with: the per-config params (after overrides), then extra kwargs.
  [[nodiscard]] virtual const Kwargs& kwargs() const = 0;
  /// Executes the kernel once on `buffers`.
  virtual void run(const Buffers& buffers) = 0;

  /// `uid(kwargs)`, the stable text the autotuner's cache stores.
  [[nodiscard]] std::string description() const {
    return std::string(uid()) + "(" + to_string(kwargs()) + ")";
  }
};

/// A ChoiceCaller around a callable: enough for most backends.
class FunctionChoiceCaller final : public ChoiceCaller {
 public:
  FunctionChoiceCaller(std::string uid, Kwargs kwargs, std::function<void(const Buffers&)> fn)
      : uid_(std::move(uid)), kwargs_(std::move(kwargs)), fn_(std::move(fn)) {}
  [[nodiscard]] std::string_view uid() const override { return uid_; }
  [[nodiscard]] const Kwargs& kwargs() const override { return kwargs_; }
  void run(const Buffers& buffers) override { fn_(buffers); }

 private:
  std::string uid_;
  Kwargs kwargs_;
  std::function<void(const Buffers&)> fn_;
};

}  // namespace ctmatch::tune
