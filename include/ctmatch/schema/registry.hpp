#pragma once
// The process-wide schema registry: register_schema(text) parses a schema, interns its op key
// (`aten.add.Tensor`), gives the op its OpSignature (so nodes of that op resolve positional,
// keyword and omitted-default arguments alike) and keeps the FunctionSchema, which other layers
// look up with find_schema(op) when they need argument types (a reader deciding how to read
// `device: cpu`, an explanation printing what an argument should be).
//
// Registering the same op twice with the same interface is a no-op; a different interface is
// an error (two definitions of one op are a bug, and the first has already been used).
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../graph/op.hpp"
#include "function_schema.hpp"
#include "op_key.hpp"
#include "parse.hpp"
#include "signature.hpp"

namespace ctmatch::schema {

/// A parse error as a readable message: the message, the offset, and the text with a caret.
inline std::string describe_parse_error(std::string_view text, const ParseResult& r) {
  std::string msg = "schema error at offset " + std::to_string(r.error_pos) + ": " +
                    std::string(r.error) + "\n  " + std::string(text) + "\n  ";
  msg.append(r.error_pos, ' ');
  msg += '^';
  return msg;
}

/// Whether two schemas declare the same op interface: names, types, keyword-only markers,
/// defaults (as values, so `1.0` and `1.00` agree), mutation and returns.
inline bool same_interface(const FunctionSchema& a, const FunctionSchema& b) {
  if (a.ns != b.ns || a.name != b.name || a.overload != b.overload || a.num_args != b.num_args ||
      a.num_returns != b.num_returns)
    return false;
  for (std::size_t i = 0; i < a.num_args; ++i) {
    const Argument &x = a.args[i], &y = b.args[i];
    if (x.name != y.name || !(x.type == y.type) || x.kwarg_only != y.kwarg_only ||
        x.is_write != y.is_write || x.has_default != y.has_default)
      return false;
    // the same text is the same default (also for `nan`, which never equals itself as a value)
    if (x.has_default && detail::trim(x.default_text) != detail::trim(y.default_text) &&
        !(default_value(x) == default_value(y)))
      return false;
  }
  for (std::size_t i = 0; i < a.num_returns; ++i)
    if (!(a.returns[i].type == b.returns[i].type)) return false;
  return true;
}

class SchemaRegistry {
 public:
  static SchemaRegistry& global() {
    static SchemaRegistry r;
    return r;
  }

  /// Registers `text`; when `text_is_static` the text is used in place (it must live as long
  /// as the process, e.g. a string literal), otherwise a copy is kept. Returns the op id.
  /// Throws std::invalid_argument on a parse error, a bad default, or a conflicting schema.
  OpId add(std::string_view text, bool text_is_static) {
    std::lock_guard lock(mutex_);
    ParseResult r = parse_schema(text);  // views into the caller's text until stored below
    if (!r.ok) throw std::invalid_argument(describe_parse_error(text, r));
    OpSignature sig = to_signature(r.schema);  // may throw: nothing changed yet
    std::string key = op_key(r.schema);
    OpRegistry& ops = OpRegistry::global();
    OpId id = ops.intern(key);
    if (id < by_op_.size() && by_op_[id]) {
      if (same_interface(*by_op_[id], r.schema)) return id;
      throw std::invalid_argument("op " + key + " is already registered with another schema");
    }
    if (ops.signature(id))
      throw std::invalid_argument("op " + key + " already has a signature that did not come from a schema");
    if (!text_is_static) {
      texts_.emplace_back(text);
      r = parse_schema(texts_.back());  // the kept schema views the stored copy
    }
    ops.set_signature(id, std::move(sig));
    schemas_.push_back(r.schema);
    if (by_op_.size() <= id) by_op_.resize(id + 1, nullptr);
    by_op_[id] = &schemas_.back();
    return id;
  }

  const FunctionSchema* find(OpId id) const {
    std::lock_guard lock(mutex_);
    return id < by_op_.size() ? by_op_[id] : nullptr;
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return schemas_.size();
  }

 private:
  SchemaRegistry() = default;
  mutable std::mutex mutex_;
  std::deque<std::string> texts_;             // copies of non-static schema texts
  std::deque<FunctionSchema> schemas_;        // deque: pointers stay valid as more are added
  std::vector<const FunctionSchema*> by_op_;  // indexed by OpId
};

/// Registers a schema whose text may be temporary (a copy is kept). Returns the op's id.
/// Throws std::invalid_argument with the position and message of a parse error.
inline OpId register_schema(std::string_view schema_text) {
  return SchemaRegistry::global().add(schema_text, false);
}
/// Registers a schema whose text lives for the whole process (a string literal): no copy.
inline OpId register_static_schema(std::string_view schema_text) {
  return SchemaRegistry::global().add(schema_text, true);
}

/// The schema registered for `op`, or nullptr. The pointer stays valid for the process.
inline const FunctionSchema* find_schema(OpId op) { return SchemaRegistry::global().find(op); }
/// The schema registered for the op key `aten.add.Tensor`, or nullptr. Never interns.
inline const FunctionSchema* find_schema(std::string_view op_key) {
  OpId id = OpRegistry::global().find(op_key);
  return id == no_op ? nullptr : find_schema(id);
}

}  // namespace ctmatch::schema
