#pragma once
#include <stdexcept>
#include <string>

namespace ctmatch {

/// A graph operation that would break an invariant (erasing a node that still has users, a
/// duplicate name, arguments that do not fit the op's schema), or a failed verification.
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ctmatch
