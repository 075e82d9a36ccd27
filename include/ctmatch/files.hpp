#pragma once
// Reading and writing whole files the way a tool should (POSIX):
// - a read has a bound: a file larger than the limit, or a stream that goes on past it
//   (`/dev/zero`), is refused with a message before it exhausts memory; a large file is
//   mapped rather than copied (FileText);
// - a write is atomic: the text goes to a temporary file beside the target, which is renamed
//   over it only once every byte is on disk, so a crash, a full disk or a file-size limit
//   leaves the old file as it was (and `-o` naming the input never destroys it). A symbolic
//   link is written through (its target is replaced, the link stays), and an existing target
//   that is not a regular file (a terminal, `/dev/null`, a pipe) is written to in place, as a
//   stream, since renaming over it would replace the device itself.
// Errors are FileError, `PATH: error: WHAT: REASON` with the system's reason (strerror).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "graph/large_allocator.hpp"

namespace ctmatch {

struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The largest input read_file takes unless told otherwise: 1 GiB, some ten times the largest
/// exported model graph we have seen (torch.export JSON of a 48-layer GPT-2 is about 60 MB).
inline constexpr std::size_t default_max_input_bytes = std::size_t{1} << 30;

namespace files::detail {

[[noreturn]] inline void fail(const std::string& path, const std::string& what, int err) {
  throw FileError(path + ": error: " + what + (err ? std::string(": ") + std::strerror(err) : std::string()));
}
inline std::string limit_text(std::size_t max_bytes) { return std::to_string(max_bytes) + " bytes"; }

/// Reads everything from `fd` up to `max_bytes`; throws when there is more.
inline std::string read_all(int fd, const std::string& path, std::size_t max_bytes, std::size_t size_hint) {
  std::string text;
  if (size_hint) {
    text.reserve(std::min(size_hint, max_bytes) + 1);
    // Filled once, front to back: in 4 KiB pages a 250 MB file would take 60k page faults.
    advise_huge_pages(text.data(), text.capacity());
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot read", errno);
    }
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      fail(path, "input larger than the limit of " + limit_text(max_bytes) + " (raise it with the tool's --max-input-bytes)", 0);
    text.append(buf, static_cast<std::size_t>(n));
  }
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// The size of the open file `fd` when it is a regular file, 0 for a stream; refuses a
/// directory and a file over `max_bytes`.
inline std::size_t checked_size(int fd, const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, "cannot read", errno);
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory", 0);
  const std::size_t size = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
  if (size > max_bytes)
    fail(path, "file of " + std::to_string(size) + " bytes is larger than the limit of " + limit_text(max_bytes) +
                   " (raise it with the tool's --max-input-bytes)", 0);
  return size;
}

}  // namespace files::detail

/// The whole content of `path`, at most `max_bytes` of it (else FileError). A directory is
/// refused; a pipe or device is read until its end or the limit.
inline std::string read_file(const std::string& path, std::size_t max_bytes = default_max_input_bytes) {
  using namespace files::detail;
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) fail(path, "cannot open file", errno);
  return read_all(f.fd, path, max_bytes, checked_size(f.fd, path, max_bytes));
}

/// A file's whole content, to read: mapped read-only when the file is a large regular one,
/// else held in a string. Movable, not copyable; view() is valid while it lives.
///
/// Why map: the text of a large graph (245 MB for a placeholder with 1M users) read into a
/// string is that many fresh pages the kernel must clear and then a copy of the page cache into
/// them; a mapping uses the page cache's pages as they are (ctmatch-opt on that graph: median
/// 0.98 s mapped, 1.21 s read, in alternating runs; RESULTS.md).
/// What that costs: the file must not be truncated by another process while it is read (the
/// reader would get SIGBUS), as with every reader that maps its input (LLVM's MemoryBuffer).
/// Like a std::string, the text is followed by a zero byte: a file whose size is a multiple of
/// the page size has no byte after it in the mapping, and is read into a string instead.
class FileText {
 public:
  FileText() = default;
  FileText(std::string text) : text_(std::move(text)) {}  // NOLINT: a string is a file's text
  FileText(FileText&& o) noexcept : text_(std::move(o.text_)), map_(std::exchange(o.map_, nullptr)), size_(o.size_) {}
  FileText& operator=(FileText&& o) noexcept {
    if (this != &o) {
      unmap();
      text_ = std::move(o.text_);
      map_ = std::exchange(o.map_, nullptr);
      size_ = o.size_;
    }
    return *this;
  }
  ~FileText() { unmap(); }

