#pragma once
// FX text, as `str(torch.fx.Graph)` prints it: read_fx_text and write_fx_text.
#include "fx_reader.hpp"
#include "fx_writer.hpp"
