// States whose masks are filled along their chain at run time instead of stored (docs/engine.md,
// "Masks filled along a chain"). Most states of a large string enum lie on the one remaining
// value's suffix: each reads one byte and goes on to a state that reads one byte, and no token
// reaches past the point where that string stops being forced. Their mask is then the tokens that
// are prefixes of the forced string, which a fill finds by following the token tries along it (a
// few child lookups), so the mask builder neither walks nor stores them.
#pragma once

#include <cstdint>

#include "tagmask/automaton.h"
#include "tagmask/token_trie.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

/// A state whose next byte is forced and whose mask depends on nothing but the bytes: exactly one
/// live byte, not final, no calls, no counter, marks or remainder operation or liveness check, not
/// absorbing, not in a limited text, no token edges.
inline bool IsChainLink(const Automaton& a, uint32_t s) {
  constexpr uint8_t kOther = kFinal | kHasCalls | kAbsorbing | kLimitedText | kCounted;
  return s != kDeadState && (a.flags[s] & kOther) == 0 && a.singleByte[s] >= 0 && !a.tokenEdges.HasEdges(s);
}

/// Whether every token `s` can accept ends inside its chain: following each token trie along the
/// forced bytes from `s`, the trie runs out (no child for the next byte, or a node without
/// children) while every state it has passed is a chain link. The tokens it met are then exactly
/// what a walk from `s` accepts: each takes `s` through chain links into a state with no entry
/// check, and nothing is uncertain or conditional (no rule end, call or operation on the way).
inline bool FilledAlongChain(const Automaton& a, const TokenizerInfo& tok, uint32_t s) {
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  for (const TokenTrie* trie : tries) {
    uint32_t q = s, n = 0;
    for (;;) {
      if (!IsChainLink(a, q)) return false;
      const uint8_t b = static_cast<uint8_t>(a.singleByte[q]);
      n = n == 0 ? trie->RootChild(b) : trie->Child(n, b);
      if (n == 0) break;
      q = a.Next(q, b);
      if (a.Is(q, kCounted)) return false;  // a token ending there would meet its liveness check
      if (trie->SubtreeEnd(n) == n + 1) break;
    }
  }
  return true;
}

/// Calls fn(id) for every token a state with FilledAlongChain accepts (each once: a token lies in
/// one trie, at one node).
template <class Fn>
void ForEachChainToken(const Automaton& a, const TokenizerInfo& tok, uint32_t s, Fn&& fn) {
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  for (const TokenTrie* trie : tries) {
    const uint32_t* ids = trie->TokenIds();
    uint32_t q = s, n = 0;
    for (;;) {
      const uint8_t b = static_cast<uint8_t>(a.singleByte[q]);
      n = n == 0 ? trie->RootChild(b) : trie->Child(n, b);
      if (n == 0) break;
      for (uint32_t k = trie->TokenBegin(n); k < trie->TokenBegin(n + 1); ++k) fn(ids[k]);
      if (trie->SubtreeEnd(n) == n + 1) break;
      q = a.Next(q, b);
    }
  }
}

}  // namespace tagmask
