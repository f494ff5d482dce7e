// Walking a token trie from one automaton state (docs/token-trie.md, docs/engine.md): the
// per-depth parser configurations, the cuts at absorbing states, the subtree memo shared across
// states, and the per-token walk that resolves uncertain tokens for one return state. Used by the
// mask builder only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pda_step.h"
#include "tagmask/automaton.h"
#include "tagmask/error.h"
#include "tagmask/mask_store.h"
#include "tagmask/token_trie.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

// Sorted, merged, disjoint half-open ranges of trie token positions.
struct Ranges {
  std::vector<std::pair<uint32_t, uint32_t>> r;
  uint32_t count = 0;
  // Positions come in trie order; a whole subtree may come before some of its own tokens (one
  // configuration cut there while others walk on), which are then in already.
  void Add(uint32_t a, uint32_t b) {
    if (!r.empty() && a < r.back().second) a = std::min(b, r.back().second);
    if (a >= b) return;
    count += b - a;
    if (!r.empty() && r.back().second == a) {
      r.back().second = b;
    } else {
      r.emplace_back(a, b);
    }
  }
  void Clear() {
    r.clear();
    count = 0;
  }
};

// Tokens accepted only when the count of the walk's start level lies in [lo, hi] (counted
// repetition) and its marks meet the conditions of Config (markClear, markNeed, markAny; all 0
// for most): trie positions [a, b).
struct CondSpan {
  uint32_t a, b, lo, hi;
  uint32_t markClear = 0, markNeed = 0, markAny = 0;
  bool HasMarks() const { return markClear != 0 || markNeed != 0 || markAny != 0; }
};

inline void AddCond(std::vector<CondSpan>* out, uint32_t a, uint32_t b, const Config& c) {
  if (a == b) return;
  if (!out->empty()) {
    CondSpan& last = out->back();
    if (last.b == a && last.lo == c.lo && last.hi == c.hi && last.markClear == c.markClear && last.markNeed == c.markNeed &&
        last.markAny == c.markAny) {
      last.b = b;
      return;
    }
  }
  out->push_back({a, b, c.lo, c.hi, c.markClear, c.markNeed, c.markAny});
}

// A counted cut kept whole (Walker::CountedCut): the tokens at trie nodes [from, end) of the
// plain trie, below a node on a character boundary with `base` characters, each accepted for the
// counts c0 in [lo, hi] that leave room for the characters it adds (k of them: c0 + shift + k <=
// full, or <= partial when its last character is cut off). Kept as one record instead of one span
// per token: a length-limited string's state cuts most of the vocabulary this way, and the spans
// (~90 k per state) are only needed while that state's regimes are built.
struct CountedCutSpan {
  uint32_t from, end, base, lo, hi, shift, full, partial;
  bool operator==(const CountedCutSpan& o) const {
    return from == o.from && end == o.end && base == o.base && lo == o.lo && hi == o.hi && shift == o.shift && full == o.full &&
           partial == o.partial;
  }
};

// The spans of a counted cut, one per run of trie positions with the same count range: emit(a,
// b, lo, hi) for the tokens at positions [a, b) accepted when the count lies in [lo, hi].
template <class Emit>
void ExpandCountedCut(const CountedCutSpan& cut, const uint32_t* tb, const uint32_t* chars, Emit&& emit) {
  uint32_t runA = 0, runB = 0, runLo = 0, runHi = 0;
  bool open = false;
  for (uint32_t j = cut.from; j < cut.end; ++j) {
    if (tb[j] == tb[j + 1]) continue;
    const uint32_t k = (chars[j] >> 2) - cut.base;
    uint32_t hi = cut.hi;
    if (k != 0) {  // k is 0 only for the cut's own node, which the walker records itself
      const uint64_t need = uint64_t{cut.shift} + k;
      const uint32_t c = (chars[j] & 3u) != 0 ? cut.partial : cut.full;
      if (need > c) continue;
      hi = static_cast<uint32_t>(std::min<uint64_t>(cut.hi, c - need));
    }
    if (cut.lo > hi) continue;
    if (open && runB == tb[j] && runLo == cut.lo && runHi == hi) {
      runB = tb[j + 1];
      continue;
    }
    if (open) emit(runA, runB, runLo, runHi);
    runA = tb[j];
    runB = tb[j + 1];
    runLo = cut.lo;
    runHi = hi;
    open = true;
  }
  if (open) emit(runA, runB, runLo, runHi);
}

// When a walk may stop descending: at an absorbing state (every plain character loops on it),
// every token below whose remaining bytes are plain for that state is accepted. In the plain trie
// that is every token; in the impure trie, `nodeMax[profile][node]` is the largest position
// after which some token below still has a byte that does not loop on states of that profile.
struct CutRule {
  const uint32_t* profileOf = nullptr;                 // per state; kNoProfile when not absorbing
  const std::vector<std::shared_ptr<const std::vector<uint16_t>>>* nodeMax = nullptr;  // null: the plain trie
  // Plain trie only: per state, how many bytes of plain characters surely keep it alive (see
  // PlainDepth in cut_tables.cpp; 0xFFFF for absorbing states), and per node the longest
  // token below. A string with a length limit is absorbing for every token that fits.
  const uint16_t* plainDepth = nullptr;
  const uint16_t* maxLength = nullptr;
  // Plain trie only: TokenTrie::CharsData(), for the cuts of counted loops whose count is not
  // known (Walker::CountedCut).
  const uint32_t* chars = nullptr;
  // Plain trie only: per state, L in 1..3 when it is inside a character of a state that plain
  // characters cannot kill: every continuation byte leads on, and after L of them the state is
  // one of those (MidCharLength in cut_tables.cpp); 0 otherwise. Every token below a node that
  // lacks exactly L bytes of its last character is then accepted: its bytes finish the character
  // and go on with plain characters.
  const uint8_t* midChar = nullptr;
  static constexpr uint32_t kNoProfile = UINT32_MAX;
  bool Cut(uint32_t s, uint32_t node, uint32_t depth) const {
    if (nodeMax == nullptr) {
      return static_cast<uint32_t>(plainDepth[s]) + depth >= maxLength[node] || (midChar[s] != 0 && (chars[node] & 3u) == midChar[s]);
    }
    const uint32_t p = profileOf[s];
    return p != kNoProfile && (*(*nodeMax)[p])[node] <= depth;
  }
};

