// Must not compile: the schema misspells `Tensor`; the diagnostic names the parser's message
// (error::unknown_type) and the offset of the error (8).
#include <ctmatch/schema/diagnose.hpp>
#include <ctmatch/schema/parse.hpp>

static constexpr auto parsed = ctmatch::schema::parse_schema("aten::f(Tensr x) -> Tensor");
static_assert(ctmatch::schema::schema_ok<&parsed>());
