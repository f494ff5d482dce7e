// Per-count masks of automaton states inside counted repetition (docs/engine.md, "Counted
// repetition"). A state's walk starts with its level's count unknown; tokens that pass a counter
// operation come out accepted only for a range of counts. The counts are cut into regimes at the
// ends of those ranges, and each regime gets a stored mask of its own (deduplicated), so a fill
// is one binary search and one stored mask, as for any other state.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"
#include "trie_walker.h"

namespace tagmask {

struct MaskBuildStats;

// The places of one state's regimes (counts) and their index once sorted: a flat hash table
// reused across states.
class PlaceTable {
 public:
  void Clear();
  /// Records `at`, appending it to `places` when new.
  void Add(uint32_t at, std::vector<uint32_t>* places);
  void SetIndex(uint32_t at, uint32_t index) { index_[Find(at)] = index; }
  /// The index of a recorded place.
  uint32_t Index(uint32_t at) const { return index_[Find(at)]; }

 private:
  size_t Find(uint32_t at) const;  // the slot of `at`, or the free slot where it would go
  std::vector<uint32_t> key_, index_, stamp_;
  uint32_t epoch_ = 0;
  size_t size_ = 0;
};

// Tokens accepted only when the count lies in [lo, hi]: trie positions [a, b) of one trie (a
// CondSpan without marks, kept compact: a state of a length-limited string can hold ~100 k of them
// until the regimes are built).
struct CountSpan {
  uint32_t a, b, lo, hi;
  bool operator==(const CountSpan& o) const { return a == o.a && b == o.b && lo == o.lo && hi == o.hi; }
};

class RegimeBuilder {
 public:
  RegimeBuilder(const TokenizerInfo& tok, MaskStore* store, uint32_t listMax);

  /// Adds the regimes of a state: `accepted` holds for every count, `conditional` for the
  /// counts of each span, and `cuts` (plain trie) for the counts of each of their tokens; sets
  /// sm.regimeBegin/regimeCount and sm.mask (the mask for count 0).
  void Add(const std::vector<std::pair<uint32_t, uint32_t>> accepted[2], const std::vector<CountSpan> conditional[2],
           const std::vector<CountedCutSpan>& cuts, StateMask* sm, MaskBuildStats* stats);

 private:
  uint32_t Store(MaskBuildStats* stats);
  bool SameAsRow(const StoredMask& m) const;
  // row_ changes one token at a time; its hash (a XOR of one key per set token) and its count
  // follow each change, so a regime costs its changes, not a pass over the whole row.
  void Flip(uint32_t id) {
    row_[id >> 5] ^= 1u << (id & 31);
    const bool set = (row_[id >> 5] >> (id & 31)) & 1u;
    rowHash_ ^= TokenKey(id);
    rowCount_ = set ? rowCount_ + 1 : rowCount_ - 1;
  }
  static uint64_t TokenKey(uint32_t id) {
    uint64_t z = (uint64_t{id} + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  const TokenizerInfo& tok_;
  MaskStore* store_;
  uint32_t listMax_;
  std::vector<uint32_t> base_, row_;
  uint64_t rowHash_ = 0;
  uint32_t rowCount_ = 0;
  // Per trie, per token position: spans covering it in the current regime. By position, not
  // by id: a regime's events come in trie order, so these are read in order too (by id they
  // were random reads over 256 KB, a third of the regimes' time on o35866).
  std::vector<uint16_t> depth_[2];
  std::vector<uint32_t> places_;  // counts where some span starts or stops
  std::vector<CountSpan> spelled_;  // the plain trie's spans with the counted cuts spelled out
  PlaceTable placeTable_;
  // Regime masks by row hash: the stored masks are compared by content (no copy of each row).
  std::unordered_map<uint64_t, std::vector<uint32_t>> known_;
};

}  // namespace tagmask