  std::string_view view() const { return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(text_); }
  operator std::string_view() const { return view(); }  // NOLINT: reads as the text it holds
  /// Whether the text is a mapping of the file (else a string).
  bool mapped() const { return map_ != nullptr; }

  /// Maps `size` bytes of the open regular file `fd`; empty (not mapped) where the system
  /// refuses or the mapping would not be followed by a zero byte.
  static FileText map(int fd, std::size_t size) {
    FileText t;
    const long page = ::sysconf(_SC_PAGESIZE);
    if (size == 0 || page <= 0 || size % static_cast<std::size_t>(page) == 0) return t;
    int flags = MAP_PRIVATE;
#if defined(MAP_POPULATE)
    flags |= MAP_POPULATE;  // one call sets up every page: no page fault per 4 KiB while reading
#endif
    void* m = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
    if (m == MAP_FAILED) return t;
    t.map_ = m;
    t.size_ = size;
    return t;
  }

 private:
  void unmap() {
    if (map_) ::munmap(map_, size_);
    map_ = nullptr;
  }
  std::string text_;
  void* map_ = nullptr;
  std::size_t size_ = 0;
};

/// Files from this size on are mapped by read_file_text: below it, a copy costs less than
/// setting up a mapping saves.
inline constexpr std::size_t map_file_min_bytes = std::size_t{1} << 20;

/// The whole content of `path` as read_file gives it (the same limit, errors and refusals),
/// mapped where that saves work (see FileText).
inline FileText read_file_text(const std::string& path, std::size_t max_bytes = default_max_input_bytes) {
  using namespace files::detail;
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) fail(path, "cannot open file", errno);
  const std::size_t size = checked_size(f.fd, path, max_bytes);
  if (size >= map_file_min_bytes)
    if (FileText t = FileText::map(f.fd, size); t.mapped()) return t;
  return read_all(f.fd, path, max_bytes, size);
}

/// Standard input, at most `max_bytes` of it; `name` names it in errors.
inline std::string read_stdin(std::size_t max_bytes = default_max_input_bytes, const std::string& name = "<stdin>") {
  return files::detail::read_all(STDIN_FILENO, name, max_bytes, 0);
}

/// Whether `path` exists and is not a regular file (after following links): a pipe, a device,
/// a directory, a socket. Such a path can block a reader (a FIFO) or must not be renamed over.
inline bool is_special_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

/// Writes `text` to `path` atomically (see the header comment). Throws FileError.
inline void write_file_atomically(const std::string& path, std::string_view text) {
  using namespace files::detail;
  namespace fs = std::filesystem;
  auto write_fd = [&](int fd, const std::string& shown) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(shown, "cannot write", errno);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  };
  // The file the name leads to: a link is written through.
  std::error_code ec;
  fs::path target = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) fail(path, "cannot write", ELOOP);
    fs::path to = fs::read_symlink(target, ec);
    if (ec) fail(path, "cannot follow the link", ec.value());
    target = to.is_absolute() ? to : target.parent_path() / to;
  }
  struct stat st {};
  bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path, "is a directory", 0);
  if (exists && !S_ISREG(st.st_mode)) {  // a stream: written in place
    Fd f{::open(target.c_str(), O_WRONLY | O_CLOEXEC)};
    if (f.fd < 0) fail(path, "cannot open for writing", errno);
    write_fd(f.fd, path);
    return;
  }
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::random_device rd;
  std::string tmp;
  Fd f;
  for (int attempt = 0; f.fd < 0; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tmp%08x", static_cast<unsigned>(rd()));
    std::string name(1, '.');  // hidden, beside the target (one file system: rename is atomic)
    name += target.filename().string();
    name += suffix;
    tmp = (dir / name).string();
    f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? (st.st_mode & 07777) : 0666);
    if (f.fd < 0 && (errno != EEXIST || attempt == 100)) fail(path, "cannot create a temporary file beside it", errno);
  }
  try {
    if (exists) (void)::fchmod(f.fd, st.st_mode & 07777);  // the umask may have narrowed it
    write_fd(f.fd, path);
    if (::fsync(f.fd) != 0) fail(path, "cannot write", errno);
    int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0) fail(path, "cannot write", errno);
    if (::rename(tmp.c_str(), target.c_str()) != 0) fail(path, "cannot replace the file", errno);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace ctmatch