// Frames of a mask-builder walk: frame 0 is the unknown bottom (whatever lies below the state
// the walk starts from); ending the rule there continues in each of the rule's return states,
// exactly when the rule has only one.
class LocalArena {
 public:
  LocalArena() { Clear(); }
  void Clear() {
    frames_.assign(1, Frame{0, 0, 0, 0, 0});
    // clear() of a hash map costs its bucket count even when empty, and most walks (every one
    // from a state without calls) push no frame.
    if (!index_.empty()) index_.clear();
  }
  uint32_t Push(uint32_t ret, uint32_t parent, const Config& caller) {
    const Frame key{ret, parent, caller.count, caller.marks, caller.markMode};
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    if (frames_.size() >= (1u << 22)) return kNoFrame;
    const uint32_t id = static_cast<uint32_t>(frames_.size());
    frames_.push_back(key);
    index_.emplace(key, id);
    return id;
  }
  bool IsBottom(uint32_t frame) const { return frame == 0; }
  uint32_t Ret(uint32_t frame) const { return frames_[frame].ret; }
  uint32_t Parent(uint32_t frame) const { return frames_[frame].parent; }
  void Restore(uint32_t frame, Config* c) const {
    c->count = frames_[frame].count;
    c->marks = frames_[frame].marks;
    c->markMode = frames_[frame].markMode;
  }
  template <class Fn>
  void Escape(const Automaton& a, const Config& c, Fn&& expand) {
    const AutomatonRule& rule = a.rules[a.ruleOf[c.state]];
    for (uint32_t r : rule.returnStates) {
      Config n = c;
      n.state = r;
      n.frame = 0;
      // The caller's counter and marks are not known here (counted repetition only; 0
      // otherwise, as the walks never read them then).
      n.count = a.HasCounters() ? kUnknownCount : 0;
      n.marks = 0;
      n.markMode = a.HasCounters() ? kMarksUnknown : kMarksKnown;
      n.exact = (c.exact && rule.exactEscape) ? 1 : 0;
      expand(n);
    }
  }

 private:
  struct Frame {
    uint32_t ret, parent, count, marks;
    uint8_t markMode;
    bool operator==(const Frame& o) const {
      return ret == o.ret && parent == o.parent && count == o.count && marks == o.marks && markMode == o.markMode;
    }
  };
  struct FrameHash {
    size_t operator()(const Frame& f) const {
      const uint64_t level = (static_cast<uint64_t>(f.marks) << 32 | f.count) ^ f.markMode;
      return static_cast<size_t>(((static_cast<uint64_t>(f.ret) << 32 | f.parent) ^ (level * 0x9E3779B97F4A7C15ull)) *
                                 0xBF58476D1CE4E5B9ull >> 16);
    }
  };
  std::vector<Frame> frames_;
  std::unordered_map<Frame, uint32_t, FrameHash> index_;
};

// Results of walking one depth-1 subtree from one configuration, kept for other states whose
// first byte leads to the same configuration (e.g. every partial match of an excluded string
// falls back to the same text state on most bytes).
class SubtreeMemo {
 public:
  struct Span {
    uint32_t a, b;
    uint8_t uncertain;
  };
  struct Stored {
    const Span* first;
    const Span* last;
    const Span* begin() const { return first; }
    const Span* end() const { return last; }
  };
  // The stored spans of the subtree of root byte `byte` walked from `state`, or null. The
  // pointers hold until the next Store.
  const Stored* Find(uint8_t byte, uint32_t state) {
    if (slots_.empty()) return nullptr;
    const uint64_t key = Key(byte, state);
    for (size_t i = Home(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].key == 0) return nullptr;
      if (slots_[i].key == key) {
        found_.first = pool_.data() + slots_[i].begin;
        found_.last = pool_.data() + slots_[i].end;
        return &found_;
      }
    }
  }
  void Store(uint8_t byte, uint32_t state, const std::vector<Span>& spans) {
    // An open-addressing index kept at most half full, spans in one pool: no allocation per
    // entry (an enum's trie stores one entry for most of its states).
    if (2 * (used_ + 1) > slots_.size()) Grow();
    const uint64_t key = Key(byte, state);
    size_t i = Home(key);
    while (slots_[i].key != 0 && slots_[i].key != key) i = (i + 1) & (slots_.size() - 1);
    if (slots_[i].key == 0) ++used_;
    slots_[i] = {key, static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(pool_.size() + spans.size())};
    pool_.insert(pool_.end(), spans.begin(), spans.end());
  }

 private:
  struct Slot {
    uint64_t key;  // 0: empty
    uint32_t begin, end;
  };
  static uint64_t Key(uint8_t byte, uint32_t state) { return ((static_cast<uint64_t>(state) << 8) | byte) + 1; }
  size_t Home(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & (slots_.size() - 1); }
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{0, 0, 0});
    for (const Slot& x : old) {
      if (x.key == 0) continue;
      size_t i = Home(x.key);
      while (slots_[i].key != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = x;
    }
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::vector<Span> pool_;
  Stored found_{nullptr, nullptr};
};

// The mask cache's work budget (docs/engine.md, "Limits"): trie nodes visited plus parser
// configurations made, shared by the threads of one compilation. A walker reports its work in
// batches and the compilation stops with a GrammarError once the total passes the limit, so a
// pathologically ambiguous grammar (parses that multiply with every byte of a token) is refused
// in seconds whatever the machine.
class WorkBudget {
 public:
  explicit WorkBudget(uint64_t limit) : limit_(limit) {}
  void Spend(uint64_t units) {
    if (used_.fetch_add(units, std::memory_order_relaxed) + units > limit_) {
      throw Error(ErrorCode::InvalidGrammar, "the grammar is too ambiguous to compile: building its token masks took more than " +
                                                 std::to_string(limit_) + " steps (parses that multiply with every byte of a token); "
                                                 "make the rules unambiguous");
    }
  }
  uint64_t Used() const { return used_.load(std::memory_order_relaxed); }

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> used_{0};
};

