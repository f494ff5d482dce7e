// Counters of counted repetition (docs/engine.md, "Counted repetition"). A bounded repeat
// `item{m,n}` with large bounds is not unrolled: the automaton has the item once, in a loop, and
// the rule level it belongs to carries a counter. Transitions (and call edges, and rule ends) may
// do something to that counter; what they do is one CountOp, composed from the primitive
// operations on the epsilon path that led to the transition.
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
enum class CountPrimitive : uint8_t { Reset = 1, Inc = 2, Check = 3 };

/// A composed operation: allowed iff lo <= count <= hi; the count then becomes
/// (reset ? 0 : count) + add.
struct CountOp {
  uint32_t lo = 0;
  uint32_t hi = kNoCountLimit;
  uint32_t add = 0;
  uint8_t reset = 0;

  bool IsIdentity() const { return lo == 0 && hi == kNoCountLimit && add == 0 && reset == 0; }
  /// Whether the operation can fail for some count (it narrows what is allowed).
  bool Conditional() const { return lo != 0 || hi != kNoCountLimit; }
  bool operator==(const CountOp& o) const { return lo == o.lo && hi == o.hi && add == o.add && reset == o.reset; }
  bool operator!=(const CountOp& o) const { return !(*this == o); }

  /// Applies the operation to a known count; false (count unchanged) when it is not allowed.
  bool Apply(uint32_t* count) const {
    if (*count < lo || *count > hi) return false;
    *count = (reset ? 0u : *count) + add;
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
    }
    return false;
  }
};

}  // namespace tagmask
