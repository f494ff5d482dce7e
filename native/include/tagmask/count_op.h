// Counters of counted repetition (docs/engine.md, "Counted repetition"). A bounded repeat
// `item{m,n}` with large bounds is not unrolled: the automaton has the item once, in a loop, and
// the rule level it belongs to carries a counter. Transitions (and call edges, and rule ends) may
// do something to that counter; what they do is one CountOp, composed from the primitive
// operations on the epsilon path that led to the transition.
//
// The same operations carry the level's marks (IR `marks` / `mark`, docs/engine.md, "Marks"): a
// set of up to 32 bits per rule level, each set at most once, which lets a loop over the members
// of an object remember which names it has seen without an automaton over subsets.
#pragma once

#include <cstdint>

namespace tagmask {

/// No upper limit (an unbounded repeat).
constexpr uint32_t kNoCountLimit = 0xFFFFFFFFu;
/// The largest bound a counted repeat may have; counts above it are free for the mask walks'
/// markers (kSymbolicCount, kUnknownCount in pda_step.h).
constexpr uint32_t kMaxCountBound = 0x7FFFFFFFu;

/// The primitive operations a counted repeat puts on its epsilon edges: entering it sets the
/// count to 0, starting an item requires count < max and adds one, leaving requires count >= min.
///
/// Marks: entering a `marks` node clears the level's marks (MarkReset), a `mark` node requires its
/// bit clear and sets it (MarkTest, value = the index), leaving the node requires the required
/// bits set (MarkNeed, value = their mask).
///
/// Remainders (IR `residue` / `rdigit` / `rlive`, docs/json-schema.md "The remainder counter"):
/// the level's count is r, the remainder modulo m of the digits read so far. Entering a
/// `residue` node sets r = 0 (ResReset), a digit d folds it, r = (10·r + d) mod m (ResFold,
/// value = d), and a liveness check requires that r can still end as a multiple of m with at most
/// t more free digits (ResLive, value = t). All three carry m (Then's `modulus`).
enum class CountPrimitive : uint8_t { Reset = 1, Inc = 2, Check = 3, MarkReset = 4, MarkTest = 5, MarkNeed = 6, ResReset = 7, ResFold = 8, ResLive = 9 };

/// No fold / no liveness check in a CountOp's remainder part.
constexpr uint8_t kNoResidueStep = 0xFF;

/// Whether remainder r modulo m can still become 0 with at most t more free digits (then only
/// zeros or the end): for some t' <= t, (-r·10^t') mod m < 10^t' (t' free digits add any value
/// below 10^t'; trailing zeros keep 0 at 0 and anything else non-zero).
inline bool ResidueAlive(uint32_t r, uint32_t m, uint32_t t) {
  uint64_t p = 1;  // 10^t'
  uint64_t x = r;  // r·10^t' mod m
  for (uint32_t k = 0; k <= t; ++k) {
    if (p >= m) return true;
    const uint64_t need = x == 0 ? 0 : m - x;
    if (need < p) return true;
    p *= 10;
    x = x * 10 % m;
  }
  return false;
}

/// The most marks one `marks` node may use (the bits of a uint32_t).
constexpr uint32_t kMaxMarks = 32;

/// A composed operation: allowed iff lo <= count <= hi and the level's marks m satisfy
/// (m & markClear) == 0, (m & markNeed) == markNeed and, when markAny != 0, (m & markAny) !=
/// markAny (some bit of markAny is clear); the count then becomes (reset ? 0 : count) + add and
/// the marks (markReset ? 0 : m) | markSet. Transitions never carry markAny: it is the liveness
/// condition of states in a `marks` node (mark_liveness.cpp).
struct CountOp {
  uint32_t lo = 0;
  uint32_t hi = kNoCountLimit;
  uint32_t add = 0;
  uint32_t markClear = 0;
  uint32_t markNeed = 0;
  uint32_t markAny = 0;
  uint32_t markSet = 0;
  uint8_t reset = 0;
  uint8_t markReset = 0;
  /// Remainder part (0 = none): modulus m; the level's count is then r, reset to 0 when
  /// resReset, folded with digit `fold`, then required alive with budget `live`, in that order.
  uint32_t modulus = 0;
  uint8_t resReset = 0;
  uint8_t fold = kNoResidueStep;
  uint8_t live = kNoResidueStep;

  bool IsIdentity() const { return lo == 0 && hi == kNoCountLimit && add == 0 && reset == 0 && !HasMarks() && !HasResidue(); }
  /// Whether the operation reads or changes a remainder.
  bool HasResidue() const { return modulus != 0; }
  /// Whether the operation reads or changes the marks.
  bool HasMarks() const { return markClear != 0 || markNeed != 0 || markAny != 0 || markSet != 0 || markReset != 0; }
  /// Whether the operation can fail for some count (it narrows what is allowed).
  bool CountConditional() const { return lo != 0 || hi != kNoCountLimit || live != kNoResidueStep; }
  /// Whether the operation can fail for some marks.
  bool MarkConditional() const { return markClear != 0 || markNeed != 0 || markAny != 0; }
  /// Whether the operation can fail for some state of the level.
  bool Conditional() const { return CountConditional() || MarkConditional(); }
  bool operator==(const CountOp& o) const {
    return lo == o.lo && hi == o.hi && add == o.add && reset == o.reset && markClear == o.markClear && markNeed == o.markNeed &&
           markAny == o.markAny && markSet == o.markSet && markReset == o.markReset && modulus == o.modulus && resReset == o.resReset &&
           fold == o.fold && live == o.live;
  }

