#pragma once
// Wide graphs, as FX text: one node with very many users, and one with very many inputs. What
// the fan-out tests and bench_fanout read: every check and rewrite on them must stay linear.
#include <cstddef>
#include <string>

/// `%x` used by `users` nodes `%p_I = permute(%x, [0, 1])` (the identity permutation, which
/// the default rule permute_noop removes), each read by `%r_I = relu(%p_I)`, all concatenated
/// by one `cat`: `x` has `users` users, `cat` has `users` inputs.
inline std::string fanout_fx_text(std::size_t users) {
  std::string t = "graph():\n    %x : [num_users=" + std::to_string(users) + "] = placeholder[target=x]\n";
  t.reserve(users * 220);
  std::string cat = "[";
  for (std::size_t i = 0; i < users; ++i) {
    std::string k = std::to_string(i);
    t += "    %p_" + k + " : [num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%x, [0, 1]), kwargs = {})\n";
    t += "    %r_" + k + " : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%p_" + k + ",), kwargs = {})\n";
    cat += (i ? ", %r_" : "%r_") + k;
  }
  t += "    %cat : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = (" + cat + "],), kwargs = {})\n";
  t += "    return (cat,)";
  return t;
}
