#pragma once
// NameStore: where a graph keeps the characters of its node names. A node holds one pointer
// to its name (8 bytes, where a std::string takes 32 and allocates past 15 characters): the
// characters lie in a chunk of the store, the length in the 4 bytes before them, a zero byte
// after them.
//
// Names are never changed once made, so chunks are written only past their last name and
// never moved: a copy of the graph shares them (copying a graph copies no name), and each
// copy writes its new names into chunks of its own. Chunks are freed with the last graph that
// shares them; names of erased nodes stay until then (a rolled-back creation, the newest name,
// gives its bytes back: pop).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace ctmatch {

class NameStore {
 public:
  NameStore() = default;
  /// Shares o's chunks; this store's next name starts a chunk of its own. (o may go on
  /// writing past its last name in its last chunk: bytes no name of this copy reaches.)
  NameStore(const NameStore& o) : chunks_(o.chunks_) {}
  NameStore& operator=(const NameStore& o) {
    if (this != &o) {
      chunks_ = o.chunks_;
      begin_ = top_ = end_ = nullptr;
    }
    return *this;
  }
  NameStore(NameStore&& o) noexcept { *this = std::move(o); }
  NameStore& operator=(NameStore&& o) noexcept {
    if (this != &o) {
      chunks_ = std::move(o.chunks_);
      begin_ = std::exchange(o.begin_, nullptr);
      top_ = std::exchange(o.top_, nullptr);
      end_ = std::exchange(o.end_, nullptr);
    }
    return *this;
  }

  /// The name "" (a node made without contents), in no store.
  static const char* empty() { return empty_name_ + 4; }
  /// The name at `p` (from add() or empty()).
  static std::string_view view(const char* p) {
    std::uint32_t n;
    std::memcpy(&n, p - 4, 4);
    return {p, n};
  }

  /// A copy of `s`, valid while this store or a copy of it lives.
  const char* add(std::string_view s) {
    if (s.size() > UINT32_MAX - 8) throw std::length_error("node name too long");
    const std::size_t need = s.size() + 5;
    if (static_cast<std::size_t>(end_ - top_) < need) grow(need);
    const auto n = static_cast<std::uint32_t>(s.size());
    std::memcpy(top_, &n, 4);
    char* p = top_ + 4;
    if (n) std::memcpy(p, s.data(), n);
    p[n] = '\0';
    top_ = p + n + 1;
    return p;
  }
  /// Gives back the bytes of `p` if it is the newest name of this store's own chunk.
  void pop(const char* p) {
    std::less<const char*> before;  // (pointers into different chunks: a total order)
    if (before(begin_, p) && before(p, top_) && p + view(p).size() + 1 == top_) top_ = const_cast<char*>(p) - 4;
  }

 private:
  void grow(std::size_t need) {
    // Chunks double from 1 KiB to 1 MiB: a small graph takes little, a large one few chunks.
    std::size_t last = begin_ ? chunks_.back().size : 0;
    std::size_t size = std::max(need, std::clamp<std::size_t>(2 * last, 1024, std::size_t{1} << 20));
    chunks_.push_back(Chunk{std::shared_ptr<char[]>(new char[size]), size});
    begin_ = top_ = chunks_.back().bytes.get();
    end_ = begin_ + size;
  }

  struct Chunk {
    std::shared_ptr<char[]> bytes;
    std::size_t size;
  };
  alignas(4) static constexpr char empty_name_[5] = {};
  std::vector<Chunk> chunks_;
  // This store's own chunk, the last: names in [begin_, top_), free bytes in [top_, end_).
  char* begin_ = nullptr;
  char* top_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace ctmatch
