// Walking a token trie from one automaton state (docs/token-trie.md, docs/engine.md): the
// per-depth parser configurations, the cuts at absorbing states, the subtree memo shared across
// states, and the per-token walk that resolves uncertain tokens for one return state. Used by the
// mask builder only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pda_step.h"
#include "tagmask/automaton.h"
#include "tagmask/token_trie.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

// Sorted, merged half-open ranges of trie token positions.
struct Ranges {
  std::vector<std::pair<uint32_t, uint32_t>> r;
  uint32_t count = 0;
  void Add(uint32_t a, uint32_t b) {
    if (a == b) return;
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

// When a walk may stop descending: at an absorbing state (every plain character loops on it),
// every token below whose remaining bytes are plain for that state is accepted. In the plain trie
// that is every token; in the impure trie, `nodeMax[profile][node]` is the largest position
// after which some token below still has a byte that does not loop on states of that profile.
struct CutRule {
  const uint32_t* profileOf = nullptr;                 // per state; kNoProfile when not absorbing
  const std::vector<std::shared_ptr<const std::vector<uint16_t>>>* nodeMax = nullptr;  // null: the plain trie
  // Plain trie only: per state, how many bytes of plain characters surely keep it alive (see
  // PlainDepth in mask_builder.cpp; 0xFFFF for absorbing states), and per node the longest
  // token below. A string with a length limit is absorbing for every token that fits.
  const uint16_t* plainDepth = nullptr;
  const uint16_t* maxLength = nullptr;
  static constexpr uint32_t kNoProfile = UINT32_MAX;
  bool Cut(uint32_t s, uint32_t node, uint32_t depth) const {
    if (nodeMax == nullptr) return static_cast<uint32_t>(plainDepth[s]) + depth >= maxLength[node];
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
    frames_.assign(1, {0, 0});
    index_.clear();
  }
  uint32_t Push(uint32_t ret, uint32_t parent) {
    const uint64_t key = (static_cast<uint64_t>(ret) << 32) | parent;
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    if (frames_.size() >= (1u << 22)) return kNoFrame;
    const uint32_t id = static_cast<uint32_t>(frames_.size());
    frames_.push_back({ret, parent});
    index_.emplace(key, id);
    return id;
  }
  bool IsBottom(uint32_t frame) const { return frame == 0; }
  uint32_t Ret(uint32_t frame) const { return frames_[frame].first; }
  uint32_t Parent(uint32_t frame) const { return frames_[frame].second; }
  template <class Fn>
  void Escape(const Automaton& a, const Config& c, Fn&& expand) {
    const AutomatonRule& rule = a.rules[a.ruleOf[c.state]];
    for (uint32_t r : rule.returnStates) {
      Config n;
      n.state = r;
      n.frame = 0;
      n.exact = (c.exact && rule.exactEscape) ? 1 : 0;
      expand(n);
    }
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> frames_;
  std::unordered_map<uint64_t, uint32_t> index_;
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
  // The stored spans of the subtree of root byte `byte` walked from `state`, or null.
  const std::vector<Span>* Find(uint8_t byte, uint32_t state) const {
    if (state >= byState_.size() || byState_[state].empty()) return nullptr;
    const uint32_t e = byState_[state][byte];
    return e == 0 ? nullptr : &entries_[e - 1];
  }
  void Store(uint8_t byte, uint32_t state, std::vector<Span> spans) {
    if (state >= byState_.size()) byState_.resize(state + 1);
    if (byState_[state].empty()) byState_[state].assign(256, 0);
    entries_.push_back(std::move(spans));
    byState_[state][byte] = static_cast<uint32_t>(entries_.size());
  }

 private:
  std::vector<std::vector<uint32_t>> byState_;  // per state: per root byte, entry + 1 (0: none)
  std::vector<std::vector<Span>> entries_;
};

// Walks a trie from one state. Most of the time the bytes so far lead to a single configuration
// that can only take byte transitions (no call, no return, no token counting); then a node costs
// one table lookup (SimpleChildren). Elsewhere the walk keeps the set of configurations per depth
// (GeneralChildren): a token is accepted when some configuration reached without an inexact
// escape survives it, uncertain when only inexact ones do, rejected when none does.
class Walker {
 public:
  Walker(const Automaton& a, uint32_t maxDepth) : a_(a), stepper_(a, arena_), states_(maxDepth + 3, 0), ends_(maxDepth + 3, 0) {
    plain_.resize(a.StateCount());
    for (uint32_t s = 0; s < a.StateCount(); ++s) {
      const uint8_t f = a.flags[s];
      plain_[s] = !(f & (kHasCalls | kLimitedText)) && (!(f & kFinal) || a.rules[a.ruleOf[s]].returnStates.empty());
    }
  }

  uint64_t Walk(const TokenTrie& trie, const CutRule& cut, uint32_t start, Ranges* accepted, Ranges* uncertain, SubtreeMemo* memo) {
    trie_ = &trie;
    cut_ = &cut;
    accepted_ = accepted;
    uncertain_ = uncertain;
    visited_ = 0;
    arena_.Clear();
    buf_.clear();
    const uint32_t n = trie.NodeCount();
    const uint32_t* tb = trie.TokenBeginData();
    if (!plain_[start]) {
      Config s0;
      s0.state = start;
      buf_.push_back(s0);
      GeneralChildren(0, 1, 1, n, 1);
      return visited_;
    }
    // From a plain start only the bytes with a live transition matter; they are found once per
    // state and their subtrees reached through the root table.
    if (liveFor_ != start) {
      liveFor_ = start;
      live_.clear();
      for (int b = 0; b < 256; ++b) {
        if (a_.Next(start, static_cast<uint8_t>(b)) != kDeadState) live_.push_back(static_cast<uint8_t>(b));
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
      // Walk into scratch ranges and keep them for other states that reach (c, t).
      scratch_[0].Clear();
      scratch_[1].Clear();
      accepted_ = &scratch_[0];
      uncertain_ = &scratch_[1];
      const uint64_t before = visited_;
      accepted_->Add(tb[c], tb[c + 1]);
      SimpleChildren(c, 1, t, true);
      accepted_ = accepted;
      uncertain_ = uncertain;
      std::vector<SubtreeMemo::Span> spans;
      for (int k = 0; k < 2; ++k) {
        for (const auto& [x, y] : scratch_[k].r) spans.push_back({x, y, static_cast<uint8_t>(k)});
      }
      std::sort(spans.begin(), spans.end(), [](const SubtreeMemo::Span& p, const SubtreeMemo::Span& q) { return p.a < q.a; });
      for (const auto& sp : spans) (sp.uncertain ? uncertain : accepted)->Add(sp.a, sp.b);
      if (visited_ - before > 16) memo->Store(b, t, std::move(spans));
    }
    return visited_;
  }

  // Classifies the tokens `ids` (sorted by bytes) from state `start` with one known frame below
  // (returning to `ret`) and the unknown bottom under it: accepted when an exact configuration
  // survives, residual when only inexact ones do. Common prefixes are stepped once.
  void WalkTokens(const TokenizerInfo& tok, uint32_t start, uint32_t ret, const std::vector<uint32_t>& ids,
                  std::vector<uint32_t>* accepted, std::vector<uint32_t>* residual) {
    arena_.Clear();
    buf_.clear();
    Config c;
    c.state = start;
    c.frame = arena_.Push(ret, 0);
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
      bool exact = false;
      for (size_t k = levelEnd_[len - 1]; k < levelEnd_[len]; ++k) exact = exact || buf_[k].exact;
      (exact ? accepted : residual)->push_back(id);
    }
  }

 private:
  bool Simple(const Config& c) const { return c.frame == 0 && c.count == 0 && c.consumed == 0 && plain_[c.state]; }

  // The subtree below node c (its own tokens are done), the bytes up to c leading to the single
  // plain configuration `state` (exact or not) at depth `depth`.
  void SimpleChildren(uint32_t c, uint32_t depth, uint32_t state, bool exact) {
    const uint32_t* le = trie_->LabelEndData();
    const uint32_t* tb = trie_->TokenBeginData();
    const uint32_t classes = a_.classCount;
    const uint32_t* trans = a_.trans.data();
    const uint8_t* byteClass = a_.byteClass.data();
    Ranges* own = exact ? accepted_ : uncertain_;
    const uint32_t base = depth;
    states_[depth] = state;
    ends_[depth] = le[c] & 0xFFFFFFu;
    for (uint32_t i = c + 1; i < ends_[base];) {
      while (i >= ends_[depth]) --depth;
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
      const uint32_t t = trans[p * classes + byteClass[word >> 24]];
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
      ends_[depth] = end;
      ++i;
    }
  }

  // Nodes [first, end), siblings at depth `depth`, below a node the bytes lead to with the
  // configurations buf_[lo, hi).
  void GeneralChildren(size_t lo, size_t hi, uint32_t first, uint32_t end, uint32_t depth) {
    const uint32_t* tb = trie_->TokenBeginData();
    for (uint32_t c = first; c < end; c = trie_->SubtreeEnd(c)) {
      ++visited_;
      buf_.resize(hi);
      if (!Step(lo, hi, trie_->Label(c))) continue;
      const size_t top = buf_.size();
      bool exact = false, canCut = false;
      for (size_t k = hi; k < top; ++k) {
        const Config& x = buf_[k];
        if (!x.exact) continue;
        exact = true;
        if (cut_->Cut(x.state, c, depth) && (!(a_.flags[x.state] & kLimitedText) || x.count < a_.rules[a_.ruleOf[x.state]].maxTokens)) {
          canCut = true;
        }
      }
      if (canCut) {
        accepted_->Add(tb[c], tb[trie_->SubtreeEnd(c)]);
        continue;
      }
      (exact ? accepted_ : uncertain_)->Add(tb[c], tb[c + 1]);
      if (top - hi == 1 && Simple(buf_[hi])) {
        const Config only = buf_[hi];
        SimpleChildren(c, depth, only.state, only.exact != 0);
      } else {
        GeneralChildren(hi, top, c + 1, trie_->SubtreeEnd(c), depth + 1);
      }
    }
    buf_.resize(hi);
  }

  // Appends to buf_ the configurations buf_[from, to) reach by `byte`; false if none.
  bool Step(size_t from, size_t to, uint8_t byte) {
    bool allSimple = true;
    for (size_t k = from; k < to && allSimple; ++k) allSimple = Simple(buf_[k]);
    if (allSimple) {
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
    DedupeConfigs(&buf_, to);
    return buf_.size() > to;
  }

  const Automaton& a_;
  LocalArena arena_;
  PdaStepper<LocalArena> stepper_;
  std::vector<uint8_t> plain_;
  std::vector<Config> buf_;
  std::vector<uint32_t> states_, ends_, levelEnd_;
  const TokenTrie* trie_ = nullptr;
  const CutRule* cut_ = nullptr;
  Ranges* accepted_ = nullptr;
  Ranges* uncertain_ = nullptr;
  uint64_t visited_ = 0;
  Ranges scratch_[2];
  uint32_t liveFor_ = kDeadState;
  std::vector<uint8_t> live_;
};

}  // namespace tagmask
