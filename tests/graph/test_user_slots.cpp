// UserSlots (graph/user_slots.hpp), the flat table of where each user sits in a long users
// list: against std::map over random sets, gets and erases, with keys chosen to collide.
#include <doctest/doctest.h>

#include <ctmatch/graph/user_slots.hpp>

#include <map>
#include <random>

using namespace ctmatch;

TEST_CASE("UserSlots: sets, finds and erases as a map does, across growth and colliding runs") {
  for (std::uint32_t key_range : {40u, 1000u, 1u << 20}) {
    CAPTURE(key_range);
    UserSlots t;
    std::map<NodeId, std::uint32_t> ref;
    std::mt19937 rng(key_range);
    for (int step = 0; step < 20000; ++step) {
      const NodeId k = static_cast<NodeId>(rng() % key_range);
      const std::uint32_t op = rng() % 3;
      if (op < 2) {
        const std::uint32_t v = rng();
        t.set(k, v);
        ref[k] = v;
      } else {
        CHECK(t.erase(k) == (ref.erase(k) == 1));
      }
      if (step % 97 == 0) {
        bool same = t.size() == ref.size();
        for (NodeId q = 0; q < std::min<std::uint32_t>(key_range, 2000); ++q) {
          const std::uint32_t* got = t.find(q);
          auto it = ref.find(q);
          same = same && (got == nullptr) == (it == ref.end()) && (!got || *got == it->second);
        }
        CHECK(same);
      }
    }
  }
  UserSlots empty;
  CHECK(empty.find(3) == nullptr);
  CHECK_FALSE(empty.erase(3));
}