// Walks a trie from one state. Most of the time the bytes so far lead to a single configuration
// that can only take byte transitions (no call, no return, no token counting); then a node costs
// one table lookup (SimpleChildren). Elsewhere the walk keeps the set of configurations per depth
// (GeneralChildren): a token is accepted when some configuration reached without an inexact
// escape survives it, uncertain when only inexact ones do, rejected when none does.
class Walker {
 public:
  Walker(const Automaton& a, uint32_t maxDepth)
      : a_(a), stepper_(a, arena_), states_(maxDepth + 3, 0), ends_(maxDepth + 3, 0), full_(maxDepth + 3, 0), counting_(a.HasCounters()) {
    plain_.resize(a.StateCount());
    for (uint32_t s = 0; s < a.StateCount(); ++s) {
      const uint8_t f = a.flags[s];
      plain_[s] = !(f & (kHasCalls | kLimitedText)) && (!(f & kFinal) || a.rules[a.ruleOf[s]].returnStates.empty());
    }
    if (counting_) {
      cfgs_.resize(maxDepth + 3);
      cutCap_.assign(a.StateCount(), CutCap{});
      for (uint32_t st = 1; st < a.StateCount(); ++st) cutCap_[st] = CutCapacity(st);
      CountReach();
    }
  }

  /// Walks the trie from `start`. Tokens accepted only for some counts of the start level (the
  /// grammar has counted repetition) go to `conditional`.
  /// Counted cuts of the plain trie go whole to `countedCuts` (ExpandCountedCut gives their spans).
  uint64_t Walk(const TokenTrie& trie, const CutRule& cut, uint32_t start, Ranges* accepted, Ranges* uncertain, SubtreeMemo* memo,
                std::vector<CondSpan>* conditional, std::vector<CountedCutSpan>* countedCuts) {
    trie_ = &trie;
    cut_ = &cut;
    accepted_ = accepted;
    uncertain_ = uncertain;
    conditional_ = conditional;
    countedCuts_ = countedCuts;
    visited_ = 0;
    arena_.Clear();
    buf_.clear();
    closure_.clear();
    const uint32_t n = trie.NodeCount();
    const uint32_t* tb = trie.TokenBeginData();
    if (!plain_[start] || counting_) {
      buf_.push_back(StartConfig(start));
      GeneralChildren(0, 1, 1, n, 1);
      Spend(visited_);
      return visited_;
    }
    // From a plain start only the bytes with a live transition matter; they are found once per
    // state and their subtrees reached through the root table.
    if (liveFor_ != start) {
      liveFor_ = start;
      live_.clear();
      const int single = a_.singleByte[start];  // most states of a literal or an enum's trie
      if (single >= 0) {
        live_.push_back(static_cast<uint8_t>(single));
      } else if (single == -2) {
        for (int b = 0; b < 256; ++b) {
          if (a_.Next(start, static_cast<uint8_t>(b)) != kDeadState) live_.push_back(static_cast<uint8_t>(b));
        }
      }
    }
    for (uint8_t b : live_) {
      const uint32_t c = trie.RootChild(b);
      if (c == 0) continue;
      ++visited_;
      const uint32_t end = trie.SubtreeEnd(c);
      const uint32_t t = a_.Next(start, b);
      if (cut.Cut(t, c, 1)) {
        accepted->Add(tb[c], tb[end]);
        continue;
      }
      if (const auto* spans = memo->Find(b, t)) {
        for (const auto& sp : *spans) (sp.uncertain ? uncertain : accepted)->Add(sp.a, sp.b);
        continue;
      }
      // Walk straight into the results; a subtree that took more than a few visits is kept for
      // other states that reach (c, t). Its ranges are the ones added since, clipped to the
      // subtree: the subtrees of earlier root bytes lie before tb[c], and the first range added
      // here may only have joined the one that ends there. (Most walks of a literal or an enum
      // take two or three visits and are never kept: no scratch ranges, copies or sorting.)
      const size_t accFrom = accepted->r.empty() ? 0 : accepted->r.size() - 1;
      const size_t uncFrom = uncertain->r.empty() ? 0 : uncertain->r.size() - 1;
      const uint64_t before = visited_;
      accepted->Add(tb[c], tb[c + 1]);
      SimpleChildren(c, 1, t, true);
      if (visited_ - before > 16) {
        std::vector<SubtreeMemo::Span>& spans = spans_;
        spans.clear();
        const auto keep = [&](const Ranges& from, size_t at, uint8_t isUncertain) {
          for (; at < from.r.size(); ++at) {
            const uint32_t x = std::max(from.r[at].first, tb[c]);
            if (x < from.r[at].second) spans.push_back({x, from.r[at].second, isUncertain});
          }
        };
        keep(*accepted, accFrom, 0);
        keep(*uncertain, uncFrom, 1);
        std::sort(spans.begin(), spans.end(), [](const SubtreeMemo::Span& p, const SubtreeMemo::Span& q) { return p.a < q.a; });
        memo->Store(b, t, spans);
      }
    }
    Spend(visited_);
    return visited_;
  }