  /// Applies the remainder part to a known remainder; false (unchanged) when the check fails.
  bool ApplyResidue(uint32_t* r) const {
    uint64_t x = resReset ? 0 : *r;
    if (fold != kNoResidueStep) x = (x * 10 + fold) % modulus;
    if (live != kNoResidueStep && !ResidueAlive(static_cast<uint32_t>(x), modulus, live)) return false;
    *r = static_cast<uint32_t>(x);
    return true;
  }
  bool operator!=(const CountOp& o) const { return !(*this == o); }

  /// Whether known marks pass the operation's conditions on them.
  bool MarksAllow(uint32_t marks) const {
    return (marks & markClear) == 0 && (marks & markNeed) == markNeed && (markAny == 0 || (marks & markAny) != markAny);
  }
  /// The marks after the operation.
  uint32_t MarksAfter(uint32_t marks) const { return (markReset ? 0u : marks) | markSet; }

  /// Applies the operation to a known count; false (count unchanged) when it is not allowed.
  /// Only for operations without marks (use the two-argument form otherwise).
  bool Apply(uint32_t* count) const {
    if (HasResidue()) return ApplyResidue(count);
    if (*count < lo || *count > hi) return false;
    *count = (reset ? 0u : *count) + add;
    return true;
  }
  /// Applies the operation to a known count and known marks; false (both unchanged) when it is
  /// not allowed.
  bool Apply(uint32_t* count, uint32_t* marks) const {
    if (HasResidue()) return MarksAllow(*marks) && ApplyResidue(count) && ((*marks = MarksAfter(*marks)), true);
    if (*count < lo || *count > hi || !MarksAllow(*marks)) return false;
    *count = (reset ? 0u : *count) + add;
    *marks = MarksAfter(*marks);
    return true;
  }

  /// Appends a primitive (`value`: max for Inc, min for Check, the digit for ResFold, the budget
  /// for ResLive; `modulus` for the remainder primitives); false when no count can pass the
  /// result (e.g. a check of min 2 right after entering the repeat), or when the remainder
  /// primitives come in an order one operation cannot hold (a second fold, a fold after a check:
  /// the NFA builder never puts them on one epsilon path).
  bool Then(CountPrimitive p, uint32_t value, uint32_t modulus_ = 0) {
    switch (p) {
      case CountPrimitive::ResReset:
        if (add != 0 || reset || lo != 0 || hi != kNoCountLimit) return false;  // a remainder never shares a level's count
        modulus = modulus_;
        resReset = 1;
        fold = kNoResidueStep;
        live = kNoResidueStep;
        return true;
      case CountPrimitive::ResFold:
        if ((modulus != 0 && modulus != modulus_) || fold != kNoResidueStep || live != kNoResidueStep || add != 0 || reset) return false;
        modulus = modulus_;
        fold = static_cast<uint8_t>(value);
        return true;
      case CountPrimitive::ResLive:
        if ((modulus != 0 && modulus != modulus_) || add != 0 || reset) return false;
        modulus = modulus_;
        if (live == kNoResidueStep || value < live) live = static_cast<uint8_t>(value);
        return true;
      case CountPrimitive::Reset:
        if (HasResidue()) return false;
        reset = 1;
        add = 0;
        return true;
      case CountPrimitive::Inc:
        if (HasResidue()) return false;
        if (value != kNoCountLimit) {
          // The count before this primitive is (reset ? 0 : count) + add; it must stay below max.
          if (add >= value) return false;
          if (!reset) hi = hi < value - 1 - add ? hi : value - 1 - add;
        }
        if (add >= kMaxCountBound) return false;
        ++add;
        return lo <= hi;
      case CountPrimitive::Check:
        if (HasResidue()) return false;
        if (reset) return add >= value;
        if (value > add) lo = lo > value - add ? lo : value - add;
        return lo <= hi;
      case CountPrimitive::MarkReset:
        markReset = 1;
        markSet = 0;
        return true;
      case CountPrimitive::MarkTest: {
        // The bit must be clear before this primitive: set by the operation so far means never;
        // otherwise it must be clear in the marks the operation starts from.
        const uint32_t bit = 1u << value;
        if (markSet & bit) return false;
        if (!markReset) {
          if (markNeed & bit) return false;
          markClear |= bit;
          if (markAny & bit) markAny = 0;  // a bit known clear: the "some bit clear" holds
        }
        markSet |= bit;
        return true;
      }
      case CountPrimitive::MarkNeed: {
        const uint32_t rest = value & ~markSet;
        if (rest == 0) return true;
        if (markReset || (rest & markClear)) return false;
        markNeed |= rest;
        if (markAny != 0) {
          markAny &= ~markNeed;
          if (markAny == 0) return false;
        }
        return true;
      }
    }
    return false;
  }
};

}  // namespace tagmask
