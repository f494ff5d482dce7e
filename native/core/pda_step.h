// One byte step of the pushdown automaton for one configuration, shared by the mask builder
// (stacks whose bottom is unknown), the matcher (real stacks) and the matcher's checks of
// uncertain tokens (real stacks plus scratch frames).
//
// A configuration is a top state and a frame index; frames hold (return state, parent frame) in
// an arena owned by the caller. Stepping a byte from a configuration follows, without consuming:
// call edges (push a frame, enter the callee's start) and the end of the rule (pop), then takes
// the byte transition. A `visited` list stops the closure from looping (a nullable callee can
// return to where it was called).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tagmask/automaton.h"

namespace tagmask {

/// Mask walks only (trie_walker.h): the count of the level the walk starts from, unknown there
/// (it is the count of whatever stack the mask will be used for), plus Config::shift; and the
/// count of a level reached by escaping the walk's bottom, unknown too but not tracked.
constexpr uint32_t kSymbolicCount = 0xFFFFFFFEu;
constexpr uint32_t kUnknownCount = 0xFFFFFFFDu;

/// How a configuration knows its level's marks (Config::markMode): exactly (the matcher, and
/// walks after the level entered its `marks` node), relative to the walk's start level (m0 |
/// marks, m0 unknown), or not at all (a level reached by escaping the walk's bottom).
constexpr uint8_t kMarksKnown = 0;
constexpr uint8_t kMarksSymbolic = 1;
constexpr uint8_t kMarksUnknown = 2;

/// Config::resT beyond a pending check's budget: a pending budget t has 10^t < m <= 2^31 - 1, so
/// t <= 9 (a larger check holds for every remainder and is never kept).
constexpr uint8_t kResNone = 0xFF;
constexpr uint8_t kResArmed = 0xFE;
constexpr uint8_t kResFree = 0xFD;

struct Config {
  uint32_t state = 0;
  uint32_t frame = 0;
  /// The counter of this rule level: tokens the current occurrence of a limited `text` rule has
  /// consumed, or items of the counted repeat being matched (0 elsewhere).
  uint32_t count = 0;
  /// Mask walks: what the path so far requires of the start level's unknown count c0
  /// (lo <= c0 <= hi), and, while count is kSymbolicCount, how much was added to it (the level's
  /// count is c0 + shift). Default everywhere else.
  uint32_t lo = 0;
  uint32_t hi = kNoCountLimit;
  uint32_t shift = 0;
  /// The marks of this rule level (IR `marks`, docs/engine.md "Marks"): the bits set so far; in
  /// mask walks with markMode kMarksSymbolic, the bits set since the walk started (the level's
  /// marks are then m0 | marks, m0 being the start level's unknown marks).
  uint32_t marks = 0;
  /// Mask walks: what the path requires of m0: the bits of markClear clear, those of markNeed
  /// set and, when markAny is not 0, some bit of markAny clear. 0 everywhere else.
  uint32_t markClear = 0;
  uint32_t markNeed = 0;
  uint32_t markAny = 0;
  /// Mask builder: no uncertain escape was taken on the way here.
  uint8_t exact = 1;
  /// During one token: a byte of the current limited text occurrence was consumed.
  uint8_t consumed = 0;
  uint8_t markMode = kMarksKnown;
  /// Mask walks of the uncertain tokens of a remainder's own state (TrieWalker::WalkTokens with
  /// residue tokens asked for): the start level's unknown remainder r followed symbolically.
  /// kResNone: not followed (everywhere else); kResArmed: the start level may be a remainder's,
  /// nothing applied yet; from the first remainder operation on, the level's remainder is
  /// (r·lo + hi) mod shift (a remainder's level never has counted repetition, so these fields
  /// are free there), and resT is kResFree or the one liveness check the path still requires:
  /// ResidueAlive((r·lo + hi) mod shift, shift, resT). Packed so a Config stays 48 bytes.
  uint8_t resT = kResNone;