  // Classifies the tokens `ids` (sorted by bytes) from state `start` with one known frame below
  // (returning to `ret`) and the unknown bottom under it: accepted when an exact configuration
  // survives, residual when only inexact ones do. Common prefixes are stepped once.
  //
  // With counted repetition, when the state's own count does not matter, the frame's saved count
  // is followed symbolically: tokens that then hold only for some of its values go to `counted`.
  void WalkTokens(const TokenizerInfo& tok, uint32_t start, uint32_t ret, const std::vector<uint32_t>& ids,
                  std::vector<uint32_t>* accepted, std::vector<uint32_t>* residual, std::vector<CountedToken>* counted,
                  std::vector<ResidueToken>* residues) {
    arena_.Clear();
    buf_.clear();
    Config c = StartConfig(start);
    // The start level's count is r when it is a remainder's level (no counted repetition shares
    // it): r is followed symbolically, so that tokens whose only condition is a liveness check
    // of it are stored with that check (fill-time arithmetic, not a walk of the token). Nothing
    // else applies remainder operations to this level, so other counted levels are unaffected.
    if (c.count == kSymbolicCount && residues != nullptr) c.resT = kResArmed;
    const uint32_t frameCount = !counting_ ? 0 : c.count == kSymbolicCount ? kUnknownCount : kSymbolicCount;
    Config caller;  // the frame's level: its count followed symbolically when it can be, its marks unknown
    caller.count = frameCount;
    caller.markMode = counting_ ? kMarksUnknown : kMarksKnown;
    c.frame = arena_.Push(ret, 0, caller);
    buf_.push_back(c);
    levelEnd_.assign(states_.size(), 0);
    levelEnd_[0] = 1;
    uint32_t valid = 0;          // levels 1..valid hold the previous token's prefix
    uint32_t dead = UINT32_MAX;  // the previous token's prefix of this length is dead
    const uint8_t* prev = nullptr;
    uint32_t prevLen = 0;
    for (uint32_t id : ids) {
      const uint8_t* p = tok.TokenBytes(id);
      const uint32_t len = tok.TokenLength(id);
      uint32_t lcp = 0;
      const uint32_t limit = std::min(len, prevLen);
      while (lcp < limit && p[lcp] == prev[lcp]) ++lcp;
      prev = p;
      prevLen = len;
      if (dead != UINT32_MAX && lcp >= dead) {
        valid = std::min(valid, lcp);
        continue;  // shares a dead prefix
      }
      dead = UINT32_MAX;
      uint32_t d = std::min(valid, lcp);
      bool alive = true;
      for (; d < len; ++d) {
        const size_t from = d == 0 ? 0 : levelEnd_[d - 1];
        buf_.resize(levelEnd_[d]);
        if (!Step(from, levelEnd_[d], p[d])) {
          dead = d + 1;
          alive = false;
          break;
        }
        levelEnd_[d + 1] = static_cast<uint32_t>(buf_.size());
      }
      valid = alive ? len : dead - 1;
      if (!alive) continue;
      // Accepted when it holds whatever lies below and whatever the counts are; for some counts
      // of the frame when only conditional paths survive, all of them exact.
      bool exact = false, inexact = false, onResidue = false, onCount = false;
      for (size_t k = levelEnd_[len - 1]; k < levelEnd_[len]; ++k) {
        const Config& x = buf_[k];
        exact = exact || (x.exact && x.Unconditional());
        // Conditions on the start level's marks: the real stack decides.
        inexact = inexact || !x.exact || !x.MarkUnconditional();
        onResidue = onResidue || x.resT < kResFree;
        onCount = onCount || (x.CountTerms() && (x.lo != 0 || x.hi != kNoCountLimit));
      }
      if (exact) {
        accepted->push_back(id);
      } else if (onResidue && !inexact && !onCount) {
        for (size_t k = levelEnd_[len - 1]; k < levelEnd_[len]; ++k) {
          // alive(y, t) = some t' <= t with (-y·10^t') mod m < 10^t': one entry per t' (the
          // budgets are small: 10^t >= m makes the check vacuous, and the walk drops it).
          const Config& x = buf_[k];
          const uint32_t m = x.shift;
          uint64_t mul = x.lo, add = x.hi, p = 1;
          for (uint32_t t = 0; t <= x.resT && p < m; ++t, p *= 10) {
            residues->push_back({m, t, static_cast<uint32_t>(mul), static_cast<uint32_t>(add), id});
            mul = mul * 10 % m;
            add = add * 10 % m;
          }
        }
      } else if (inexact || onResidue || frameCount != kSymbolicCount) {
        residual->push_back(id);
      } else {
        for (size_t k = levelEnd_[len - 1]; k < levelEnd_[len]; ++k) counted->push_back({id, buf_[k].lo, buf_[k].hi});
      }
    }
  }

 private:
  // The configuration a walk starts from: the state, with its level's count symbolic when some
  // path from it reads the count (counted repetition), and not tracked when none does.
  Config StartConfig(uint32_t start) const {
    Config c;
    c.state = start;
    if (counting_ && a_.rules[a_.ruleOf[start]].counted) {
      c.count = readsCount_[start] ? kSymbolicCount : kUnknownCount;
      c.markMode = readsMarks_[start] ? kMarksSymbolic : kMarksUnknown;
    }
    return c;
  }

