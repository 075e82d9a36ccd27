#pragma once
// Predicates on a matched node's tensor metadata and its op's tags, for `e.where(...)` (and
// for extra checks, called on g[get<"x">(m)]): the device, stride and user checks Inductor's
// passes make, each written once.
//
//   "x"_x.where(on_gpu)                       the tensor is on a GPU (Inductor's is_gpu)
//   "x"_x.where(on_device<DeviceType::CPU>)   ... on that device type
//   "x"_x.where(contiguous)                   row-major dense (TensorMeta::is_contiguous)
//   "x"_x.where(in_format<MemoryFormat::ChannelsLast>)   dense in that memory format
//   "x"_x.where(has_dtype<ScalarType::Half>)  the tensor's dtype
//   e.where(tagged<OpTag::pointwise>)         the node's op has the tag
//   e.where(users_tagged<OpTag::pointwise>)   every user's op has it (and there is a user)
//
// Unknown metadata never satisfies a predicate: a graph without devices or strides matches
// none of them (and their negations are for the user to write, knowing that).
#include "../graph/graph.hpp"
#include "../graph/op_tags.hpp"
#include "../graph/tensor_meta.hpp"

namespace ctmatch::pattern {

namespace meta_check {
struct OnGpu {
  bool operator()(const Node& n) const { return n.meta().on_gpu(); }
};
template <DeviceType D>
struct OnDevice {
  bool operator()(const Node& n) const { return n.meta().device && n.meta().device->type == D; }
};
template <MemoryFormat F>
struct InFormat {
  bool operator()(const Node& n) const { return n.meta().is_contiguous(F).value_or(false); }
};
template <ScalarType T>
struct HasDtype {
  bool operator()(const Node& n) const { return n.meta().dtype == T; }
};
template <OpTag T>
struct Tagged {
  bool operator()(const Node& n) const { return op_tags(n.op()).has(T); }
};
template <OpTag T>
struct UsersTagged {
  bool operator()(const Node& n, const Graph& g) const {
    if (n.users().empty()) return false;
    for (NodeId u : n.users())
      if (!op_tags(g[u].op()).has(T)) return false;
    return true;
  }
};
}  // namespace meta_check

inline constexpr meta_check::OnGpu on_gpu{};
template <DeviceType D>
inline constexpr meta_check::OnDevice<D> on_device{};
template <MemoryFormat F>
inline constexpr meta_check::InFormat<F> in_format{};
inline constexpr meta_check::InFormat<MemoryFormat::Contiguous> contiguous{};
template <ScalarType T>
inline constexpr meta_check::HasDtype<T> has_dtype{};
template <OpTag T>
inline constexpr meta_check::Tagged<T> tagged{};
template <OpTag T>
inline constexpr meta_check::UsersTagged<T> users_tagged{};

}  // namespace ctmatch::pattern