  bool SameAs(const Config& o) const {
    return state == o.state && frame == o.frame && count == o.count && consumed == o.consumed && lo == o.lo && hi == o.hi &&
           shift == o.shift && marks == o.marks && markClear == o.markClear && markNeed == o.markNeed && markAny == o.markAny &&
           markMode == o.markMode && resT == o.resT;
  }
  /// Whether lo/hi are conditions on the start level's count (not a followed remainder's terms).
  bool CountTerms() const { return resT >= kResArmed; }
  /// Whether the path holds for every value of the start level's count and marks.
  bool Unconditional() const {
    return (CountTerms() ? lo == 0 && hi == kNoCountLimit : resT == kResFree) && markClear == 0 && markNeed == 0 && markAny == 0;
  }
  /// Whether the path holds for the start level's marks whatever they are.
  bool MarkUnconditional() const { return markClear == 0 && markNeed == 0 && markAny == 0; }
};

/// Applies the marks part of an operation (count_op.h) to a configuration: known marks are
/// checked and changed; symbolic ones add the operation's conditions to what the path requires
/// of m0 (a condition the three masks cannot hold together makes the configuration inexact, so
/// the real stack decides at fill time); unknown ones make it inexact when there is a condition.
inline bool ApplyMarks(const CountOp& o, Config* c) {
  if (c->markMode == kMarksKnown) {
    if (!o.MarksAllow(c->marks)) return false;
  } else if (c->markMode == kMarksUnknown) {
    if (o.MarkConditional()) c->exact = 0;
  } else {
    const uint32_t added = c->marks;  // set on the way: not clear
    if (o.markClear & added) return false;
    c->markClear |= o.markClear;
    c->markNeed |= o.markNeed & ~added;
    if (c->markClear & c->markNeed) return false;
    uint32_t any = c->markAny;
    if (o.markAny != 0) {
      const uint32_t y = o.markAny & ~added;
      if (y == 0) return false;
      if (any == 0 || (y & ~any) == 0) {
        any = y;  // the stronger of the two (y within any)
      } else if ((any & ~y) != 0) {
        c->exact = 0;  // neither implies the other
      }
    }
    if (any != 0) {
      if (any & c->markClear) {
        any = 0;  // a bit that must be clear satisfies it
      } else {
        any &= ~c->markNeed;
        if (any == 0) return false;
      }
    }
    c->markAny = any;
  }
  if (o.markReset) {
    c->markMode = kMarksKnown;
    c->marks = o.markSet;
  } else if (c->markMode != kMarksUnknown) {
    c->marks |= o.markSet;
  }
  return true;
}

/// A remainder operation on the walk's start level when its remainder r is followed
/// symbolically (Config::resT): folds keep the level's remainder as r·lo + hi (mod shift), and the
/// path's condition on r is one pending liveness check. A new check after a fold replaces the
/// pending one when it implies it: alive(10x + d, t') gives x a way to 0 within t' + 1 free
/// digits, so it implies alive(x, t) for t' + 1 <= t; with t = t' = 0 and d = 0 both say x = 0
/// (m is coprime to 10). Anything else (a fold with no check while one is pending) leaves the
/// configuration inexact, as without the symbolic remainder: the real stack decides.
inline bool ApplySymbolicResidue(const CountOp& o, Config* c) {
  const uint32_t m = o.modulus;
  if (c->resT == kResArmed) {
    c->shift = m;
    c->lo = 1 % m;
    c->hi = 0;
    c->resT = kResFree;
  }
  const auto giveUp = [c] {
    c->exact = 0;
    c->count = kUnknownCount;
    c->lo = 0;
    c->hi = kNoCountLimit;
    c->shift = 0;
    c->resT = kResNone;
    return true;
  };
  if (c->shift != m) return giveUp();
  if (o.fold != kNoResidueStep) {
    if (c->resT != kResFree) {
      const bool implied = o.live != kNoResidueStep && (o.live + 1u <= c->resT || (c->resT == 0 && o.live == 0 && o.fold == 0));
      if (!implied) return giveUp();
      c->resT = kResFree;
    }
    c->lo = static_cast<uint32_t>(uint64_t{c->lo} * 10 % m);
    c->hi = static_cast<uint32_t>((uint64_t{c->hi} * 10 + o.fold) % m);
  }
  // 10^t >= m: any remainder can still become 0 (ResidueAlive), the check holds whatever r is.
  if (o.live == kNoResidueStep) return true;
  uint64_t p = 1;
  for (uint32_t k = 0; k < o.live && p < m; ++k) p *= 10;
  if (p < m && (c->resT == kResFree || o.live < c->resT)) c->resT = o.live;
  return true;
}

/// Applies counter operation `op` to the configuration's count (a real one, or in mask walks
/// the symbolic or unknown one); false when it is not allowed. With the symbolic count the
/// operation narrows what the start level's count may be; with an unknown one it makes the
/// configuration inexact (the real stack decides at fill time).
inline bool ApplyCountOp(const Automaton& a, uint32_t op, Config* c) {
  if (op == kNoCountOp) return true;
  const CountOp& o = a.countOps[op];
  if (o.HasMarks() && !ApplyMarks(o, c)) return false;
  if (o.HasResidue()) {
    // A remainder (its own rule level: no counted repetition shares it). Known: exact. In mask
    // walks, a reset makes it known; a fold of an unknown one leaves it unknown, and a liveness
    // check on an unknown one makes the configuration inexact (the real stack decides at fill
    // time, Matcher::FillStack).
    if (c->count == kSymbolicCount || c->count == kUnknownCount) {
      if (!o.resReset && c->count == kSymbolicCount && c->resT != kResNone && c->exact) return ApplySymbolicResidue(o, c);
      if (!o.resReset) {
        if (o.live != kNoResidueStep) c->exact = 0;
        c->count = kUnknownCount;
        return true;
      }
      c->count = 0;
    }
    return o.ApplyResidue(&c->count);
  }
  if (c->count == kSymbolicCount) {
    // c0 + shift must lie in [o.lo, o.hi].
    if (o.hi != kNoCountLimit) {
      if (o.hi < c->shift) return false;
      c->hi = std::min(c->hi, o.hi - c->shift);
    }
    if (o.lo > c->shift) c->lo = std::max(c->lo, o.lo - c->shift);
    if (c->lo > c->hi) return false;
    if (o.reset) {
      c->count = o.add;
    } else {
      c->shift += o.add;
    }
    return true;
  }
  if (c->count == kUnknownCount) {
    if (o.CountConditional()) c->exact = 0;
    if (o.reset) c->count = o.add;
    return true;
  }
  return o.Apply(&c->count);
}

/// Arena policy (see MaskBuilder and Matcher):
///   uint32_t Push(uint32_t ret, uint32_t parent, const Config& caller) -> frame, or kNoFrame to
///       drop the path (the frame saves the caller's level: its count and marks, restored when
///       the callee ends)
///   bool IsBottom(uint32_t frame)                  -> no frame of ours below
///   uint32_t Ret(uint32_t frame), Parent(uint32_t frame)
///   void Restore(uint32_t frame, Config* c)        -> the saved level into c
///   template <class Fn> void Escape(const Automaton&, const Config&, Fn&& expand)
///       what ending the rule at the bottom means (compile time: continue in each return state)
constexpr uint32_t kNoFrame = 0xFFFFFFFFu;

/// A callee's level starts with count 0 and no marks.
inline void EnterLevel(Config* c) {
  c->count = 0;
  c->marks = 0;
  c->markMode = kMarksKnown;
}

/// Finds equal configurations (Config::SameAs) among many by hashing, for the steps of ambiguous
/// grammars where a linear scan per configuration would make a step quadratic. Positions refer to
/// a vector the caller owns; the table is reused across steps without reallocating once warm.
class ConfigTable {
 public:
  /// Starts over for a new set.
  void Clear() {
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      epoch_ = 1;
    }
    size_ = 0;
  }
  /// The position of a configuration equal to `c` in `items`, or kAbsent; with `add`, records
  /// `add` (c's own position) when absent.
  uint32_t Find(const std::vector<Config>& items, size_t base, const Config& c, uint32_t add = kAbsent) {
    if (2 * (size_ + 1) > stamp_.size()) Grow(items, base);
    const size_t mask = stamp_.size() - 1;
    for (size_t h = Hash(c) & mask;; h = (h + 1) & mask) {
      if (stamp_[h] != epoch_) {
        if (add != kAbsent) {
          stamp_[h] = epoch_;
          pos_[h] = add;
          ++size_;
        }
        return kAbsent;
      }
      if (items[base + pos_[h]].SameAs(c)) return pos_[h];
    }
  }
  static constexpr uint32_t kAbsent = 0xFFFFFFFFu;