  // Per state, with counted repetition: whether a path from it reads its level's count (meets
  // an operation with a condition before any reset: a transition, a call, the end of the rule,
  // or a return state after a call, where the saved count comes back), the same for its marks,
  // and whether a byte path from it meets an operation that can fail (then a cut must know the
  // count).
  void CountReach() {
    const uint32_t n = a_.StateCount();
    failsAhead_.assign(n, 0);
    failsAheadPlain_.assign(n, 0);
    // Which byte classes hold a byte of a plain-trie token (plain ASCII, or any byte of a
    // multi-byte character): the only bytes a cut in the plain trie lets through.
    std::vector<uint8_t> plainClass(a_.classCount, 0);
    for (int b = 0; b < 0x100; ++b) {
      if (b >= 0x80 ? b <= 0xF4 : IsPlainAscii(static_cast<uint8_t>(b))) plainClass[a_.byteClass[b]] = 1;
    }
    std::vector<std::vector<uint32_t>> plainPreds(n);
    std::vector<uint32_t> plainQueue;
    readsCount_ = ReadsLevel([](const CountOp& o) { return o.CountConditional(); }, [](const CountOp& o) { return o.reset != 0; });
    readsMarks_ = ReadsLevel([](const CountOp& o) { return o.MarkConditional(); }, [](const CountOp& o) { return o.markReset != 0; });
    std::vector<std::vector<std::pair<uint32_t, uint8_t>>> preds(n);  // (source, 2 for a call)
    std::vector<uint32_t> failQueue;
    const auto conditional = [&](uint32_t op) { return op != kNoCountOp && a_.countOps[op].Conditional(); };
    for (uint32_t st = 1; st < n; ++st) {
      if (!a_.rules[a_.ruleOf[st]].counted) continue;
      bool fails = false;
      for (uint32_t c = 0; c < a_.classCount; ++c) {
        const uint32_t t = a_.NextByClass(st, c);
        if (t == kDeadState) continue;
        const uint32_t op = a_.opRow.empty() || a_.opRow[st] == Automaton::kNoOpRow ? kNoCountOp : a_.transOps[a_.opRow[st] + c];
        // Entering t also checks its liveness (counted nodes).
        const bool here = conditional(op) || conditional(a_.LiveOp(t));
        fails = fails || here;
        preds[t].push_back({st, 0});
        if (!plainClass[c]) continue;
        if (here && !failsAheadPlain_[st]) {
          failsAheadPlain_[st] = 1;
          plainQueue.push_back(st);
        }
        plainPreds[t].push_back(st);
      }
      for (uint32_t e = a_.callBegin[st]; e < a_.callBegin[st + 1]; ++e) preds[a_.calls[e].returnState].push_back({st, 2});
      if (fails) {
        failsAhead_[st] = 1;
        failQueue.push_back(st);
      }
    }
    while (!plainQueue.empty()) {
      const uint32_t t = plainQueue.back();
      plainQueue.pop_back();
      for (uint32_t src : plainPreds[t]) {
        if (failsAheadPlain_[src]) continue;
        failsAheadPlain_[src] = 1;
        plainQueue.push_back(src);
      }
    }
    while (!failQueue.empty()) {
      const uint32_t t = failQueue.back();
      failQueue.pop_back();
      for (const auto& [src, how] : preds[t]) {
        if ((how & 2) || failsAhead_[src]) continue;  // byte paths only
        failsAhead_[src] = 1;
        failQueue.push_back(src);
      }
    }
  }
  // Per state: whether some path from it meets an operation whose `reads` part has a condition
  // before one whose `resets` part starts the level's value over (see CountReach).
  template <class Reads, class Resets>
  std::vector<uint8_t> ReadsLevel(Reads reads, Resets resets) const {
    const uint32_t n = a_.StateCount();
    std::vector<uint8_t> out(n, 0);
    std::vector<std::vector<std::pair<uint32_t, uint8_t>>> preds(n);  // (source, the op resets)
    std::vector<uint32_t> queue;
    const auto cond = [&](uint32_t op) { return op != kNoCountOp && reads(a_.countOps[op]); };
    const auto reset = [&](uint32_t op) { return static_cast<uint8_t>(op != kNoCountOp && resets(a_.countOps[op])); };
    for (uint32_t st = 1; st < n; ++st) {
      if (!a_.rules[a_.ruleOf[st]].counted) continue;
      bool r = cond(a_.FinalOp(st));
      for (uint32_t c = 0; c < a_.classCount; ++c) {
        const uint32_t t = a_.NextByClass(st, c);
        if (t == kDeadState) continue;
        const uint32_t op = a_.opRow.empty() || a_.opRow[st] == Automaton::kNoOpRow ? kNoCountOp : a_.transOps[a_.opRow[st] + c];
        r = r || cond(op) || cond(a_.LiveOp(t));
        preds[t].push_back({st, reset(op)});
      }
      for (uint32_t e = a_.callBegin[st]; e < a_.callBegin[st + 1]; ++e) {
        r = r || cond(a_.calls[e].op);
        preds[a_.calls[e].returnState].push_back({st, reset(a_.calls[e].op)});
      }
      if (r) {
        out[st] = 1;
        queue.push_back(st);
      }
    }
    while (!queue.empty()) {
      const uint32_t t = queue.back();
      queue.pop_back();
      for (const auto& [src, resetsHere] : preds[t]) {
        if (resetsHere || out[src]) continue;
        out[src] = 1;
        queue.push_back(src);
      }
    }
    return out;
  }
  bool Simple(const Config& c) const {
    return c.frame == 0 && (counting_ || c.count == 0) && c.consumed == 0 && plain_[c.state];
  }
  // Whether the bytes of a token below a cut may meet an operation that can fail. In the plain
  // trie only paths on plain bytes count: a string position of a rule that also counts (a short
  // unrolled string beside a counted one) reaches the counted string's checks only through its
  // closing quote, which no plain token holds, so its plain-depth cut stays valid.
  bool FailsAhead(uint32_t state) const { return (cut_->nodeMax == nullptr ? failsAheadPlain_ : failsAhead_)[state] != 0; }
  // Whether every token below trie node `node` (at `depth`) may be accepted with the conditions
  // met so far: no counter operation can come in the subtree (the state's rule has no counted
  // repetition), or the state loops on plain characters by one counted operation that the count,
  // known here, passes for every character a token below can still hold.
  bool MayCut(const Config& c, uint32_t node, uint32_t depth) const {
    if (!counting_ || !FailsAhead(c.state)) return true;
    const uint32_t cap = cutCap_[c.state].full;
    if (cap == 0) return false;
    // Plain characters that do nothing to the level: nothing below can fail, whatever its count.
    if (cap == kNoCountLimit) return true;
    if (c.count == kSymbolicCount || c.count == kUnknownCount) return false;
    const uint32_t remaining = trie_->MaxLength(node) - depth;
    return static_cast<uint64_t>(c.count) + remaining <= cap;
  }
  // How far plain characters may take the count of an absorbing state of a counted rule: a token
  // that adds k >= 1 characters to a count c there passes every check on the way iff c + k <=
  // full (it ends on a character boundary) or c + k <= partial (its last character is cut off,
  // so the check of the state it ends in may be missing). Both 0 when cuts are never safe, and
  // kNoCountLimit when plain characters do nothing to the count that could fail.
  struct CutCap {
    uint32_t full = 0, partial = 0;
  };
  // Each plain character's first byte must carry one operation that requires count <= hi and
  // adds one (hi + 1 bounds c + k), the state's liveness (count_liveness.cpp) checks count <=
  // live.hi after each character, and the bytes inside a multi-byte character do nothing to the
  // count while their states (byte transitions only) all check the loop's liveness or all none.
  // Lower bounds hold on: the count only grows. Conditions on marks are only re-checked with the
  // same marks (no plain byte changes them), so they hold on too.
  CutCap CutCapacity(uint32_t st) const {
    if (!a_.Is(st, kAbsorbing) || !a_.rules[a_.ruleOf[st]].counted) return {};
    const uint32_t live = a_.Is(st, kCounted) ? a_.LiveOp(st) : kNoCountOp;
    uint32_t op = UINT32_MAX;
    int midChecks = -1;  // whether states inside a multi-byte character check `live` (-1: none met)
    std::vector<uint32_t> level, next, vetted;  // vetted: states inside characters checked already
    for (int b = 0; b < 0x100; ++b) {
      const uint8_t byte = static_cast<uint8_t>(b);
      const bool plainStart = b < 0x80 ? IsPlainAscii(byte) : (b >= 0xC2 && b <= 0xF4);
      if (!plainStart) continue;
      const uint32_t o = a_.TransOp(st, byte);
      if (op == UINT32_MAX) op = o;
      if (o != op) return {};
      if (b < 0x80) continue;
      // The states inside the character, up to its end (back in st).
      level.assign(1, a_.Next(st, byte));
      for (int k = 0; k < 3 && !level.empty(); ++k) {
        next.clear();
        for (uint32_t m : level) {
          if (m == st || m == kDeadState || std::find(vetted.begin(), vetted.end(), m) != vetted.end()) continue;
          vetted.push_back(m);
          if (!plain_[m]) return {};
          const bool counted = a_.Is(m, kCounted);
          const int checks = counted && a_.LiveOp(m) != kNoCountOp ? 1 : 0;
          if (checks == 1 && a_.LiveOp(m) != live) return {};
          if (midChecks >= 0 && checks != midChecks) return {};
          midChecks = checks;
          for (int c = 0x80; c < 0xC0; ++c) {
            const uint32_t t = a_.Next(m, static_cast<uint8_t>(c));
            if (t == kDeadState) continue;
            if (counted && a_.TransOp(m, static_cast<uint8_t>(c)) != kNoCountOp) return {};
            if (t != st && std::find(next.begin(), next.end(), t) == next.end()) next.push_back(t);
          }
        }
        level.swap(next);
      }
    }
    if (op == UINT32_MAX || op == kNoCountOp) return {kNoCountLimit, kNoCountLimit};
    const CountOp& o = a_.countOps[op];
    if (o.HasMarks() || o.HasResidue() || o.reset || o.lo != 0) return {};
    if (o.add == 0 && o.hi == kNoCountLimit) return {kNoCountLimit, kNoCountLimit};
    if (o.add != 1) return {};
    const uint64_t opCap = o.hi == kNoCountLimit ? kNoCountLimit : uint64_t{o.hi} + 1;
    const uint64_t liveHi = live == kNoCountOp || a_.countOps[live].hi == kNoCountLimit ? kNoCountLimit : a_.countOps[live].hi;
    CutCap cap;
    cap.full = static_cast<uint32_t>(std::min(opCap, liveHi));
    cap.partial = midChecks == 1 ? cap.full : static_cast<uint32_t>(std::min(opCap, liveHi == kNoCountLimit ? liveHi : liveHi + 1));
    return cap;
  }
  // Records the tokens of trie nodes [from, SubtreeEnd(node)) when the exact configuration x at
  // `node` (at `depth`) is in an absorbing state of a counted loop with its level's count
  // symbolic (c0 + x.shift) and no token below can leave the loop: each token then passes iff
  // its characters after `depth` fit under the count (CutCapacity), so it is accepted for the c0
  // in x's [lo, hi] that leave room for them — no walk needed. The node's own tokens (no
  // character added) are recorded here; those below go whole into one CountedCutSpan, spelled
  // out per token only when the state's regimes are built. False when that does not apply.
  bool CountedCut(const Config& x, uint32_t node, uint32_t depth, uint32_t from) {
    // Only the loop may take the bytes below (plain_: no call, no end of the rule on the way).
    if (cut_->chars == nullptr || x.count != kSymbolicCount || !x.exact || !x.MarkUnconditional() || !plain_[x.state]) {
      return false;
    }
    const CutCap cap = cutCap_[x.state];
    const uint32_t* chars = cut_->chars;
    if (cap.full == 0 || cap.full == kNoCountLimit || (chars[node] & 3u) != 0 || !cut_->Cut(x.state, node, depth)) return false;
    const uint32_t* tb = trie_->TokenBeginData();
    const uint32_t end = trie_->SubtreeEnd(node);
    Spend(end - from);
    if (from == node) {
      if (tb[node] != tb[node + 1]) Own(node, x);
      ++from;
    }
    // Every token below adds a character: a plain-trie token holds no stray continuation byte.
    if (from < end && x.lo <= x.hi) countedCuts_->push_back({from, end, chars[node] >> 2, x.lo, x.hi, x.shift, cap.full, cap.partial});
    return true;
  }
  // Whether the inexact configuration x at `node` (at `depth`) leaves every token below alive:
  // they are all uncertain then (the real stack decides), as walking them would find.
  bool InexactCut(const Config& x, uint32_t node, uint32_t depth) const {
    if (x.exact || (a_.flags[x.state] & kLimitedText) || !cut_->Cut(x.state, node, depth)) return false;
    if (!counting_ || !FailsAhead(x.state)) return true;
    // An unknown count fails no operation (it makes the path inexact) while the bytes below are
    // plain characters, whose operations CutCapacity vetted; a known one must fit.
    if (x.count == kUnknownCount) return cut_->chars != nullptr && cutCap_[x.state].full != 0;
    return x.count != kSymbolicCount && MayCut(x, node, depth);
  }
  // Records the tokens ending at trie node i, reached with configuration c.
  void Own(uint32_t i, const Config& c) {
    const uint32_t* tb = trie_->TokenBeginData();
    if (!c.exact) {
      uncertain_->Add(tb[i], tb[i + 1]);
    } else if (c.Unconditional()) {
      accepted_->Add(tb[i], tb[i + 1]);
    } else {
      AddCond(conditional_, tb[i], tb[i + 1], c);
    }
  }

