// Per-state tables the mask walks' cuts read (trie_walker.h, CutRule): which absorbing states
// loop on the same ASCII bytes, how much plain text each state survives, and where a walk cannot
// die inside a multi-byte character. Built once per automaton, before the walks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tagmask/automaton.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

/// Groups the absorbing states by the ASCII bytes that loop on them (`profileOf`, per state;
/// CutRule::kNoProfile for the others), and gets for each group the impure-trie node maxima of
/// CutRule (cached by the tokenizer).
void BuildProfiles(const Automaton& a, const TokenizerInfo& tok, std::vector<uint32_t>* profileOf,
                   std::vector<std::shared_ptr<const std::vector<uint16_t>>>* nodeMax);

/// Per state: the largest k such that every sequence of at most k bytes of plain characters keeps
/// the state alive; 0xFFFF when no such sequence can kill it.
std::vector<uint16_t> PlainDepth(const Automaton& a, uint32_t maxTokenLength);

/// Per state: CutRule::midChar, the length L of a character's continuation the state survives
/// whatever its bytes (0: none).
std::vector<uint8_t> MidCharLength(const Automaton& a, const std::vector<uint16_t>& plainDepth);

}  // namespace tagmask
