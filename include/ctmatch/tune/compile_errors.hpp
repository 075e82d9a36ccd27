#pragma once
// Compile-time errors of tune/ that name their culprit, as pattern/compile_errors.hpp does for
// the DSL: each is a class template over the names as types (tune::uid_name<"cuda::mm">), so
// the compiler's first lines print them.
#include "../compile_error.hpp"
#include "uid.hpp"

namespace ctmatch::tune::errors {

using ctmatch::errors::never;
using ctmatch::errors::report;

template <class Uid>
struct duplicate_template_uid {
  static_assert(never<Uid>, "ctmatch: two kernel templates in one TemplateRegistry have this uid");
};
template <class Uid, class Device, class Op>
struct duplicate_heuristic {
  static_assert(never<Uid, Device, Op>, "ctmatch: two heuristics are registered under this (template uid, device, op) key");
};

}  // namespace ctmatch::tune::errors
