// The masks of a compiled grammar as whole bitmask rows, for masking with the masks resident on a
// device (docs/masking.md, "Resident masks"): every row a matcher with one stack fills when
// nothing deeper than the frame below its top state matters — the state's stored mask, with the
// uncertain tokens that frame's return state accepts, the tokens its token edges take without
// leaving the rule, the stop tokens where the grammar can end — plus the row of a terminated
// matcher, deduplicated. A matcher's row is then one id into these rows
// (Matcher::ResidentMaskRef) instead of ceil(V/32) words.
//
// Built on first use from the mask cache (CompiledGrammar::residentMasks()); immutable after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tagmask {

struct Automaton;
class MaskStore;
class TokenizerInfo;

class ResidentMasks {
 public:
  /// Rows stop being added past this many bytes; states left without a row are answered by
  /// compact rows (the store is meant to live in device memory, once per grammar).
  static constexpr uint64_t kMaxBytes = uint64_t{512} << 20;

  static std::unique_ptr<const ResidentMasks> Build(const Automaton& a, const MaskStore& store, const TokenizerInfo& tok);

  /// Distinct rows.
  uint32_t Count() const noexcept { return count_; }
  /// 32-bit words per row: ceil(V/32).
  uint32_t WordsPerMask() const noexcept { return words_; }
  /// Count() * WordsPerMask() words; row `id` starts at word id * WordsPerMask().
  const uint32_t* Words() const noexcept { return rows_.data(); }
  const uint32_t* Row(int32_t id) const noexcept { return rows_.data() + static_cast<size_t>(id) * words_; }
  size_t RowBytes() const noexcept { return rows_.size() * sizeof(uint32_t); }

  /// The row of one stack at `state` whose frame below adds nothing (no frame, or a state
  /// without uncertain tokens), where the grammar may not end / may end; -1 when no row stands
  /// for it (the dead state, a token-edge closure too large, the byte budget spent).
  int32_t Open(uint32_t state) const noexcept { return open_[state]; }
  int32_t Ending(uint32_t state) const noexcept { return ending_[state]; }
  /// The same for a state with uncertain tokens and a frame below returning to its rule's i-th
  /// return state: MaskStore::pairs[pair] resolved (its accepted tokens in the row, its
  /// residual ones left to check against the real stack).
  int32_t PairOpen(uint32_t pair) const noexcept { return pairOpen_[pair]; }
  int32_t PairEnding(uint32_t pair) const noexcept { return pairEnding_[pair]; }
  /// The row of a terminated matcher: the stop tokens.
  int32_t Terminated() const noexcept { return terminated_; }
  /// Token-edge grammars only: whether the configurations reachable from `state` without
  /// consuming include the end of its rule (then the stack below adds token-edge tokens), and
  /// the deepest call nesting they push (the matcher's maxStackDepth must leave room for it).
  bool LevelEnds(uint32_t state) const noexcept { return levelEnds_.empty() ? false : levelEnds_[state] != 0; }
  uint32_t PushDepth(uint32_t state) const noexcept { return pushDepth_.empty() ? 0 : pushDepth_[state]; }

  size_t MemoryBytes() const noexcept {
    return rows_.capacity() * 4 +
           (open_.capacity() + ending_.capacity() + pairOpen_.capacity() + pairEnding_.capacity() + pushDepth_.capacity()) * 4 +
           levelEnds_.capacity() + sizeof(*this);
  }

 private:
  ResidentMasks() = default;
  friend class ResidentMasksBuilder;

  std::vector<uint32_t> rows_;
  std::vector<int32_t> open_, ending_;
  std::vector<int32_t> pairOpen_, pairEnding_;
  std::vector<uint8_t> levelEnds_;
  std::vector<uint32_t> pushDepth_;
  int32_t terminated_ = -1;
  uint32_t count_ = 0;
  uint32_t words_ = 0;
};

}  // namespace tagmask
