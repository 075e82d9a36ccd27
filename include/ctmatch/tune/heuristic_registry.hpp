#pragma once
// The heuristic registry (Inductor: register_template_heuristic / get_template_heuristic).
//
// Heuristics register under (template uid, device, op name); device and op may be `any`.
// get(uid, device, op) tries, in Inductor's order,
//   (uid, device, op), (uid, any, op), (uid, device, any), (uid, any, any)
// so an op-specific heuristic for all devices wins over a device-specific one for all ops.
// A miss returns the empty heuristic (offers nothing) and records a diagnostic naming the
// registered keys. Each registered heuristic is instantiated once, on first use, and cached.
//
// Static registration: StaticHeuristics<HeuristicRegistration<"cuda::mm", "cuda", any, H>, ...>
// is a list of types; two entries under one key do not compile. Entries with a condition that
// is only known at run time are checked when installed (DuplicateHeuristicError).
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "compile_errors.hpp"
#include "uid.hpp"
#include "heuristic.hpp"

namespace ctmatch::tune {

struct DuplicateHeuristicError : std::logic_error {
  using std::logic_error::logic_error;
};

/// (uid, device, op); an empty device or op means any.
struct HeuristicKey {
  std::string uid;
  std::string device;
  std::string op;
  friend bool operator==(const HeuristicKey&, const HeuristicKey&) = default;
};

inline std::string to_string(const HeuristicKey& k) {
  return "(" + k.uid + ", " + (k.device.empty() ? "any" : k.device) + ", " + (k.op.empty() ? "any" : k.op) + ")";
}

using HeuristicFactory = std::function<std::unique_ptr<TemplateConfigHeuristic>()>;

class HeuristicRegistry {
 public:
  HeuristicRegistry() = default;
  HeuristicRegistry(const HeuristicRegistry&) = delete;
  HeuristicRegistry& operator=(const HeuristicRegistry&) = delete;

  /// Registers `factory` under (uid, device, op) when `condition` holds (Inductor's
  /// `register=`); returns whether it did. A second heuristic under one key throws.
  bool add(std::string_view uid, std::string_view device, std::string_view op, HeuristicFactory factory,
           bool condition = true) {
    if (!condition) return false;
    if (!is_valid_uid(uid))
      throw std::invalid_argument("ctmatch: heuristic uid '" + std::string(uid) + "' does not read 'backend::name'");
    std::lock_guard lock(mutex_);
    HeuristicKey key{std::string(uid), std::string(device), std::string(op)};
    for (const auto& e : entries_)
      if (e->key == key)
        throw DuplicateHeuristicError("ctmatch: two heuristics registered under " + to_string(key));
    auto e = std::make_unique<Entry>();
    e->key = std::move(key);
    e->factory = std::move(factory);
    entries_.push_back(std::move(e));
    lookup_cache_.clear();
    return true;
  }
  template <class H>
  bool add(std::string_view uid, std::string_view device, std::string_view op, bool condition = true) {
    static_assert(std::is_base_of_v<TemplateConfigHeuristic, H>, "ctmatch: a heuristic derives from TemplateConfigHeuristic");
    return add(uid, device, op, [] { return std::unique_ptr<TemplateConfigHeuristic>(std::make_unique<H>()); },
               condition);
  }

  /// Puts `factory` under (uid, device, op) whether or not a heuristic is there already (a
  /// backend refining a built-in one, or a test disabling one: Inductor's
  /// override_template_heuristics). References obtained before for that key dangle.
  void replace(std::string_view uid, std::string_view device, std::string_view op, HeuristicFactory factory) {
    {
      std::lock_guard lock(mutex_);
      HeuristicKey key{std::string(uid), std::string(device), std::string(op)};
      for (auto& e : entries_)
        if (e->key == key) {
          e->factory = std::move(factory);
          e->instance.reset();
          lookup_cache_.clear();
          return;
        }
    }
    add(uid, device, op, std::move(factory));
  }
  template <class H>
  void replace(std::string_view uid, std::string_view device, std::string_view op) {
    static_assert(std::is_base_of_v<TemplateConfigHeuristic, H>, "ctmatch: a heuristic derives from TemplateConfigHeuristic");
    replace(uid, device, op, [] { return std::unique_ptr<TemplateConfigHeuristic>(std::make_unique<H>()); });
  }

  /// The heuristic for (uid, device, op) with Inductor's fallback; the empty heuristic and a
  /// diagnostic on a miss.
  [[nodiscard]] const TemplateConfigHeuristic& get(std::string_view uid, std::string_view device,
                                                   std::string_view op) const {
    std::lock_guard lock(mutex_);
    HeuristicKey query{std::string(uid), std::string(device), std::string(op)};
    for (const auto& [k, entry] : lookup_cache_)
      if (k == query) return instance(*entry);
    const HeuristicKey candidates[] = {
        {query.uid, query.device, query.op},
        {query.uid, "", query.op},
        {query.uid, query.device, ""},
        {query.uid, "", ""},
    };
    for (const HeuristicKey& c : candidates)
      for (const auto& e : entries_)
        if (e->key == c) {
          lookup_cache_.emplace_back(query, e.get());
          return instance(*e);
        }
    std::string known;
    for (const auto& e : entries_) known += (known.empty() ? "" : ", ") + to_string(e->key);
    diagnostics_.push_back("ctmatch: no template heuristic for uid=" + query.uid + " device=" + query.device +
                           " op=" + query.op + "; using the empty heuristic. Registered: " + known);
    if (sink_) sink_(diagnostics_.back());
    return empty_;
  }

