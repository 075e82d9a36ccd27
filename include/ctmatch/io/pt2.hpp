#pragma once
// .pt2: what torch.export.save writes and users keep. A zip archive (PT2 archive format, torch
// 2.6 on) whose ROOT/models/NAME.json is the serialized ExportedProgram that the torch.export
// JSON reader reads; torch.export.save before that format wrote serialized_exported_program.json.
// The weights and sample inputs beside it are not read.
//
// Reading the archive needs libzip (Debian: libzip-dev), found by CMake (CTMATCH_HAVE_LIBZIP);
// without it a .pt2 is refused with a message that says so.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../files.hpp"
#include "error.hpp"

#if defined(CTMATCH_HAVE_LIBZIP)
#include <zip.h>
#endif

namespace ctmatch::io {

/// Whether `bytes` start as a zip archive does (a local file header, or the end record of an
/// empty archive).
inline bool is_zip(std::string_view bytes) {
  return bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4) || bytes.substr(0, 4) == std::string_view("PK\x05\x06", 4);
}

/// Text to read as a graph and the name to give it in messages: a file's own text, or the
/// exported program inside a .pt2 archive, named `FILE:ENTRY` (so that an error in it reads
/// `model.pt2:model/models/model.json:LINE:COL: error: ...`).
struct GraphSource {
  FileText text;
  std::string name;
};

namespace pt2_detail {
/// Which entry of an archive holds the exported program: the one ROOT/models/NAME.json (or,
/// of several, the one called model.json), else serialized_exported_program.json. Empty with
/// `why` set when there is none or no single one.
inline std::string pick_entry(const std::vector<std::string>& names, std::string& why) {
  std::vector<std::string> models, legacy;
  for (const std::string& n : names) {
    // models/NAME.json, or ROOT/models/NAME.json
    const std::size_t npos = std::string::npos, a = n.find('/'), b = a == npos ? npos : n.find('/', a + 1);
    const bool depth_ok = a != npos && (b == npos || n.find('/', b + 1) == npos);
    const std::string_view folder = b == npos ? std::string_view(n).substr(0, a) : std::string_view(n).substr(a + 1, b - a - 1);
    const bool in_models = depth_ok && folder == "models" && n.ends_with(".json") && !n.ends_with("/.json");
    if (in_models) models.push_back(n);
    if (n == "serialized_exported_program.json" || n.ends_with("/serialized_exported_program.json")) legacy.push_back(n);
  }
  if (models.size() == 1) return models[0];
  if (models.size() > 1) {
    for (const std::string& m : models)
      if (m.ends_with("/models/model.json") || m == "models/model.json") return m;
    why = "the archive holds " + std::to_string(models.size()) + " exported programs (";
    for (std::size_t i = 0; i < models.size(); ++i) why += (i ? ", " : "") + models[i];
    why += ") and none is called model.json";
    return {};
  }
  if (legacy.size() == 1) return legacy[0];
  why = "no exported program in the archive (expected ROOT/models/NAME.json, as torch.export.save writes)";
  return {};
}
}  // namespace pt2_detail

/// The exported program inside the .pt2 archive `bytes` (read from `file`). Throws ParseError
/// at 1:1 of the file for what is wrong with the archive itself (not a readable zip, no
/// exported program, an entry larger than `max_bytes`).
inline GraphSource exported_program_of_pt2(std::string_view bytes, const std::string& file,
                                           std::size_t max_bytes = default_max_input_bytes) {
  auto fail = [&](const std::string& why) { return ParseError(file, 1, 1, why); };
#if defined(CTMATCH_HAVE_LIBZIP)
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  zip_t* z = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err) : nullptr;
  if (!z) {
    std::string why = std::string("not a readable zip archive (") + zip_error_strerror(&err) + ")";
    zip_error_fini(&err);
    if (src) zip_source_free(src);
    throw fail(why);
  }
  zip_error_fini(&err);
  struct Closer {
    zip_t* z;
    ~Closer() { zip_discard(z); }  // also frees the source
  } closer{z};
  std::vector<std::string> names;
  zip_int64_t count = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < count; ++i)
    if (const char* n = zip_get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW)) names.emplace_back(n);
  std::string why;
  std::string entry = pt2_detail::pick_entry(names, why);
  if (entry.empty()) throw fail(why);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(z, entry.c_str(), ZIP_FL_ENC_RAW, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw fail(entry + ": cannot read its size (" + zip_strerror(z) + ")");
  if (st.size > max_bytes)
    throw fail(entry + ": " + std::to_string(st.size) + " bytes, more than the limit of " + std::to_string(max_bytes));
  zip_file_t* f = zip_fopen(z, entry.c_str(), ZIP_FL_ENC_RAW);
  if (!f) throw fail(entry + ": cannot open (" + zip_strerror(z) + ")");
  std::string text(static_cast<std::size_t>(st.size), '\0');
  zip_int64_t got = zip_fread(f, text.data(), st.size);
  std::string read_error = got < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (got < 0 || static_cast<zip_uint64_t>(got) != st.size)
    throw fail(entry + ": cannot read (" + (read_error.empty() ? std::string("short read") : read_error) + ")");
  return {std::move(text), file + ":" + entry};
#else
  (void)bytes;
  (void)max_bytes;
  throw fail("a .pt2 archive, which this build of ctmatch cannot open: it was built without libzip (Debian: libzip-dev)");
#endif
}

/// `bytes` as the text of a graph: the exported program inside when it is a .pt2 archive,
/// else the bytes themselves.
inline GraphSource graph_source(FileText bytes, std::string file, std::size_t max_bytes = default_max_input_bytes) {
  if (is_zip(bytes)) return exported_program_of_pt2(bytes, file, max_bytes);
  return {std::move(bytes), std::move(file)};
}

}  // namespace ctmatch::io
