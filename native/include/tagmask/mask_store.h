// The compile-time mask cache: for every automaton state, the tokens accepted whatever lies
// below on the stack (stored in its smallest form, identical masks shared), and the uncertain
// tokens that the matcher checks against the real stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tagmask {

class TokenizerInfo;

enum class MaskForm : uint8_t {
  /// No token.
  Empty = 0,
  /// Sorted accepted ids.
  List = 1,
  /// Every eligible token except the sorted ids listed (rejected or uncertain ones).
  Complement = 2,
  /// A full row of words.
  Bitset = 3,
};

struct StoredMask {
  MaskForm form = MaskForm::Empty;
  uint32_t offset = 0;  // into ids (List, Complement) or words (Bitset)
  uint32_t size = 0;    // ids listed (List, Complement); accepted count (Bitset)
  uint32_t accepted = 0;  // number of accepted tokens
};

struct StateMask {
  uint32_t mask = 0;  // index into MaskStore::masks
  uint32_t uncertainOffset = 0;
  uint32_t uncertainCount = 0;
  /// With uncertain tokens: pairs[pairBegin + i] resolves them for the i-th return state of the
  /// state's rule (AutomatonRule::returnStates order).
  uint32_t pairBegin = 0;
};

/// The uncertain tokens of a state resolved for one return state below it: those then accepted,
/// and the residual ones that depend on the stack further down (checked at fill time).
struct PairMask {
  uint32_t acceptedOffset = 0, acceptedCount = 0;  // into MaskStore::uncertain
  uint32_t residualOffset = 0, residualCount = 0;
};

class MaskStore {
 public:
  std::vector<StoredMask> masks;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> words;
  std::vector<uint32_t> uncertain;
  std::vector<PairMask> pairs;
  std::vector<StateMask> states;  // one per automaton state (dead included)
  uint32_t wordCount = 0;         // words per row

  /// Overwrites `row` (wordCount words) with the accepted tokens of mask `m`.
  void Write(uint32_t m, const uint32_t* eligible, uint32_t* row) const;
  /// ORs the accepted tokens of mask `m` into `row`; `scratch` has wordCount words.
  void OrInto(uint32_t m, const uint32_t* eligible, uint32_t* row, uint32_t* scratch) const;
  size_t MemoryBytes() const {
    return masks.capacity() * sizeof(StoredMask) + ids.capacity() * 4 + words.capacity() * 4 + uncertain.capacity() * 4 +
           pairs.capacity() * sizeof(PairMask) + states.capacity() * sizeof(StateMask);
  }
};

}  // namespace tagmask
