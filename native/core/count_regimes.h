// Per-count masks of automaton states inside counted repetition (docs/engine.md, "Counted
// repetition"). A state's walk starts with its level's count unknown; tokens that pass a counter
// operation come out accepted only for a range of counts. The counts are cut into regimes at the
// ends of those ranges, and each regime gets a stored mask of its own (deduplicated), so a fill
// is one binary search and one stored mask, as for any other state.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"
#include "trie_walker.h"

namespace tagmask {

struct MaskBuildStats;

class RegimeBuilder {
 public:
  RegimeBuilder(const TokenizerInfo& tok, MaskStore* store, uint32_t listMax);

  /// Adds the regimes of a state: `accepted` holds for every count, `conditional` for the
  /// counts of each span; sets sm.regimeBegin/regimeCount and sm.mask (the mask for count 0).
  void Add(const std::vector<std::pair<uint32_t, uint32_t>> accepted[2], const std::vector<CondSpan> conditional[2], StateMask* sm,
           MaskBuildStats* stats);

 private:
  uint32_t Store(MaskBuildStats* stats);

  const TokenizerInfo& tok_;
  MaskStore* store_;
  uint32_t listMax_;
  std::vector<uint32_t> base_, row_;
  std::vector<uint16_t> depth_;  // per token id: spans covering it in the current regime
  std::vector<uint32_t> places_;  // counts where some span starts or stops
  std::unordered_set<uint32_t> seen_;
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, std::vector<uint32_t>>>> known_;
};

}  // namespace tagmask
