#pragma once
// ctmatch/schema: PyTorch operator schemas, parsed at compile time (patterns declare ops from
// schema strings) and at run time (the built-in table, ops registered by users), and turned
// into the signatures that let a node resolve positional, keyword and omitted-default forms of
// an argument alike.
//   function_schema.hpp  the FunctionSchema data (constexpr)
//   parse.hpp            parse_schema(text): one parser for constant expressions and run time
//   diagnose.hpp         schema_ok<&parsed>(): a compile error that names the parser's message
//   op_key.hpp           `aten::add.Tensor` -> `aten.add.Tensor`, `aten::mm` -> `aten.mm.default`
//   print.hpp            schemas and types back to text, for messages
//   signature.hpp        FunctionSchema -> OpSignature, defaults converted to typed Values
//   registry.hpp         register_schema(text), find_schema(op)
//   builtin_table.hpp    the built-in schema strings, one per line
//   builtin.hpp          ensure_builtin_schemas()
#include "graph.hpp"
#include "schema/builtin.hpp"
#include "schema/builtin_table.hpp"
#include "schema/diagnose.hpp"
#include "schema/function_schema.hpp"
#include "schema/op_key.hpp"
#include "schema/parse.hpp"
#include "schema/print.hpp"
#include "schema/registry.hpp"
#include "schema/signature.hpp"
