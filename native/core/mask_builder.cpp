#include "mask_builder.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "pda_step.h"
#include "tagmask/bitmask.h"
#include "tagmask/error.h"
#include "tagmask/thread_pool.h"

namespace tagmask {
namespace {

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

// What one state's walk found, per trie (0: plain, 1: impure).
struct WalkResult {
  Ranges accepted[2];
  Ranges uncertain[2];
  void Clear() {
    for (int t = 0; t < 2; ++t) {
      accepted[t].Clear();
      uncertain[t].Clear();
    }
  }
};

// A walk over a trie from a single automaton state, for rules without calls that nobody calls:
// one state per depth, and a token is accepted iff its walk stays alive.
uint64_t WalkSimple(const Automaton& a, const TokenTrie& trie, uint32_t start, Ranges* accepted,
                    std::vector<uint32_t>& states, std::vector<uint32_t>& ends) {
  const uint32_t n = trie.NodeCount();
  const uint32_t* le = trie.LabelEndData();
  const uint32_t* tb = trie.TokenBeginData();
  const uint16_t* impure = trie.ImpureEndData();
  const uint32_t classes = a.classCount;
  const uint32_t* trans = a.trans.data();
  const uint8_t* byteClass = a.byteClass.data();
  const uint8_t* flags = a.flags.data();
  states[0] = start;
  ends[0] = n;
  uint32_t depth = 0;
  uint64_t visited = 0;
  for (uint32_t i = 1; i < n;) {
    while (i >= ends[depth]) --depth;
    ++visited;
    const uint32_t word = le[i];
    const uint32_t end = word & 0xFFFFFFu;
    const uint32_t s = trans[states[depth] * classes + byteClass[word >> 24]];
    if (s == kDeadState) {
      i = end;
      continue;
    }
    if ((flags[s] & kAbsorbing) && (impure == nullptr || impure[i] <= depth + 1)) {
      // Every token below continues with plain characters only, which loop on s.
      accepted->Add(tb[i], tb[end]);
      i = end;
      continue;
    }
    accepted->Add(tb[i], tb[i + 1]);
    ++depth;
    states[depth] = s;
    ends[depth] = end;
    ++i;
  }
  return visited;
}

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

// A walk over a trie for states of rules with calls, or called: a set of configurations per
// depth. Tokens reached only through an inexact escape are uncertain.
class GeneralWalker {
 public:
  explicit GeneralWalker(const Automaton& a) : a_(a), stepper_(a, arena_) {}

  uint64_t Walk(const TokenTrie& trie, uint32_t start, Ranges* accepted, Ranges* uncertain, uint32_t maxDepth) {
    const uint32_t n = trie.NodeCount();
    const uint32_t* le = trie.LabelEndData();
    const uint32_t* tb = trie.TokenBeginData();
    const uint16_t* impure = trie.ImpureEndData();
    arena_.Clear();
    buf_.clear();
    Config c;
    c.state = start;
    buf_.push_back(c);
    levelEnd_.assign(maxDepth + 2, 0);
    ends_.assign(maxDepth + 2, 0);
    levelEnd_[0] = 1;  // level d occupies [levelEnd_[d-1], levelEnd_[d]) (level 0: [0, 1))
    ends_[0] = n;
    uint32_t depth = 0;
    uint64_t visited = 0;
    for (uint32_t i = 1; i < n;) {
      while (i >= ends_[depth]) --depth;
      ++visited;
      const uint32_t word = le[i];
      const uint32_t end = word & 0xFFFFFFu;
      const uint8_t byte = static_cast<uint8_t>(word >> 24);
      const size_t from = depth == 0 ? 0 : levelEnd_[depth - 1];
      buf_.resize(levelEnd_[depth]);
      stepper_.ClearVisited();
      for (size_t k = from; k < levelEnd_[depth]; ++k) {
        const Config parent = buf_[k];  // copy: the buffer grows
        stepper_.StepMore(parent, byte, &buf_);
      }
      DedupeConfigs(&buf_, levelEnd_[depth]);
      const size_t lo = levelEnd_[depth], hi = buf_.size();
      if (lo == hi) {
        i = end;
        continue;
      }
      bool exact = false, cut = false;
      for (size_t k = lo; k < hi; ++k) {
        const Config& x = buf_[k];
        if (!x.exact) continue;
        exact = true;
        if ((a_.flags[x.state] & kAbsorbing) &&
            (!(a_.flags[x.state] & kLimitedText) || x.count < a_.rules[a_.ruleOf[x.state]].maxTokens)) {
          cut = true;
        }
      }
      if (cut && (impure == nullptr || impure[i] <= depth + 1)) {
        accepted->Add(tb[i], tb[end]);
        i = end;
        continue;
      }
      (exact ? accepted : uncertain)->Add(tb[i], tb[i + 1]);
      ++depth;
      levelEnd_[depth] = static_cast<uint32_t>(hi);
      ends_[depth] = end;
      ++i;
    }
    return visited;
  }

