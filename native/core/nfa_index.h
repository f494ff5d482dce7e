// The NFA's edges grouped by source state (compressed rows), as the subset construction and
// the proof that a rule's subsets cannot fit (subset_blowup.h) read them.
#pragma once

#include <cstdint>
#include <vector>

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
    epsBegin.assign(n + 1, 0);
    for (const auto& e : nfa.eps) ++epsBegin[e.from + 1];
    for (uint32_t i = 0; i < n; ++i) epsBegin[i + 1] += epsBegin[i];
    epsTo.resize(nfa.eps.size());
    epsOp.resize(nfa.eps.size());
    {
      std::vector<uint32_t> at(epsBegin.begin(), epsBegin.end() - 1);
      for (const auto& e : nfa.eps) {
        epsOp[at[e.from]] = e.op;
        epsTo[at[e.from]++] = e.to;
      }
    }
    rangeBegin.assign(n + 1, 0);
    for (const auto& r : nfa.ranges) ++rangeBegin[r.from + 1];
    for (uint32_t i = 0; i < n; ++i) rangeBegin[i + 1] += rangeBegin[i];
    ranges.resize(nfa.ranges.size());
    {
      std::vector<uint32_t> at(rangeBegin.begin(), rangeBegin.end() - 1);
      for (const auto& r : nfa.ranges) ranges[at[r.from]++] = r;
    }
    callBegin.assign(n + 1, 0);
    for (const auto& c : nfa.calls) ++callBegin[c.from + 1];
    for (uint32_t i = 0; i < n; ++i) callBegin[i + 1] += callBegin[i];
    calls.resize(nfa.calls.size());
    {
      std::vector<uint32_t> at(callBegin.begin(), callBegin.end() - 1);
      for (const auto& c : nfa.calls) calls[at[c.from]++] = c;
    }
    if (nfa.tokens.empty()) return;  // most grammars: no token edges, no index
    tokenBegin.assign(n + 1, 0);
    for (const auto& t : nfa.tokens) ++tokenBegin[t.from + 1];
    for (uint32_t i = 0; i < n; ++i) tokenBegin[i + 1] += tokenBegin[i];
    tokens.resize(nfa.tokens.size());
    {
      std::vector<uint32_t> at(tokenBegin.begin(), tokenBegin.end() - 1);
      for (const auto& t : nfa.tokens) tokens[at[t.from]++] = t;
    }
  }
  bool HasTokens(uint32_t q) const { return !tokenBegin.empty() && tokenBegin[q] != tokenBegin[q + 1]; }
};

}  // namespace tagmask
