// A proof that a rule's subset construction cannot end within its bounds, found after a
// fraction of the work, so that a hopeless rule is refused in milliseconds instead of when the
// bounds are reached (docs/engine.md, "Limits").
//
// The shape it proves: a part of the NFA that stays alive whatever bytes come (an unbounded
// repeat, or a long one), which on one byte x starts a chain of k positions that advance on x
// and on another byte y alike (`.*a.{25}`: x = 'a', y = 'b', k = 26). After any k bytes drawn
// from {x, y}, the subset holds position i of the chain exactly when the i-th last byte was x,
// so the construction meets at least 2^k distinct subsets, holding k * 2^(k-1) chain positions
// in all. Each step of the argument is checked on the NFA itself (every way into a chain
// position is its predecessor), so a grammar is only refused when the construction would
// certainly pass its bounds.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nfa_index.h"

namespace tagmask {

/// What SubsetBlowupProver::Find proved: every pattern of `bits` bytes drawn from the two
/// segments leads to a subset of its own (bits 0: nothing proved).
struct SubsetBlowup {
  uint32_t bits = 0;
  uint8_t startByte = 0;  // a byte of the segment that starts the chain (x)
  uint8_t otherByte = 0;  // a byte of the segment that only advances it (y)
};

/// Looks for the proof on the NFA of a whole program; the reverse indexes it needs are built on
/// its first use and kept for the program's other rules.
class SubsetBlowupProver {
 public:
  SubsetBlowupProver(const NfaIndex& index, const Nfa& nfa, const std::array<uint8_t, 256>& segOf, uint32_t segCount);

  /// Tries to prove at least `wantBits` bits for the rule from `ruleStart` to `ruleFinal`, from `raw`:
  /// NFA states the construction has reached as the targets of a column (before their epsilon
  /// closure), each once. Bounded work (a few million steps); gives up with bits 0 past it.
  SubsetBlowup Find(uint32_t ruleStart, uint32_t ruleFinal, const std::vector<uint32_t>& raw, uint32_t wantBits);

 private:
  struct Fail {};  // the work budget ran out
  void BuildReverse();
  void Spend(uint64_t steps);
  const std::vector<uint32_t>& Closure(uint32_t q);
  void Step(uint32_t r, uint32_t seg, std::vector<uint32_t>* out);
  void ReachingByEps(uint32_t c, std::vector<uint32_t>* out);
  bool Kept(uint32_t q) const;
  void KeptStep(uint32_t q, uint32_t seg, std::vector<uint32_t>* out);
  void RangesInto(const std::vector<uint32_t>& reaching, uint32_t seg, std::vector<uint32_t>* out);
  bool OnlyPredecessor(uint32_t c, uint32_t p, uint32_t x, uint32_t y);
  uint32_t Chain(uint32_t p, uint32_t x, uint32_t y, uint32_t depth, uint32_t cap);
  uint32_t AliveSteps(const std::vector<uint32_t>& reachingFirst, uint32_t x, uint32_t y, const std::vector<uint32_t>& roots, uint32_t cap);

  const NfaIndex& index_;
  const Nfa& nfa_;
  const std::array<uint8_t, 256>& segOf_;
  uint32_t segCount_;
  bool built_ = false;
  // Reverse edges: ranges and epsilon edges by target state.
  std::vector<uint32_t> revRangeBegin_, revEpsBegin_, revEps_;
  std::vector<Nfa::Range> revRanges_;
  // States a column's targets can be: targets of ranges, calls and token edges, rule starts.
  std::vector<uint8_t> isRaw_;
  std::vector<uint8_t> segByte_;    // per segment, the byte that names it
  std::vector<uint32_t> segOrder_;  // segments, those named by a letter or digit first
  uint32_t ruleFinal_ = UINT32_MAX;
  std::vector<uint32_t> mark_;
  uint32_t epoch_ = 0;
  std::vector<uint32_t> stack_, closure_, scratch_, scratch2_;
  uint64_t work_ = 0;
};

}  // namespace tagmask