  // SimpleChildren with counted repetition: the configuration per depth carries the count and
  // the conditions met so far.
  void CountedChildren(uint32_t c, uint32_t depth, const Config& cfg) {
    const uint32_t* le = trie_->LabelEndData();
    const uint32_t* tb = trie_->TokenBeginData();
    const uint32_t base = depth;
    cfgs_[depth] = cfg;
    ends_[depth] = le[c] & 0xFFFFFFu;
    for (uint32_t i = c + 1; i < ends_[base];) {
      while (i >= ends_[depth]) --depth;
      const Config& p = cfgs_[depth];
      if (!plain_[p.state]) {
        const size_t lo = buf_.size();
        buf_.push_back(p);
        GeneralChildren(lo, lo + 1, i, ends_[depth], depth + 1);
        buf_.resize(lo);
        i = ends_[depth];
        continue;
      }
      ++visited_;
      const uint32_t word = le[i];
      const uint32_t end = word & 0xFFFFFFu;
      const uint8_t byte = static_cast<uint8_t>(word >> 24);
      Config n = p;
      n.state = a_.Next(p.state, byte);
      if (n.state == kDeadState || ((a_.flags[p.state] & kCounted) && !ApplyCountOp(a_, a_.TransOp(p.state, byte), &n)) ||
          ((a_.flags[n.state] & kCounted) && !ApplyCountOp(a_, a_.LiveOp(n.state), &n))) {
        i = end;
        continue;
      }
      if (n.exact && cut_->Cut(n.state, i, depth + 1) && MayCut(n, i, depth + 1)) {
        if (n.Unconditional()) {
          accepted_->Add(tb[i], tb[end]);
        } else {
          AddCond(conditional_, tb[i], tb[end], n);
        }
        i = end;
        continue;
      }
      if (CountedCut(n, i, depth + 1, i)) {
        i = end;
        continue;
      }
      if (InexactCut(n, i, depth + 1)) {
        uncertain_->Add(tb[i], tb[end]);
        i = end;
        continue;
      }
      Own(i, n);
      ++depth;
      cfgs_[depth] = n;
      ends_[depth] = end;
      ++i;
    }
  }

