#pragma once
// schema_ok<&parsed>(): a readable compile error for a schema that does not parse.
//
//   static constexpr auto parsed = ctmatch::schema::parse_schema("aten::f(Tensr x) -> Tensor");
//   static_assert(ctmatch::schema::schema_ok<&parsed>());
//
// A static_assert cannot print a message computed in a constant expression, so a failing
// schema calls a (non-constexpr) function named after the parser's message, instantiated with
// the offset of the error; the compiler names that call in its diagnostic:
//
//   error: call to non-'constexpr' function
//          'void ctmatch::schema::error::unknown_type() [with long unsigned int at_offset = 8]'
//
// Every message of parse.hpp has its function here (a test checks it); a message without one
// would still fail, through error::schema_does_not_parse<offset>.
#include <cstddef>
#include <iterator>
#include <string_view>

#include "function_schema.hpp"

namespace ctmatch::schema {

/// One function per parser message: their names are the compile-time error text.
namespace error {
template <std::size_t at_offset> void star_given_twice() {}
template <std::size_t at_offset> void question_mark_given_twice() {}
template <std::size_t at_offset> void None_default_needs_an_optional_type() {}
template <std::size_t at_offset> void Device_default_must_be_a_device_name() {}
template <std::size_t at_offset> void Layout_default_must_be_a_layout_name() {}
template <std::size_t at_offset> void MemoryFormat_default_must_be_a_memory_format() {}
template <std::size_t at_offset> void Scalar_default_must_be_a_number_or_a_bool() {}
template <std::size_t at_offset> void ScalarType_default_must_be_a_dtype_name() {}
template <std::size_t at_offset> void bool_default_must_be_True_or_False() {}
template <std::size_t at_offset> void float_default_must_be_a_number() {}
template <std::size_t at_offset> void list_default_needs_a_list_type() {}
template <std::size_t at_offset> void single_value_list_default_needs_a_sized_list() {}
template <std::size_t at_offset> void str_default_must_be_quoted() {}
template <std::size_t at_offset> void int_default_must_be_an_integer() {}
template <std::size_t at_offset> void duplicate_argument_name() {}
template <std::size_t at_offset> void expected_open_paren_after_the_operator_name() {}
template <std::size_t at_offset> void expected_close_paren_after_the_alias() {}
template <std::size_t at_offset> void expected_keyword_only_arguments_after_star() {}
template <std::size_t at_offset> void expected_comma_or_close_paren_after_a_return() {}
template <std::size_t at_offset> void expected_comma_or_close_paren_after_an_argument() {}
template <std::size_t at_offset> void expected_comma_or_close_bracket_in_a_list_default() {}
template <std::size_t at_offset> void expected_arrow_after_the_arguments() {}
template <std::size_t at_offset> void expected_double_colon_after_the_namespace() {}
template <std::size_t at_offset> void expected_close_bracket_or_a_size_after_open_bracket() {}
template <std::size_t at_offset> void expected_a_default_value() {}
template <std::size_t at_offset> void expected_a_name_as_default() {}
template <std::size_t at_offset> void expected_a_number() {}
template <std::size_t at_offset> void expected_a_number_after_the_sign() {}
template <std::size_t at_offset> void expected_a_type() {}
template <std::size_t at_offset> void expected_an_alias_name() {}
template <std::size_t at_offset> void expected_an_argument_name_after_the_type() {}
template <std::size_t at_offset> void expected_an_overload_name_after_the_dot() {}
template <std::size_t at_offset> void expected_the_exponent_digits() {}
template <std::size_t at_offset> void expected_the_operator_name_after_double_colon() {}
template <std::size_t at_offset> void expected_the_operator_namespace() {}
template <std::size_t at_offset> void integer_default_out_of_range() {}
template <std::size_t at_offset> void list_size_too_large() {}
template <std::size_t at_offset> void lists_of_lists_are_not_supported() {}
template <std::size_t at_offset> void nested_lists_are_not_valid_defaults() {}
template <std::size_t at_offset> void this_type_takes_no_default_other_than_None() {}
template <std::size_t at_offset> void too_many_arguments() {}
template <std::size_t at_offset> void too_many_returns() {}
template <std::size_t at_offset> void unexpected_character_in_a_number() {}
template <std::size_t at_offset> void unexpected_text_after_the_returns() {}
template <std::size_t at_offset> void unknown_type() {}
template <std::size_t at_offset> void unterminated_string_default() {}
template <std::size_t at_offset> void schema_does_not_parse() {}
}  // namespace error

namespace detail {
/// The parser's messages, in the order of the switch in report_parse_error.
inline constexpr std::string_view parse_error_messages[] = {
    "'*' given twice",
    "'?' given twice",
    "None is a default only for an optional type (`int?`)",
    "a Device default must be a device name ('cpu')",
    "a Layout default must be a layout name (`strided`)",
    "a MemoryFormat default must be a memory format (`contiguous_format`)",
    "a Scalar default must be a number or a bool",
    "a ScalarType default must be a dtype name (`long`, `float32`)",
    "a bool default must be True or False",
    "a float default must be a number",
    "a list default needs a list type",
    "a single value as a list default needs a sized list (`int[2]`)",
    "a str default must be quoted ('none')",
    "an int default must be an integer",
    "duplicate argument name",
    "expected '(' after the operator name",
    "expected ')' to close the alias annotation",
    "expected ',' and keyword-only arguments after '*'",
    "expected ',' or ')' after a return",
    "expected ',' or ')' after an argument",
    "expected ',' or ']' in the list default",
    "expected '->' after the arguments",
    "expected '::' after the namespace",
    "expected ']' (or a size, `int[2]`) after '['",
    "expected a default value",
    "expected a name as default",
    "expected a number",
    "expected a number after the sign",
    "expected a type",
    "expected an alias name (`a`, `*`)",
    "expected an argument name after the type",
    "expected an overload name after '.'",
    "expected the exponent's digits",
    "expected the operator name after '::'",
    "expected the operator's namespace (`aten::...`)",
    "integer default out of range",
    "list size too large",
    "lists of lists are not part of the schema language",
    "nested lists are not valid defaults",
    "this type takes no default other than None",
    "too many arguments (at most 32)",
    "too many returns (at most 8)",
    "unexpected character in a number",
    "unexpected text after the returns",
    "unknown type",
    "unterminated string default",
};
inline constexpr std::size_t parse_error_message_count = std::size(parse_error_messages);
/// Index of `message` in parse_error_messages, or parse_error_message_count.
constexpr std::size_t parse_error_index(std::string_view message) {
  std::size_t i = 0;
  while (i < parse_error_message_count && parse_error_messages[i] != message) ++i;
  return i;
}
/// Calls the error function of message `Index` (never a constant expression).
template <std::size_t Index, std::size_t Offset>
constexpr void report_parse_error() {
  switch (Index) {
    case 0: error::star_given_twice<Offset>(); break;
    case 1: error::question_mark_given_twice<Offset>(); break;
    case 2: error::None_default_needs_an_optional_type<Offset>(); break;
    case 3: error::Device_default_must_be_a_device_name<Offset>(); break;
    case 4: error::Layout_default_must_be_a_layout_name<Offset>(); break;
    case 5: error::MemoryFormat_default_must_be_a_memory_format<Offset>(); break;
    case 6: error::Scalar_default_must_be_a_number_or_a_bool<Offset>(); break;
    case 7: error::ScalarType_default_must_be_a_dtype_name<Offset>(); break;
    case 8: error::bool_default_must_be_True_or_False<Offset>(); break;
    case 9: error::float_default_must_be_a_number<Offset>(); break;
    case 10: error::list_default_needs_a_list_type<Offset>(); break;
    case 11: error::single_value_list_default_needs_a_sized_list<Offset>(); break;
    case 12: error::str_default_must_be_quoted<Offset>(); break;
    case 13: error::int_default_must_be_an_integer<Offset>(); break;
    case 14: error::duplicate_argument_name<Offset>(); break;
    case 15: error::expected_open_paren_after_the_operator_name<Offset>(); break;
    case 16: error::expected_close_paren_after_the_alias<Offset>(); break;
    case 17: error::expected_keyword_only_arguments_after_star<Offset>(); break;
    case 18: error::expected_comma_or_close_paren_after_a_return<Offset>(); break;
    case 19: error::expected_comma_or_close_paren_after_an_argument<Offset>(); break;
    case 20: error::expected_comma_or_close_bracket_in_a_list_default<Offset>(); break;
    case 21: error::expected_arrow_after_the_arguments<Offset>(); break;
    case 22: error::expected_double_colon_after_the_namespace<Offset>(); break;
    case 23: error::expected_close_bracket_or_a_size_after_open_bracket<Offset>(); break;
    case 24: error::expected_a_default_value<Offset>(); break;
    case 25: error::expected_a_name_as_default<Offset>(); break;
    case 26: error::expected_a_number<Offset>(); break;
    case 27: error::expected_a_number_after_the_sign<Offset>(); break;
    case 28: error::expected_a_type<Offset>(); break;
    case 29: error::expected_an_alias_name<Offset>(); break;
    case 30: error::expected_an_argument_name_after_the_type<Offset>(); break;
    case 31: error::expected_an_overload_name_after_the_dot<Offset>(); break;
    case 32: error::expected_the_exponent_digits<Offset>(); break;
    case 33: error::expected_the_operator_name_after_double_colon<Offset>(); break;
    case 34: error::expected_the_operator_namespace<Offset>(); break;
    case 35: error::integer_default_out_of_range<Offset>(); break;
    case 36: error::list_size_too_large<Offset>(); break;
    case 37: error::lists_of_lists_are_not_supported<Offset>(); break;
    case 38: error::nested_lists_are_not_valid_defaults<Offset>(); break;
    case 39: error::this_type_takes_no_default_other_than_None<Offset>(); break;
    case 40: error::too_many_arguments<Offset>(); break;
    case 41: error::too_many_returns<Offset>(); break;
    case 42: error::unexpected_character_in_a_number<Offset>(); break;
    case 43: error::unexpected_text_after_the_returns<Offset>(); break;
    case 44: error::unknown_type<Offset>(); break;
    case 45: error::unterminated_string_default<Offset>(); break;
    default: error::schema_does_not_parse<Offset>(); break;
  }
}
}  // namespace detail

/// True for a schema that parsed; for one that did not, not a constant expression, with the
/// parser's message and offset in the compiler's diagnostic. `R` points to a constant with
/// static storage (a `static constexpr ParseResult` member or variable). A pointer, not a
/// reference: g++ 12 mishandles a reference template argument naming a static member of the
/// class template being defined.
template <const ParseResult* R>
constexpr bool schema_ok() {
  if constexpr (!R->ok) detail::report_parse_error<detail::parse_error_index(R->error), R->error_pos>();
  return R->ok;
}

}  // namespace ctmatch::schema
