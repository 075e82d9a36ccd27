#pragma once
// The io layer: FX text and torch.export JSON readers and writers, reading either by content,
// and Graphviz DOT output.
#include "io/dot.hpp"
#include "io/error.hpp"
#include "io/export_json.hpp"
#include "io/fx_text.hpp"
#include "io/read.hpp"