  // The subtree below node c (its own tokens are done), the bytes up to c leading to the single
  // plain configuration `state` (exact or not) at depth `depth`.
  void SimpleChildren(uint32_t c, uint32_t depth, uint32_t state, bool exact) {
    const uint32_t* le = trie_->LabelEndData();
    const uint32_t* tb = trie_->TokenBeginData();
    Ranges* own = exact ? accepted_ : uncertain_;
    const uint32_t base = depth;
    states_[depth] = state;
    ends_[depth] = full_[depth] = le[c] & 0xFFFFFFu;
    uint32_t i = c + 1;
    Narrow(c, depth, &i);
    for (;;) {
      // Done with the children of the node at `depth`: on with its next sibling (its subtree's
      // end, which lies past ends_[depth] where Narrow left out the trailing children).
      while (depth > base && i >= ends_[depth]) i = full_[depth--];
      if (i >= ends_[base]) break;
      const uint32_t p = states_[depth];
      if (!plain_[p]) {
        // The configuration here can call or return: walk this node's siblings (all children of
        // the node at `depth`) with configuration sets.
        const size_t lo = buf_.size();
        Config cfg;
        cfg.state = p;
        cfg.exact = exact ? 1 : 0;
        buf_.push_back(cfg);
        GeneralChildren(lo, lo + 1, i, ends_[depth], depth + 1);
        buf_.resize(lo);
        i = ends_[depth];
        continue;
      }
      ++visited_;
      const uint32_t word = le[i];
      const uint32_t end = word & 0xFFFFFFu;
      const uint32_t t = a_.Next(p, static_cast<uint8_t>(word >> 24));
      if (t == kDeadState) {
        i = end;
        continue;
      }
      if (exact && cut_->Cut(t, i, depth + 1)) {
        accepted_->Add(tb[i], tb[end]);
        i = end;
        continue;
      }
      own->Add(tb[i], tb[i + 1]);
      ++depth;
      states_[depth] = t;
      ends_[depth] = full_[depth] = end;
      ++i;
      Narrow(i - 1, depth, &i);
    }
  }

  // Node `node` at `depth` is reached in the plain state states_[depth] and its children are to
  // be walked from *i (its first child). With one live byte (most states of a literal or an
  // enum's value trie) only the child with that label can be live, and with none no child is:
  // the others would each cost a visit and a table lookup to find dead (35 visits per state of a
  // 10,000-value enum, against ~5 along its one live path). Narrows the range to that child.
  void Narrow(uint32_t node, uint32_t depth, uint32_t* i) {
    if (*i >= ends_[depth] || !plain_[states_[depth]]) return;  // calls and returns need every child
    const int single = a_.singleByte[states_[depth]];
    if (single == -2) return;
    const uint32_t x = single < 0 ? 0 : trie_->Child(node, static_cast<uint8_t>(single));
    if (x == 0) {
      *i = ends_[depth];
    } else {
      *i = x;
      ends_[depth] = trie_->SubtreeEnd(x);
    }
  }

  // Nodes [first, end), siblings at depth `depth`, below a node the bytes lead to with the
  // configurations buf_[lo, hi).
  void GeneralChildren(size_t lo, size_t hi, uint32_t first, uint32_t end, uint32_t depth) {
    const uint32_t* tb = trie_->TokenBeginData();
    // The configurations' calls and returns are the same whatever the child's byte: followed
    // once here (PdaStepper::CloseMore) instead of once per child, when Step would follow them.
    const size_t closeBegin = closure_.size();
    const bool closed = first < end && !AllSimple(lo, hi);
    if (closed) {
      stepper_.ClearVisited();
      for (size_t k = lo; k < hi; ++k) {
        const Config parent = buf_[k];  // copy: the closure may grow
        stepper_.CloseMore(parent, &closure_);
      }
    }
    const size_t closeEnd = closure_.size();
    for (uint32_t c = first; c < end; c = trie_->SubtreeEnd(c)) {
      ++visited_;
      buf_.resize(hi);
      if (!(closed ? StepClosure(closeBegin, closeEnd, hi, trie_->Label(c)) : Step(lo, hi, trie_->Label(c)))) continue;
      size_t top = buf_.size();
      bool exact = false, canCut = false, inexact = false;
      for (size_t k = hi; k < top; ++k) {
        const Config& x = buf_[k];
        if (!x.exact) {
          inexact = true;
          continue;
        }
        if (!x.Unconditional()) continue;
        exact = true;
        if (cut_->Cut(x.state, c, depth) && MayCut(x, c, depth) &&
            (!(a_.flags[x.state] & kLimitedText) || x.count < a_.rules[a_.ruleOf[x.state]].maxTokens)) {
          canCut = true;
        }
      }
      if (canCut) {
        accepted_->Add(tb[c], tb[trie_->SubtreeEnd(c)]);
        continue;
      }
      if (exact) {
        accepted_->Add(tb[c], tb[c + 1]);
      } else if (inexact) {
        // The real stack decides (and also checks the counts, if some exact path has conditions).
        uncertain_->Add(tb[c], tb[c + 1]);
      } else {
        // Accepted for the counts some configuration allows (counted repetition).
        for (size_t k = hi; k < top; ++k) AddCond(conditional_, tb[c], tb[c + 1], buf_[k]);
      }
      if (counting_) {
        top = CutBelow(hi, top, c, depth);
        if (top == hi) continue;
      }
      if (top - hi == 1 && Simple(buf_[hi])) {
        const Config only = buf_[hi];
        if (counting_) {
          CountedChildren(c, depth, only);
        } else {
          SimpleChildren(c, depth, only.state, only.exact != 0);
        }
      } else {
        GeneralChildren(hi, top, c + 1, trie_->SubtreeEnd(c), depth + 1);
      }
    }
    buf_.resize(hi);
    closure_.resize(closeBegin);
  }

