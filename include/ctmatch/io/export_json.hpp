#pragma once
// torch.export's serialized ExportedProgram JSON: read_export_json (export_json_reader.hpp)
// and write_export_json (export_json_writer.hpp). Read -> write -> read gives the same graph,
// and the written document keeps every field that was read, so torch's deserializer takes it.
#include "export_json_reader.hpp"
#include "export_json_writer.hpp"
