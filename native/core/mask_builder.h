// Builds the mask cache (tagmask/mask_store.h): for each automaton state, walks the token tries
// from a stack whose bottom frame is that state and sorts every token into accepted, rejected or
// uncertain (docs/engine.md, "The mask cache").
#pragma once

#include <cstdint>

#include "tagmask/automaton.h"
#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

struct MaskBuildStats {
  uint64_t trieNodesVisited = 0;
  uint64_t work = 0;  // steps counted against the work budget
  uint32_t walkedStates = 0;  // states walked from; the others share a walked state's result
  uint32_t chainStates = 0;   // states filled along their chain at run time (chain_masks.h)
  uint32_t uncertainTokens = 0;   // summed over states
  uint32_t statesWithUncertain = 0;
  uint32_t residualTokens = 0;     // summed over (state, return state) pairs
  uint32_t residueTokens = 0;      // entries decided by a remainder's arithmetic, summed over pairs
  uint32_t distinctMasks = 0;
  uint32_t listMasks = 0, complementMasks = 0, bitsetMasks = 0;
};

/// Fills `store` for every state of `a`. `threads` > 1 runs the walks on the shared thread pool.
/// Throws GrammarError when the walks need more than `workLimit` steps (trie nodes visited plus
/// parser configurations made).
void BuildMasks(const Automaton& a, const TokenizerInfo& tokenizer, uint32_t threads, uint64_t workLimit, MaskStore* store,
                MaskBuildStats* stats);

}  // namespace tagmask
