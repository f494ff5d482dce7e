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
enum class CountPrimitive : uint8_t { Reset = 1, Inc = 2, Check = 3, MarkReset = 4, MarkTest = 5, MarkNeed = 6 };

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

  bool IsIdentity() const { return lo == 0 && hi == kNoCountLimit && add == 0 && reset == 0 && !HasMarks(); }
  /// Whether the operation reads or changes the marks.
  bool HasMarks() const { return markClear != 0 || markNeed != 0 || markAny != 0 || markSet != 0 || markReset != 0; }
  /// Whether the operation can fail for some count (it narrows what is allowed).
  bool CountConditional() const { return lo != 0 || hi != kNoCountLimit; }
  /// Whether the operation can fail for some marks.
  bool MarkConditional() const { return markClear != 0 || markNeed != 0 || markAny != 0; }
  /// Whether the operation can fail for some state of the level.
  bool Conditional() const { return CountConditional() || MarkConditional(); }
  bool operator==(const CountOp& o) const {
    return lo == o.lo && hi == o.hi && add == o.add && reset == o.reset && markClear == o.markClear && markNeed == o.markNeed &&
           markAny == o.markAny && markSet == o.markSet && markReset == o.markReset;
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
    if (*count < lo || *count > hi) return false;
    *count = (reset ? 0u : *count) + add;
    return true;
  }
  /// Applies the operation to a known count and known marks; false (both unchanged) when it is
  /// not allowed.
  bool Apply(uint32_t* count, uint32_t* marks) const {
    if (*count < lo || *count > hi || !MarksAllow(*marks)) return false;
    *count = (reset ? 0u : *count) + add;
    *marks = MarksAfter(*marks);
    return true;
  }

  /// Appends a primitive (`value`: max for Inc, min for Check); false when no count can pass the
  /// result (e.g. a check of min 2 right after entering the repeat).
  bool Then(CountPrimitive p, uint32_t value) {
    switch (p) {
      case CountPrimitive::Reset:
        reset = 1;
        add = 0;
        return true;
      case CountPrimitive::Inc:
        if (value != kNoCountLimit) {
          // The count before this primitive is (reset ? 0 : count) + add; it must stay below max.
          if (add >= value) return false;
          if (!reset) hi = hi < value - 1 - add ? hi : value - 1 - add;
        }
        if (add >= kMaxCountBound) return false;
        ++add;
        return lo <= hi;
      case CountPrimitive::Check:
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