 private:
  static size_t Hash(const Config& c) {
    uint64_t h = (static_cast<uint64_t>(c.state) << 32 | c.frame) * 0x9E3779B97F4A7C15ull;
    h = (h ^ c.count ^ (static_cast<uint64_t>(c.lo) << 20) ^ (static_cast<uint64_t>(c.hi) << 40) ^ c.shift ^ c.consumed ^
         (static_cast<uint64_t>(c.marks) << 24) ^ (static_cast<uint64_t>(c.markClear ^ c.markNeed ^ c.markAny) << 36)) *
        0xBF58476D1CE4E5B9ull;
    return static_cast<size_t>(h ^ (h >> 31));
  }
  // Doubles the table and re-enters the current set (positions stay valid).
  void Grow(const std::vector<Config>& items, size_t base) {
    std::vector<uint32_t> old;
    const size_t mask = stamp_.size() - 1;
    for (size_t h = 0; h < stamp_.size(); ++h) {
      if (stamp_[h] == epoch_) old.push_back(pos_[h]);
    }
    (void)mask;
    const size_t n = std::max<size_t>(64, stamp_.size() * 2);
    stamp_.assign(n, 0u);
    pos_.assign(n, 0u);
    epoch_ = 1;
    size_ = 0;
    for (uint32_t p : old) Find(items, base, items[base + p], p);
  }
  std::vector<uint32_t> stamp_, pos_;
  uint32_t epoch_ = 1;
  size_t size_ = 0;
};

