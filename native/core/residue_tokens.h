// The tokens of a (state, return state) pair that hold for some remainders of the state's own
// level (docs/engine.md, "Remainders"), decided by arithmetic on the real remainder at fill time.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tagmask/count_op.h"
#include "tagmask/mask_store.h"

namespace tagmask {

/// Calls f(id) for each token of `tokens` (n of them, sorted as ResidueToken::operator< sorts)
/// accepted with remainder r, possibly more than once; stops early when f returns false. The
/// entries of one (m, width, mul) share X = r·mul mod m, and accept exactly the values `add` in
/// the cyclic range [-X - 10^width + 1, -X] (mod m): two binary searches per run, whatever the
/// number of entries.
template <typename F>
inline void ForEachResidueToken(const ResidueToken* tokens, uint32_t n, uint32_t r, F&& f) {
  const auto byAdd = [](const ResidueToken& t, uint32_t v) { return t.add < v; };
  const auto emit = [&](const ResidueToken* from, const ResidueToken* to, uint32_t lo, uint32_t hi) {
    for (const ResidueToken* at = std::lower_bound(from, to, lo, byAdd); at != to && at->add <= hi; ++at) {
      if (!f(at->id)) return false;
    }
    return true;
  };
  uint32_t i = 0;
  while (i < n) {
    const ResidueToken& g = tokens[i];
    uint32_t j = i + 1;
    while (j < n && tokens[j].m == g.m && tokens[j].width == g.width && tokens[j].mul == g.mul) ++j;
    const uint64_t m = g.m;
    uint64_t w = 1;
    for (uint32_t e = 0; e < g.width && w < m; ++e) w *= 10;
    const uint64_t x = uint64_t{r} * g.mul % m;
    const ResidueToken* from = tokens + i;
    const ResidueToken* to = tokens + j;
    if (w >= m) {
      if (!emit(from, to, 0, UINT32_MAX)) return;
    } else {
      const uint32_t hi = static_cast<uint32_t>((m - x) % m);
      const uint32_t lo = static_cast<uint32_t>((hi + m - (w - 1)) % m);
      if (lo <= hi) {
        if (!emit(from, to, lo, hi)) return;
      } else if (!emit(from, to, 0, hi) || !emit(from, to, lo, UINT32_MAX)) {
        return;
      }
    }
    i = j;
  }
}

}  // namespace tagmask
