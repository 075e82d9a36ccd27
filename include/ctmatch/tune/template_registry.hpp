#pragma once
// Finding a kernel template by uid (Inductor: register_template / get_template_by_uid).
//
// TemplateRegistry<Ts...> is a registry made of types: its templates are members, their uids
// are checked at compile time (two templates with one uid: static_assert), get<"uid">() is
// resolved at compile time and find("uid") at run time.
// DynamicTemplateRegistry takes templates at run time (plugins, user code) and rejects a second
// template under a uid already taken with DuplicateUidError.
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "compile_errors.hpp"
#include "uid.hpp"
#include "kernel_template.hpp"

namespace ctmatch::tune {

/// A uid registered twice, or looked up and absent.
struct DuplicateUidError : std::logic_error {
  using std::logic_error::logic_error;
};
struct UnknownUidError : std::out_of_range {
  using std::out_of_range::out_of_range;
};

namespace detail {
/// The index of the first uid that repeats an earlier one, or N.
template <std::size_t N>
constexpr std::size_t first_repeat(const std::array<std::string_view, N>& uids) {
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (uids[i] == uids[j]) return j;
  return N;
}
/// True when no uid repeats; otherwise names the repeated one (errors::duplicate_template_uid).
template <std::size_t Repeat, class... Ts>
constexpr bool uids_distinct() {
  if constexpr (Repeat < sizeof...(Ts))
    (void)errors::report<errors::duplicate_template_uid<uid_name<std::tuple_element_t<Repeat, std::tuple<Ts...>>::static_uid>>>();
  return Repeat == sizeof...(Ts);
}
template <std::size_t N>
constexpr int find_uid(const std::array<std::string_view, N>& uids, std::string_view uid) {
  for (std::size_t i = 0; i < N; ++i)
    if (uids[i] == uid) return static_cast<int>(i);
  return -1;
}
}  // namespace detail

template <StaticKernelTemplate... Ts>
class TemplateRegistry {
  static constexpr std::array<std::string_view, sizeof...(Ts)> uids_{Ts::static_uid.view()...};
  static_assert(detail::uids_distinct<detail::first_repeat(uids_), Ts...>(),
                "ctmatch: two kernel templates in one TemplateRegistry have the same uid");

 public:
  static constexpr std::size_t size() { return sizeof...(Ts); }
  static constexpr const std::array<std::string_view, sizeof...(Ts)>& uids() { return uids_; }
  template <fixed_string Uid>
  static constexpr bool contains = detail::find_uid(uids_, Uid.view()) >= 0;

  /// The template registered under Uid, typed; an unknown uid does not compile.
  template <fixed_string Uid>
  auto& get() {
    constexpr int i = detail::find_uid(uids_, Uid.view());
    static_assert(i >= 0, "ctmatch: no template with this uid in the TemplateRegistry");
    return std::get<static_cast<std::size_t>(i)>(templates_);
  }
  /// The template registered under `uid`, or nullptr.
  [[nodiscard]] const KernelTemplate* find(std::string_view uid) const {
    const int i = detail::find_uid(uids_, uid);
    return i < 0 ? nullptr : all()[static_cast<std::size_t>(i)];
  }
  /// Every template, in registration order.
  [[nodiscard]] std::array<const KernelTemplate*, sizeof...(Ts)> all() const {
    return std::apply([](const auto&... t) { return std::array<const KernelTemplate*, sizeof...(Ts)>{&t...}; },
                      templates_);
  }

 private:
  std::tuple<Ts...> templates_;
};

class DynamicTemplateRegistry {
 public:
  /// Registers `t` (not owned: it must outlive the registry). Re-registering the same object is
  /// a no-op, as in Inductor; another object under a taken uid throws DuplicateUidError.
  void add(const KernelTemplate& t) {
    const std::string_view uid = t.uid();
    if (!is_valid_uid(uid))
      throw std::invalid_argument("ctmatch: template uid '" + std::string(uid) + "' does not read 'backend::name'");
    for (const KernelTemplate* e : templates_)
      if (e->uid() == uid) {
        if (e == &t) return;
        throw DuplicateUidError("ctmatch: duplicate template uid '" + std::string(uid) + "'");
      }
    templates_.push_back(&t);
  }
  template <StaticKernelTemplate... Ts>
  void add_all(const TemplateRegistry<Ts...>& r) {
    for (const KernelTemplate* t : r.all()) add(*t);
  }
  [[nodiscard]] const KernelTemplate* find(std::string_view uid) const {
    for (const KernelTemplate* e : templates_)
      if (e->uid() == uid) return e;
    return nullptr;
  }
  /// Like find, but throws UnknownUidError naming the registered uids.
  [[nodiscard]] const KernelTemplate& get(std::string_view uid) const {
    if (const KernelTemplate* t = find(uid)) return *t;
    std::string known;
    for (const KernelTemplate* e : templates_) known += (known.empty() ? "" : ", ") + std::string(e->uid());
    throw UnknownUidError("ctmatch: no template with uid '" + std::string(uid) + "' (registered: " + known + ")");
  }
  [[nodiscard]] const std::vector<const KernelTemplate*>& all() const { return templates_; }

 private:
  std::vector<const KernelTemplate*> templates_;
};

}  // namespace ctmatch::tune
