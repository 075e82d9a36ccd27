// A downstream program: includes ctmatch's public header, builds a graph and checks it.
#include <ctmatch/ctmatch.hpp>

#include <cstdio>

int main() {
  ctmatch::Graph g;
  auto x = g.placeholder("x");
  auto y = g.call(ctmatch::intern_op("aten.relu.default"), {ctmatch::NodeRef{x}});
  g.output({ctmatch::NodeRef{y}});
  ctmatch::verify(g);
  if (g.size() != 3) return 1;
#ifdef CTMATCH_PACKAGE_VERSION
  if (ctmatch::version != CTMATCH_PACKAGE_VERSION) {
    std::printf("consumer: package version %s, headers %.*s\n", CTMATCH_PACKAGE_VERSION,
                static_cast<int>(ctmatch::version.size()), ctmatch::version.data());
    return 1;
  }
#endif
  std::puts("consumer: ok");
  return 0;
}