template <class Arena>
class PdaStepper {
 public:
  PdaStepper(const Automaton& a, Arena& arena) : a_(a), arena_(arena) {}

  /// Appends to `out` the configurations reachable from `c` by consuming `byte`.
  void Step(const Config& c, uint8_t byte, std::vector<Config>* out) {
    visited_.clear();
    Expand<false>(c, byte, out);
  }
  /// Same, keeping the visited list across calls (call ClearVisited() per byte).
  void StepMore(const Config& c, uint8_t byte, std::vector<Config>* out) { Expand<false>(c, byte, out); }
  void ClearVisited() { visited_.clear(); }
  /// The byte-independent half of StepMore: appends to `closure` every configuration StepMore(c,
  /// byte) would step on `byte`, in the same order (calls entered, rules ended), so that stepping
  /// each of them with StepClosed gives what StepMore gives, for any byte. A walker that steps
  /// one configuration set on many bytes (a trie node's children) follows calls and returns once.
  void CloseMore(const Config& c, std::vector<Config>* closure) { Expand<true>(c, 0, closure); }
  /// Appends the configuration `x` of a closure reaches by consuming `byte`, if any.
  void StepClosed(const Config& x, uint8_t byte, std::vector<Config>* out) const {
    const uint32_t s = x.state;
    const uint8_t f = a_.flags[s];
    if ((f & kLimitedText) && x.count >= a_.rules[a_.ruleOf[s]].maxTokens) return;
    const uint32_t t = a_.Next(s, byte);
    if (t == kDeadState) return;
    Config n = x;
    n.state = t;
    if (f & kLimitedText) n.consumed = 1;
    if ((!(f & kCounted) || ApplyCountOp(a_, a_.TransOp(s, byte), &n)) && Live(&n)) out->push_back(n);
  }