 private:
  const Automaton& a_;
  LocalArena arena_;
  PdaStepper<LocalArena> stepper_;
  std::vector<Config> buf_;
  std::vector<uint32_t> levelEnd_, ends_;
};

// One state's mask in its chosen form, before deduplication.
struct MaskData {
  MaskForm form = MaskForm::Empty;
  uint32_t accepted = 0;
  std::vector<uint32_t> data;  // ids or words
  std::vector<uint32_t> uncertain;
};

void AppendIds(const TokenTrie& trie, const Ranges& ranges, std::vector<uint32_t>* out) {
  const uint32_t* ids = trie.TokenIds();
  for (const auto& [a, b] : ranges.r) out->insert(out->end(), ids + a, ids + b);
}

// Ranges of positions in [0, total) covered by neither `x` nor `y` (both sorted).
Ranges Complement(const Ranges& x, const Ranges& y, uint32_t total) {
  std::vector<std::pair<uint32_t, uint32_t>> all(x.r);
  all.insert(all.end(), y.r.begin(), y.r.end());
  std::sort(all.begin(), all.end());
  Ranges out;
  uint32_t at = 0;
  for (const auto& [a, b] : all) {
    if (a > at) out.Add(at, a);
    at = std::max(at, b);
  }
  if (at < total) out.Add(at, total);
  return out;
}

void Materialize(const TokenizerInfo& tok, const WalkResult& w, uint32_t listMax, MaskData* out) {
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  out->uncertain.clear();
  out->data.clear();
  for (int t = 0; t < 2; ++t) AppendIds(*tries[t], w.uncertain[t], &out->uncertain);
  std::sort(out->uncertain.begin(), out->uncertain.end());
  const uint32_t accepted = w.accepted[0].count + w.accepted[1].count;
  const uint32_t notAccepted = tok.EligibleCount() - accepted;
  out->accepted = accepted;
  if (accepted == 0) {
    out->form = MaskForm::Empty;
  } else if (accepted <= listMax) {
    out->form = MaskForm::List;
    for (int t = 0; t < 2; ++t) AppendIds(*tries[t], w.accepted[t], &out->data);
    std::sort(out->data.begin(), out->data.end());
  } else if (notAccepted <= listMax) {
    out->form = MaskForm::Complement;
    for (int t = 0; t < 2; ++t) {
      AppendIds(*tries[t], Complement(w.accepted[t], Ranges(), tries[t]->TokenCount()), &out->data);
    }
    std::sort(out->data.begin(), out->data.end());
  } else {
    out->form = MaskForm::Bitset;
    out->data.assign(tok.MaskWordCount(), 0);
    uint32_t* row = out->data.data();
    if (accepted <= notAccepted) {
      for (int t = 0; t < 2; ++t) {
        const uint32_t* ids = tries[t]->TokenIds();
        for (const auto& [a, b] : w.accepted[t].r) {
          for (uint32_t k = a; k < b; ++k) SetBit(row, ids[k]);
        }
      }
    } else {
      std::copy(tok.EligibleMask(), tok.EligibleMask() + tok.MaskWordCount(), row);
      for (int t = 0; t < 2; ++t) {
        const uint32_t* ids = tries[t]->TokenIds();
        for (const auto& [a, b] : Complement(w.accepted[t], Ranges(), tries[t]->TokenCount()).r) {
          for (uint32_t k = a; k < b; ++k) ClearBit(row, ids[k]);
        }
      }
    }
  }
}

uint64_t HashWords(MaskForm form, const std::vector<uint32_t>& v) {
  uint64_t h = 0xCBF29CE484222325ull ^ static_cast<uint64_t>(form);
  for (uint32_t x : v) {
    h ^= x;
    h *= 0x100000001B3ull;
  }
  return h;
}

// Per-thread scratch of the walks.
struct Worker {
  explicit Worker(const Automaton& a, uint32_t maxDepth) : general(a), states(maxDepth + 2), ends(maxDepth + 2) {}
  GeneralWalker general;
  std::vector<uint32_t> states, ends;
  WalkResult result;
  uint64_t visited = 0;
};

void ComputeState(const Automaton& a, const TokenizerInfo& tok, uint32_t s, uint32_t listMax, Worker& w, MaskData* out) {
  w.result.Clear();
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  const bool simple = a.rules[a.ruleOf[s]].simple;
  for (int t = 0; t < 2; ++t) {
    if (tries[t]->NodeCount() <= 1) continue;
    if (simple) {
      w.visited += WalkSimple(a, *tries[t], s, &w.result.accepted[t], w.states, w.ends);
    } else {
      w.visited += w.general.Walk(*tries[t], s, &w.result.accepted[t], &w.result.uncertain[t], tok.MaxTokenLength());
    }
  }
  Materialize(tok, w.result, listMax, out);
}

}  // namespace

void BuildMasks(const Automaton& a, const TokenizerInfo& tok, uint32_t threads, MaskStore* store, MaskBuildStats* stats) {
  const uint32_t count = a.StateCount();
  const uint32_t listMax = std::max<uint32_t>(32, tok.MaskWordCount() / 4);
  std::vector<MaskData> results(count);
  const uint32_t maxDepth = tok.MaxTokenLength();
  uint64_t visited = 0;
  if (threads > 1 && count > 8) {
    std::shared_ptr<ThreadPool> pool = SharedThreadPool();
    std::vector<std::unique_ptr<Worker>> workers;
    const size_t chunks = std::min<size_t>(count - 1, pool->Size() * 8);
    for (size_t i = 0; i < chunks; ++i) workers.push_back(std::make_unique<Worker>(a, maxDepth));
    // One worker per chunk, so chunks never share scratch.
    pool->ParallelFor(chunks, 1, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        Worker& w = *workers[c];
        for (uint32_t s = 1 + static_cast<uint32_t>(c); s < count; s += static_cast<uint32_t>(chunks)) {
          ComputeState(a, tok, s, listMax, w, &results[s]);
        }
      }
    });
    for (const auto& w : workers) visited += w->visited;
  } else {
    Worker w(a, maxDepth);
    for (uint32_t s = 1; s < count; ++s) ComputeState(a, tok, s, listMax, w, &results[s]);
    visited = w.visited;
  }

  // Deduplicate into the store. Mask 0 is the empty mask (the dead state's).
  store->wordCount = tok.MaskWordCount();
  store->masks.assign(1, StoredMask{});
  store->ids.clear();
  store->words.clear();
  store->uncertain.clear();
  store->states.assign(count, StateMask{});
  std::unordered_map<uint64_t, std::vector<uint32_t>> byHash;
  MaskBuildStats st;
  st.trieNodesVisited = visited;
  for (uint32_t s = 1; s < count; ++s) {
    MaskData& d = results[s];
    StateMask& sm = store->states[s];
    sm.uncertainOffset = static_cast<uint32_t>(store->uncertain.size());
    sm.uncertainCount = static_cast<uint32_t>(d.uncertain.size());
    store->uncertain.insert(store->uncertain.end(), d.uncertain.begin(), d.uncertain.end());
    st.uncertainTokens += sm.uncertainCount;
    if (sm.uncertainCount > 0) ++st.statesWithUncertain;
    if (d.form == MaskForm::Empty) {
      sm.mask = 0;
      continue;
    }
    const uint64_t h = HashWords(d.form, d.data);
    auto& candidates = byHash[h];
    uint32_t found = UINT32_MAX;
    for (uint32_t m : candidates) {
      const StoredMask& sm2 = store->masks[m];
      if (sm2.form != d.form) continue;
      const std::vector<uint32_t>& pool = d.form == MaskForm::Bitset ? store->words : store->ids;
      const uint32_t len = d.form == MaskForm::Bitset ? store->wordCount : sm2.size;
      if (len == d.data.size() && std::equal(d.data.begin(), d.data.end(), pool.begin() + sm2.offset)) {
        found = m;
        break;
      }
    }
    if (found == UINT32_MAX) {
      StoredMask m;
      m.form = d.form;
      m.accepted = d.accepted;
      if (d.form == MaskForm::Bitset) {
        m.offset = static_cast<uint32_t>(store->words.size());
        m.size = d.accepted;
        store->words.insert(store->words.end(), d.data.begin(), d.data.end());
        ++st.bitsetMasks;
      } else {
        m.offset = static_cast<uint32_t>(store->ids.size());
        m.size = static_cast<uint32_t>(d.data.size());
        store->ids.insert(store->ids.end(), d.data.begin(), d.data.end());
        ++(d.form == MaskForm::List ? st.listMasks : st.complementMasks);
      }
      found = static_cast<uint32_t>(store->masks.size());
      store->masks.push_back(m);
      candidates.push_back(found);
    }
    sm.mask = found;
    std::vector<uint32_t>().swap(d.data);
  }
  st.distinctMasks = static_cast<uint32_t>(store->masks.size()) - 1;
  if (stats != nullptr) *stats = st;
}