  // Counted repetition: records the tokens below node c (at `depth`, its own tokens done) for each
  // configuration of buf_[hi, top) whose part of them is known without walking (a cut at an
  // absorbing state), drops those configurations, and returns the new end of the set. The other
  // configurations walk on; a token is accepted for the union of what every path allows.
  size_t CutBelow(size_t hi, size_t top, uint32_t c, uint32_t depth) {
    const uint32_t* tb = trie_->TokenBeginData();
    const uint32_t below = c + 1, end = trie_->SubtreeEnd(c);
    if (below == end) return top;
    size_t keep = hi;
    for (size_t k = hi; k < top; ++k) {
      const Config& x = buf_[k];
      bool done = false;
      if (x.exact && !(a_.flags[x.state] & kLimitedText) && cut_->Cut(x.state, c, depth) && MayCut(x, c, depth)) {
        AddCond(conditional_, tb[below], tb[end], x);  // x is conditional here: an unconditional cut took the whole subtree
        done = true;
      } else if (CountedCut(x, c, depth, below)) {
        done = true;
      } else if (InexactCut(x, c, depth)) {
        uncertain_->Add(tb[below], tb[end]);
        done = true;
      }
      if (done) continue;
      if (keep != k) buf_[keep] = buf_[k];
      ++keep;
    }
    buf_.resize(keep);
    return keep;
  }

  // Whether every configuration of buf_[from, to) only takes byte transitions (Step's fast path).
  bool AllSimple(size_t from, size_t to) const {
    bool allSimple = !counting_;
    for (size_t k = from; k < to && allSimple; ++k) allSimple = Simple(buf_[k]);
    return allSimple;
  }

  // Appends to buf_ (of size `to`) what the closure closure_[from, end) reaches by `byte`: what
  // Step would append for the configurations the closure was made from; false if none.
  bool StepClosure(size_t from, size_t end, size_t to, uint8_t byte) {
    for (size_t k = from; k < end; ++k) stepper_.StepClosed(closure_[k], byte, &buf_);
    return Settle(to);
  }

  // Appends to buf_ the configurations buf_[from, to) reach by `byte`; false if none.
  bool Step(size_t from, size_t to, uint8_t byte) {
    if (AllSimple(from, to)) {
      // Only byte transitions: look them up, merging configurations that meet.
      for (size_t k = from; k < to; ++k) {
        const uint32_t t = a_.Next(buf_[k].state, byte);
        if (t == kDeadState) continue;
        bool merged = false;
        for (size_t j = to; j < buf_.size(); ++j) {
          if (buf_[j].state == t) {
            buf_[j].exact |= buf_[k].exact;
            merged = true;
            break;
          }
        }
        if (merged) continue;
        Config next = buf_[k];
        next.state = t;
        buf_.push_back(next);
      }
      return buf_.size() > to;
    }
    stepper_.ClearVisited();
    for (size_t k = from; k < to; ++k) {
      const Config parent = buf_[k];  // copy: the buffer grows
      stepper_.StepMore(parent, byte, &buf_);
    }
    return Settle(to);
  }

  // The work count, deduplication and limit of a step that appended to buf_ from `to` on.
  bool Settle(size_t to) {
    Spend(buf_.size() - to);
    DedupeConfigs(&buf_, to, &table_);
    if (buf_.size() - to > kMaxConfigs) {
      throw Error(ErrorCode::InvalidGrammar, "the grammar is too ambiguous to compile: one token prefix has more than " +
                                                 std::to_string(kMaxConfigs) + " parses (docs/engine.md, \"Limits\"); make the rules unambiguous");
    }
    return buf_.size() > to;
  }

  // Counts work, reporting it to the shared budget in batches.
  void Spend(uint64_t units) {
    pending_ += units;
    if (pending_ >= kBatch) Flush();
  }

 public:
  void SetBudget(WorkBudget* budget) { budget_ = budget; }
  /// Counts work done elsewhere for this walk (a walk kept per vocabulary, rule_walks.h).
  void Charge(uint64_t units) { Spend(units); }
  /// Reports the work not reported yet (at the end of a batch of walks).
  void Flush() {
    if (budget_ != nullptr && pending_ != 0) budget_->Spend(pending_);
    pending_ = 0;
  }

 private:
  static constexpr uint64_t kBatch = 1u << 16;
  // Parses of one token prefix: ambiguity that multiplies with every byte reaches it within a
  // few bytes; real grammars stay far below (a few per level of nesting).
  static constexpr size_t kMaxConfigs = size_t{1} << 16;
  WorkBudget* budget_ = nullptr;
  uint64_t pending_ = 0;
  const Automaton& a_;
  LocalArena arena_;
  PdaStepper<LocalArena> stepper_;
  std::vector<uint8_t> plain_;
  std::vector<Config> buf_;
  std::vector<Config> closure_;  // GeneralChildren's closures, one per level of recursion
  std::vector<uint32_t> states_, ends_, levelEnd_;
  std::vector<uint32_t> full_;  // SimpleChildren: per depth, the end of the node's whole subtree
  const TokenTrie* trie_ = nullptr;
  const CutRule* cut_ = nullptr;
  Ranges* accepted_ = nullptr;
  Ranges* uncertain_ = nullptr;
  uint64_t visited_ = 0;
  std::vector<SubtreeMemo::Span> spans_;  // Walk's scratch for one root byte's subtree
  uint32_t liveFor_ = kDeadState;
  std::vector<uint8_t> live_;
  // Counted repetition (the automaton has counters): per-depth configurations of
  // CountedChildren, and where conditionally accepted tokens go.
  ConfigTable table_;
  bool counting_ = false;
  std::vector<Config> cfgs_;
  std::vector<CutCap> cutCap_;
  std::vector<uint8_t> readsCount_, readsMarks_, failsAhead_, failsAheadPlain_;
  std::vector<CondSpan>* conditional_ = nullptr;
  std::vector<CountedCutSpan>* countedCuts_ = nullptr;
};

}  // namespace tagmask
