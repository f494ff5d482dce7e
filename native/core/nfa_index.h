// The NFA's edges grouped by source state (compressed rows), as the subset construction and
// the proof that a rule's subsets cannot fit (subset_blowup.h) read them.
#pragma once

#include <cstdint>
#include <vector>

#include "buckets.h"
#include "nfa_builder.h"

namespace tagmask {

/// Compressed adjacency of the NFA, by source state.
struct NfaIndex {
  std::vector<uint32_t> epsBegin, epsTo, epsOp;
  std::vector<uint32_t> rangeBegin;
  std::vector<Nfa::Range> ranges;
  std::vector<uint32_t> callBegin;
  std::vector<Nfa::Call> calls;
  std::vector<uint32_t> tokenBegin;
  std::vector<Nfa::Token> tokens;

  explicit NfaIndex(const Nfa& nfa) {
    const uint32_t n = nfa.stateCount;
    const auto from = [](const auto& edge) { return edge.from; };
    const auto itself = [](const auto& edge) { return edge; };
    epsBegin = BucketBegins(n, nfa.eps, from);
    epsTo = FillBuckets(epsBegin, nfa.eps, from, [](const Nfa::Eps& e) { return e.to; });
    epsOp = FillBuckets(epsBegin, nfa.eps, from, [](const Nfa::Eps& e) { return e.op; });
    rangeBegin = BucketBegins(n, nfa.ranges, from);
    ranges = FillBuckets(rangeBegin, nfa.ranges, from, itself);
    callBegin = BucketBegins(n, nfa.calls, from);
    calls = FillBuckets(callBegin, nfa.calls, from, itself);
    if (nfa.tokens.empty()) return;  // most grammars: no token edges, no index
    tokenBegin = BucketBegins(n, nfa.tokens, from);
    tokens = FillBuckets(tokenBegin, nfa.tokens, from, itself);
  }
  bool HasTokens(uint32_t q) const { return !tokenBegin.empty() && tokenBegin[q] != tokenBegin[q + 1]; }
};

}  // namespace tagmask