void MaskStore::Write(uint32_t m, const uint32_t* eligible, uint32_t* row) const {
  const StoredMask& sm = masks[m];
  switch (sm.form) {
    case MaskForm::Empty:
      std::fill(row, row + wordCount, 0u);
      return;
    case MaskForm::List: {
      std::fill(row, row + wordCount, 0u);
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) SetBit(row, p[i]);
      return;
    }
    case MaskForm::Complement: {
      std::copy(eligible, eligible + wordCount, row);
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) ClearBit(row, p[i]);
      return;
    }
    case MaskForm::Bitset:
      std::copy(words.data() + sm.offset, words.data() + sm.offset + wordCount, row);
      return;
  }
}

void MaskStore::OrInto(uint32_t m, const uint32_t* eligible, uint32_t* row, uint32_t* scratch) const {
  const StoredMask& sm = masks[m];
  switch (sm.form) {
    case MaskForm::Empty:
      return;
    case MaskForm::List: {
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) SetBit(row, p[i]);
      return;
    }
    case MaskForm::Complement:
      Write(m, eligible, scratch);
      for (uint32_t i = 0; i < wordCount; ++i) row[i] |= scratch[i];
      return;
    case MaskForm::Bitset: {
      const uint32_t* w = words.data() + sm.offset;
      for (uint32_t i = 0; i < wordCount; ++i) row[i] |= w[i];
      return;
    }
  }
}

}  // namespace tagmask