 private:
  template <bool kClose>
  void Expand(const Config& c, uint8_t byte, std::vector<Config>* out) {
    if (visited_.size() < kScan) {
      for (const Config& v : visited_) {
        if (v.SameAs(c) && v.exact >= c.exact) return;
      }
      visited_.push_back(c);
      if (visited_.size() == kScan) {
        // From here on, look configurations up by hash.
        table_.Clear();
        for (uint32_t i = 0; i < visited_.size(); ++i) table_.Find(visited_, 0, visited_[i], i);
      }
    } else {
      const uint32_t at = table_.Find(visited_, 0, c, static_cast<uint32_t>(visited_.size()));
      if (at != ConfigTable::kAbsent) {
        if (visited_[at].exact >= c.exact) return;
        visited_[at].exact = c.exact;
      } else {
        visited_.push_back(c);
      }
    }
    const uint32_t s = c.state;
    const uint8_t f = a_.flags[s];
    if (kClose) {
      out->push_back(c);
    } else {
      StepClosed(c, byte, out);
    }
    if (f & kHasCalls) {
      for (uint32_t e = a_.callBegin[s]; e < a_.callBegin[s + 1]; ++e) {
        const CallEdge& call = a_.calls[e];
        Config caller = c;
        if (!ApplyCountOp(a_, call.op, &caller)) continue;
        const uint32_t frame = arena_.Push(call.returnState, c.frame, caller);
        if (frame == kNoFrame) continue;
        Config n = caller;
        n.state = a_.rules[call.rule].start;
        n.frame = frame;
        EnterLevel(&n);
        n.consumed = 0;
        Expand<kClose>(n, byte, out);
      }
    }
    if (f & kFinal) {
      Config e = c;
      if ((f & kCounted) && !ApplyCountOp(a_, a_.FinalOp(s), &e)) return;
      e.consumed = 0;
      if (!arena_.IsBottom(c.frame)) {
        Config n = e;
        n.state = arena_.Ret(c.frame);
        n.frame = arena_.Parent(c.frame);
        arena_.Restore(c.frame, &n);
        if (Live(&n)) Expand<kClose>(n, byte, out);
      } else {
        arena_.Escape(a_, e, [&](const Config& n) { Expand<kClose>(n, byte, out); });
      }
    }
  }

  // Whether the configuration's count can still end the counted node its state lies in.
  bool Live(Config* c) const { return !(a_.flags[c->state] & kCounted) || ApplyCountOp(a_, a_.LiveOp(c->state), c); }

  static constexpr size_t kScan = 16;
  const Automaton& a_;
  Arena& arena_;
  std::vector<Config> visited_;
  ConfigTable table_;
};

/// Sorts out duplicates (same state, frame, counts, consumed), keeping the most exact. `table`
/// is used when there are many (ambiguous grammars).
inline void DedupeConfigs(std::vector<Config>* configs, size_t from = 0, ConfigTable* table = nullptr) {
  std::vector<Config>& v = *configs;
  size_t end = from;
  if (table != nullptr && v.size() - from > 16) {
    table->Clear();
    for (size_t i = from; i < v.size(); ++i) {
      const uint32_t at = table->Find(v, from, v[i], static_cast<uint32_t>(end - from));
      if (at == ConfigTable::kAbsent) {
        v[end++] = v[i];
      } else if (v[i].exact > v[from + at].exact) {
        v[from + at].exact = v[i].exact;
      }
    }
    v.resize(end);
    return;
  }
  for (size_t i = from; i < v.size(); ++i) {
    bool merged = false;
    for (size_t j = from; j < end; ++j) {
      if (v[j].SameAs(v[i])) {
        if (v[i].exact > v[j].exact) v[j].exact = v[i].exact;
        merged = true;
        break;
      }
    }
    if (!merged) v[end++] = v[i];
  }
  v.resize(end);
}

}  // namespace tagmask
