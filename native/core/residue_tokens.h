// The tokens of a (state, return state) pair that hold for some remainders of the state's own
// level (docs/engine.md, "Remainders"), decided by arithmetic on the real remainder at fill time.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tagmask/count_op.h"
#include "tagmask/mask_store.h"

namespace tagmask {

/// Calls f(id) for each token of `tokens` (n of them, sorted as ResidueToken::operator< sorts)
/// accepted with remainder r; stops early when f returns false. Tokens that end the number
/// (budget 0: the remainder must become 0) share a multiplier per digit count, so each such run
/// is one binary search for the one value that works, (-r·mul) mod m; tokens with free digits
/// left (a fraction's budget) are checked one by one.
template <typename F>
inline void ForEachResidueToken(const ResidueToken* tokens, uint32_t n, uint32_t r, F&& f) {
  uint32_t i = 0;
  while (i < n) {
    const ResidueToken& g = tokens[i];
    uint32_t j = i + 1;
    while (j < n && tokens[j].m == g.m && tokens[j].budget == g.budget && tokens[j].mul == g.mul) ++j;
    const uint32_t x = static_cast<uint32_t>(uint64_t{r} * g.mul % g.m);
    if (g.budget == 0) {
      const uint32_t want = x == 0 ? 0 : g.m - x;
      const ResidueToken* at = std::lower_bound(tokens + i, tokens + j, want, [](const ResidueToken& t, uint32_t v) { return t.add < v; });
      for (; at != tokens + j && at->add == want; ++at) {
        if (!f(at->id)) return;
      }
    } else {
      for (uint32_t k = i; k < j; ++k) {
        const uint32_t y = static_cast<uint32_t>((uint64_t{x} + tokens[k].add) % g.m);
        if (ResidueAlive(y, g.m, g.budget) && !f(tokens[k].id)) return;
      }
    }
    i = j;
  }
}

}  // namespace tagmask