  /// Whether a heuristic is registered under exactly this key.
  [[nodiscard]] bool contains(std::string_view uid, std::string_view device, std::string_view op) const {
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_)
      if (e->key.uid == uid && e->key.device == device && e->key.op == op) return true;
    return false;
  }
  [[nodiscard]] std::vector<HeuristicKey> keys() const {
    std::lock_guard lock(mutex_);
    std::vector<HeuristicKey> out;
    for (const auto& e : entries_) out.push_back(e->key);
    return out;
  }
  /// How many heuristic objects were made so far (each registered one at most once).
  [[nodiscard]] std::size_t instances_created() const {
    std::lock_guard lock(mutex_);
    return created_;
  }
  /// Messages about misses, oldest first.
  [[nodiscard]] std::vector<std::string> diagnostics() const {
    std::lock_guard lock(mutex_);
    return diagnostics_;
  }
  /// Also send each new diagnostic to `sink` (e.g. print it).
  void set_diagnostic_sink(std::function<void(const std::string&)> sink) {
    std::lock_guard lock(mutex_);
    sink_ = std::move(sink);
  }

 private:
  struct Entry {
    HeuristicKey key;
    HeuristicFactory factory;
    std::unique_ptr<TemplateConfigHeuristic> instance;
  };
  const TemplateConfigHeuristic& instance(Entry& e) const {
    if (!e.instance) {
      e.instance = e.factory();
      ++created_;
    }
    return *e.instance;
  }

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;
  mutable std::vector<std::pair<HeuristicKey, Entry*>> lookup_cache_;
  mutable std::vector<std::string> diagnostics_;
  mutable std::size_t created_ = 0;
  std::function<void(const std::string&)> sink_;
  TemplateConfigHeuristic empty_;
};

/// One static registration. `Condition` is a bool known at compile time (false: not
/// registered) or a `bool (*)()` asked when installed.
template <fixed_string Uid, fixed_string Device, fixed_string Op, class H, auto Condition = true>
struct HeuristicRegistration {
  static_assert(is_valid_uid(Uid.view()),
                "ctmatch: a heuristic's template uid must read 'backend::name' (e.g. \"cuda::mm\")");
  static_assert(std::is_base_of_v<TemplateConfigHeuristic, H>,
                "ctmatch: a registered heuristic must derive from TemplateConfigHeuristic");
  using heuristic_type = H;
  using key_names = std::tuple<uid_name<Uid>, uid_name<Device>, uid_name<Op>>;  // for compile errors
  static constexpr std::string_view uid = Uid.view();
  static constexpr std::string_view device = Device.view();
  static constexpr std::string_view op = Op.view();
  static constexpr bool compile_time_condition = std::is_same_v<decltype(Condition), bool>;
  /// Registered for sure (condition `true`): these take part in the compile-time duplicate check.
  static constexpr bool always = [] {
    if constexpr (compile_time_condition) return Condition;
    else return false;
  }();

  static bool condition() {
    if constexpr (compile_time_condition) return Condition;
    else return Condition();
  }
  static void install(HeuristicRegistry& r) { r.template add<H>(uid, device, op, condition()); }
};

namespace detail {
struct StaticKey {
  std::string_view uid, device, op;
  bool always;
};
/// The index of the first registration whose key repeats an earlier one's, or N.
template <std::size_t N>
constexpr std::size_t first_repeated_key(const std::array<StaticKey, N>& keys) {
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (keys[i].always && keys[j].always && keys[i].uid == keys[j].uid && keys[i].device == keys[j].device &&
          keys[i].op == keys[j].op)
        return j;
  return N;
}
/// True when no key repeats; otherwise names the repeated one (errors::duplicate_heuristic).
template <std::size_t Repeat, class... Registrations>
constexpr bool keys_distinct() {
  if constexpr (Repeat < sizeof...(Registrations)) {
    using names = typename std::tuple_element_t<Repeat, std::tuple<Registrations...>>::key_names;
    (void)errors::report<errors::duplicate_heuristic<std::tuple_element_t<0, names>, std::tuple_element_t<1, names>,
                                                     std::tuple_element_t<2, names>>>();
  }
  return Repeat == sizeof...(Registrations);
}
}  // namespace detail

/// A registry written as a type: `using MyHeuristics = StaticHeuristics<Registration...>;`.
template <class... Registrations>
struct StaticHeuristics {
  static constexpr std::array<detail::StaticKey, sizeof...(Registrations)> keys{
      detail::StaticKey{Registrations::uid, Registrations::device, Registrations::op, Registrations::always}...};
  static_assert(detail::keys_distinct<detail::first_repeated_key(keys), Registrations...>(),
                "ctmatch: two heuristics registered under one (template uid, device, op) key");

  static void install(HeuristicRegistry& r) { (Registrations::install(r), ...); }
  /// A registry holding exactly these registrations, made and installed on first use.
  static HeuristicRegistry& registry() {
    static HeuristicRegistry r;
    static const bool installed = (install(r), true);
    (void)installed;
    return r;
  }
};

}  // namespace ctmatch::tune
