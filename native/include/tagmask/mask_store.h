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

/// StateMask::mask of a state whose tokens all end inside the byte string it is forced to read
/// next: nothing is stored, a fill follows the token tries along that string (chain_masks.h).
constexpr uint32_t kChainMask = 0xFFFFFFFFu;

struct StateMask {
  uint32_t mask = 0;  // index into MaskStore::masks, or kChainMask
  uint32_t uncertainOffset = 0;
  uint32_t uncertainCount = 0;
  /// With uncertain tokens: pairs[pairBegin + i] resolves them for the i-th return state of the
  /// state's rule (AutomatonRule::returnStates order).
  uint32_t pairBegin = 0;
  /// Counted repetition: when some tokens are accepted only for some counts of the state's rule
  /// level, regimes[regimeBegin, +regimeCount) replace `mask` (docs/engine.md).
  uint32_t regimeBegin = 0;
  uint32_t regimeCount = 0;
  /// Marks: tokens accepted only for some marks of the state's rule level (and counts),
  /// MaskStore::marked[markedBegin, +markedCount), added to the mask at fill time.
  uint32_t markedBegin = 0;
  uint32_t markedCount = 0;
};

/// The mask of a state for the counts from `from` up to the next regime's `from`.
struct CountRegime {
  uint32_t from = 0;
  uint32_t mask = 0;
};

/// The uncertain tokens of a state resolved for one return state below it: those then accepted,
/// and the residual ones that depend on the stack further down (checked at fill time).
struct PairMask {
  uint32_t acceptedOffset = 0, acceptedCount = 0;  // into MaskStore::uncertain
  uint32_t residualOffset = 0, residualCount = 0;
  /// Counted repetition: tokens then accepted when the frame's saved count is in [lo, hi]
  /// (MaskStore::countedTokens).
  uint32_t countedOffset = 0, countedCount = 0;
  /// Remainders: tokens accepted for some remainders of the state's own level
  /// (MaskStore::residueTokens, sorted by modulus, budget, multiplier, value).
  uint32_t residueOffset = 0, residueCount = 0;
};

/// A token that ends in a liveness check of the state's remainder r (docs/engine.md,
/// "Remainders"): accepted iff (-(r·mul + add)) mod m < 10^width, i.e. some `width` more digits
/// make r·mul + add a multiple of m. ResidueAlive(y, m, t) is the union over t' <= t of such
/// terms (mul and add times 10^t'): a token with several ways through or a budget t has one
/// entry per way and t'.
struct ResidueToken {
  uint32_t m, width, mul, add, id;
  bool operator<(const ResidueToken& o) const {
    if (m != o.m) return m < o.m;
    if (width != o.width) return width < o.width;
    if (mul != o.mul) return mul < o.mul;
    if (add != o.add) return add < o.add;
    return id < o.id;
  }
};

/// A token accepted for a range of counts.
struct CountedToken {
  uint32_t id, lo, hi;
};

/// Tokens of a state accepted only when its level's marks m have the bits of `clear` clear, those
/// of `need` set and (when `any` is not 0) some bit of `any` clear, and its count lies in
/// [lo, hi] (docs/engine.md, "Marks"): ids MaskStore::markedIds[offset, +size).
struct MarkedTokens {
  uint32_t clear = 0, need = 0, any = 0;
  uint32_t lo = 0, hi = 0xFFFFFFFFu;
  uint32_t offset = 0, size = 0;
  bool Holds(uint32_t count, uint32_t marks) const {
    return (marks & clear) == 0 && (marks & need) == need && (any == 0 || (marks & any) != any) && lo <= count && count <= hi;
  }
};

class MaskStore {
 public:
  std::vector<StoredMask> masks;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> words;
  std::vector<uint32_t> uncertain;
  std::vector<PairMask> pairs;
  std::vector<StateMask> states;  // one per automaton state (dead included)
  std::vector<CountRegime> regimes;
  std::vector<CountedToken> countedTokens;
  std::vector<ResidueToken> residueTokens;
  std::vector<MarkedTokens> marked;
  std::vector<uint32_t> markedIds;
  uint32_t wordCount = 0;         // words per row

  /// Overwrites `row` (wordCount words) with the accepted tokens of mask `m`.
  void Write(uint32_t m, const uint32_t* eligible, uint32_t* row) const;
  /// ORs the accepted tokens of mask `m` into `row`; `scratch` has wordCount words.
  void OrInto(uint32_t m, const uint32_t* eligible, uint32_t* row, uint32_t* scratch) const;
  /// The mask of a state with regimes for its level's count.
  uint32_t RegimeMask(const StateMask& sm, uint32_t count) const {
    uint32_t lo = sm.regimeBegin, hi = sm.regimeBegin + sm.regimeCount;  // regimes[lo].from == 0
    while (hi - lo > 1) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (regimes[mid].from <= count) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return regimes[lo].mask;
  }
  size_t MemoryBytes() const {
    return masks.capacity() * sizeof(StoredMask) + ids.capacity() * 4 + words.capacity() * 4 + uncertain.capacity() * 4 +
           pairs.capacity() * sizeof(PairMask) + states.capacity() * sizeof(StateMask) + regimes.capacity() * sizeof(CountRegime) +
           countedTokens.capacity() * sizeof(CountedToken) + residueTokens.capacity() * sizeof(ResidueToken) + marked.capacity() * sizeof(MarkedTokens) + markedIds.capacity() * 4;
  }
};

}  // namespace tagmask
