#include "mask_builder.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "chain_masks.h"
#include "count_regimes.h"
#include "cut_tables.h"
#include "rule_walks.h"
#include "token_equivalence.h"
#include "trie_walker.h"
#include "tagmask/bitmask.h"
#include "tagmask/compile_control.h"
#include "tagmask/error.h"
#include "tagmask/thread_pool.h"

namespace tagmask {
namespace {

// What one state's walk found, per trie (0: plain, 1: impure).
struct WalkResult {
  Ranges accepted[2];
  Ranges uncertain[2];
  std::vector<CondSpan> conditional[2];
  std::vector<CountedCutSpan> countedCuts;  // the plain trie's
  void Clear() {
    for (int t = 0; t < 2; ++t) {
      accepted[t].Clear();
      uncertain[t].Clear();
      conditional[t].clear();
    }
    countedCuts.clear();
  }
};

// One state's mask in its chosen form, before deduplication.
struct MaskData {
  // The accepted tokens as merged ranges of trie positions, per trie: a canonical form of the
  // set (the tries are fixed), so equal masks are found by comparing ranges, and only distinct
  // masks are turned into ids or bitsets. The ranges lie in the walking worker's pool
  // (Worker::accPool), [accBegin[t], accEnd[t]): no allocation per state.
  uint32_t worker = 0;
  uint32_t accBegin[2] = {0, 0}, accEnd[2] = {0, 0};
  uint32_t accepted = 0;
  std::vector<uint32_t> uncertain;
  // Per return state of the state's rule (in returnStates order): the uncertain tokens accepted
  // when that is the frame below, those that still depend on the stack further down, and those
  // accepted for some counts of the frame (counted repetition).
  struct Pair {
    std::vector<uint32_t> accepted, residual;
    std::vector<CountedToken> counted;
    std::vector<ResidueToken> residues;  // accepted for some remainders of the state's level
  };
  std::vector<Pair> pairs;
  // Counted repetition: tokens accepted only for some counts of the state's level (sized
  // exactly: every walked state's spans are held until the regimes are built).
  std::vector<CountSpan> cond[2];
  // The plain trie's counted cuts: more tokens accepted for some counts, spelled out when the
  // regimes are built (a few records per state instead of ~90 k spans held until then).
  std::vector<CountedCutSpan> cuts;
  bool Counted() const { return !cond[0].empty() || !cond[1].empty() || !cuts.empty(); }
  // Marks: tokens accepted only for some marks (and counts) of the state's level.
  std::vector<CondSpan> marked[2];
};

// A state's accepted ranges of one trie, in its worker's pool.
struct AccView {
  const std::pair<uint32_t, uint32_t>* first = nullptr;
  size_t size = 0;
  const std::pair<uint32_t, uint32_t>* begin() const { return first; }
  const std::pair<uint32_t, uint32_t>* end() const { return first + size; }
  bool operator==(const AccView& o) const { return size == o.size && std::equal(begin(), end(), o.begin()); }
};

// The marked token groups of a state (docs/engine.md, "Marks"): one per distinct condition, its
// token ids sorted.
void StoreMarked(const TokenizerInfo& tok, const std::vector<CondSpan> marked[2], MaskStore* store, StateMask* sm) {
  sm->markedBegin = static_cast<uint32_t>(store->marked.size());
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  std::vector<std::pair<const CondSpan*, int>> spans;
  for (int t = 0; t < 2; ++t) {
    for (const CondSpan& sp : marked[t]) spans.emplace_back(&sp, t);
  }
  const auto key = [](const CondSpan& x) { return std::make_tuple(x.markClear, x.markNeed, x.markAny, x.lo, x.hi); };
  std::stable_sort(spans.begin(), spans.end(), [&](const auto& x, const auto& y) { return key(*x.first) < key(*y.first); });
  for (size_t i = 0; i < spans.size();) {
    const CondSpan& first = *spans[i].first;
    MarkedTokens g;
    g.clear = first.markClear;
    g.need = first.markNeed;
    g.any = first.markAny;
    g.lo = first.lo;
    g.hi = first.hi;
    g.offset = static_cast<uint32_t>(store->markedIds.size());
    for (; i < spans.size() && key(*spans[i].first) == key(first); ++i) {
      const uint32_t* ids = tries[spans[i].second]->TokenIds();
      for (uint32_t k = spans[i].first->a; k < spans[i].first->b; ++k) store->markedIds.push_back(ids[k]);
    }
    std::sort(store->markedIds.begin() + g.offset, store->markedIds.end());
    g.size = static_cast<uint32_t>(store->markedIds.size()) - g.offset;
    store->marked.push_back(g);
  }
  sm->markedCount = static_cast<uint32_t>(store->marked.size()) - sm->markedBegin;
}

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

// The stored form of an accepted set: the smallest of an id list, a complement list and a bitset.
void Materialize(const TokenizerInfo& tok, const MaskData& d, const AccView view[2], uint32_t listMax, MaskForm* form,
                 std::vector<uint32_t>* data) {
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  Ranges acc[2];
  for (int t = 0; t < 2; ++t) {
    acc[t].r.assign(view[t].begin(), view[t].end());
    for (const auto& [a, b] : view[t]) acc[t].count += b - a;
  }
  const uint32_t accepted = d.accepted;
  const uint32_t notAccepted = tok.EligibleCount() - accepted;
  data->clear();
  if (accepted == 0) {
    *form = MaskForm::Empty;
  } else if (accepted <= listMax) {
    *form = MaskForm::List;
    for (int t = 0; t < 2; ++t) AppendIds(*tries[t], acc[t], data);
    std::sort(data->begin(), data->end());
  } else if (notAccepted <= listMax) {
    *form = MaskForm::Complement;
    for (int t = 0; t < 2; ++t) AppendIds(*tries[t], Complement(acc[t], Ranges(), tries[t]->TokenCount()), data);
    std::sort(data->begin(), data->end());
  } else {
    *form = MaskForm::Bitset;
    data->assign(tok.MaskWordCount(), 0);
    uint32_t* row = data->data();
    if (accepted <= notAccepted) {
      for (int t = 0; t < 2; ++t) {
        const uint32_t* ids = tries[t]->TokenIds();
        for (const auto& [a, b] : acc[t].r) {
          for (uint32_t k = a; k < b; ++k) SetBit(row, ids[k]);
        }
      }
    } else {
      std::copy(tok.EligibleMask(), tok.EligibleMask() + tok.MaskWordCount(), row);
      for (int t = 0; t < 2; ++t) {
        const uint32_t* ids = tries[t]->TokenIds();
        for (const auto& [a, b] : Complement(acc[t], Ranges(), tries[t]->TokenCount()).r) {
          for (uint32_t k = a; k < b; ++k) ClearBit(row, ids[k]);
        }
      }
    }
  }
}

uint64_t HashRanges(const AccView acc[2]) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (int t = 0; t < 2; ++t) {
    h = (h ^ (acc[t].size + 0x9E3779B97F4A7C15ull)) * 0x100000001B3ull;
    for (const auto& [a, b] : acc[t]) h = (h ^ ((static_cast<uint64_t>(a) << 32) | b)) * 0x100000001B3ull;
  }
  return h;
}

// The hash of what a state's regimes are built from: its accepted ranges, counted spans and
// counted cuts.
uint64_t HashRegimeInput(const AccView acc[2], const MaskData& d) {
  uint64_t h = HashRanges(acc);
  for (int t = 0; t < 2; ++t) {
    h = (h ^ (d.cond[t].size() + 0x9E3779B97F4A7C15ull)) * 0x100000001B3ull;
    for (const CountSpan& sp : d.cond[t]) {
      h = (h ^ ((static_cast<uint64_t>(sp.a) << 32) | sp.b)) * 0x100000001B3ull;
      h = (h ^ ((static_cast<uint64_t>(sp.lo) << 32) | sp.hi)) * 0x100000001B3ull;
    }
  }
  for (const CountedCutSpan& c : d.cuts) {
    for (const uint32_t v : {c.from, c.end, c.base, c.lo, c.hi, c.shift, c.full, c.partial}) h = (h ^ v) * 0x100000001B3ull;
  }
  return h;
}

// The stored masks by the hash of their accepted ranges (HashRanges): open addressing over
// (hash, mask id), at most half full; masks whose hashes are equal each take a slot. Replaces a
// hash map of vectors that looked up and allocated per state (152k lookups for a 10,000-value
// enum, 7,624 masks).
class MaskIndex {
 public:
  // The mask with hash h for which same(id) holds, or UINT32_MAX.
  template <class Same>
  uint32_t Find(uint64_t h, Same&& same) const {
    if (slots_.empty()) return UINT32_MAX;
    for (size_t i = Home(h); slots_[i].id != UINT32_MAX; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].hash == h && same(slots_[i].id)) return slots_[i].id;
    }
    return UINT32_MAX;
  }
  void Insert(uint64_t h, uint32_t id) {
    if (2 * (used_ + 1) > slots_.size()) Grow();
    size_t i = Home(h);
    while (slots_[i].id != UINT32_MAX) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = {h, id};
    ++used_;
  }

 private:
  struct Slot {
    uint64_t hash;
    uint32_t id;  // UINT32_MAX: empty
  };
  size_t Home(uint64_t h) const { return static_cast<size_t>((h * 0x9E3779B97F4A7C15ull) >> 24) & (slots_.size() - 1); }
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{0, UINT32_MAX});
    for (const Slot& x : old) {
      if (x.id == UINT32_MAX) continue;
      size_t i = Home(x.hash);
      while (slots_[i].id != UINT32_MAX) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = x;
    }
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// Per-thread scratch of the walks.
struct Worker {
  Worker(const Automaton& a, uint32_t maxDepth, WorkBudget* budget) : walker(a, maxDepth) { walker.SetBudget(budget); }
  Walker walker;
  SubtreeMemo memo[2];
  WalkResult result;
  std::vector<std::pair<uint32_t, uint32_t>> accPool;  // MaskData::accBegin/accEnd point here
  uint64_t visited = 0;
};

// The cuts of one automaton's walks and the tables they point into.
struct CutTables {
  CutTables(const Automaton& a, const TokenizerInfo& tok) {
    BuildProfiles(a, tok, &profileOf, &nodeMax);
    plainDepth = PlainDepth(a, tok.MaxTokenLength());
    midChar = MidCharLength(a, plainDepth);
    cuts[0].profileOf = profileOf.data();
    cuts[0].plainDepth = plainDepth.data();
    cuts[0].maxLength = tok.PlainTrie().MaxLengthData();
    cuts[0].chars = tok.PlainTrie().CharsData();
    cuts[0].midChar = midChar.data();
    cuts[1].profileOf = profileOf.data();
    cuts[1].nodeMax = &nodeMax;
  }
  CutTables(const CutTables&) = delete;
  CutTables& operator=(const CutTables&) = delete;
  std::vector<uint32_t> profileOf;
  std::vector<std::shared_ptr<const std::vector<uint16_t>>> nodeMax;
  std::vector<uint16_t> plainDepth;
  std::vector<uint8_t> midChar;
  CutRule cuts[2];
};

// A walk's uncertain tokens in byte order, both tries merged (WalkTokens shares prefixes).
void UncertainByBytes(const TokenizerInfo& tok, const Ranges uncertain[2], std::vector<uint32_t>* out) {
  std::vector<uint32_t> plain, impure;
  AppendIds(tok.PlainTrie(), uncertain[0], &plain);
  AppendIds(tok.ImpureTrie(), uncertain[1], &impure);
  out->resize(plain.size() + impure.size());
  std::merge(plain.begin(), plain.end(), impure.begin(), impure.end(), out->begin(), [&](uint32_t x, uint32_t y) {
    const uint32_t lx = tok.TokenLength(x), ly = tok.TokenLength(y);
    const int c = std::memcmp(tok.TokenBytes(x), tok.TokenBytes(y), std::min(lx, ly));
    return c != 0 ? c < 0 : lx < ly;
  });
}

// Rule walks (rule_walks.h): closures up to this size are keyed, and a state keeps its walk
// when it has at most this many candidates (a state where the rule may end has every token).
constexpr uint32_t kMaxClosureStates = 512;
constexpr size_t kMaxCandidates = 2048;
constexpr uint64_t kResolveCost = 1;

// Fills along a chain (chain_masks.h) replace the walks and stored masks of a grammar's chain
// states when it has at least this many: a large string enum (a 1,000-value one has ~15,000).
// Smaller grammars keep every state walked and stored, so each has a resident row for device
// masks (ResidentMaskRef answers -1 for a chain state) and their walks are cheap anyway.
constexpr uint32_t kMinChainStates = 1u << 14;

// Per state: whether its mask is filled along its chain (none when there are too few such states,
// or with TAGMASK_CHAIN_MASKS=off, which tests use to compare both).
std::vector<uint8_t> ChainStates(const Automaton& a, const TokenizerInfo& tok, uint32_t* chains) {
  const uint32_t count = a.StateCount();
  std::vector<uint8_t> chain(count, 0);
  *chains = 0;
  const char* env = std::getenv("TAGMASK_CHAIN_MASKS");
  if (env != nullptr && std::strcmp(env, "off") == 0) return chain;
  for (uint32_t s = 1; s < count; ++s) {
    if (FilledAlongChain(a, tok, s)) {
      chain[s] = 1;
      ++*chains;
    }
  }
  if (*chains < kMinChainStates) {
    std::fill(chain.begin(), chain.end(), 0);
    *chains = 0;
  }
  return chain;
}

// Walks every state of the closure automaton's first rule (`states` states from state 1).
std::shared_ptr<const RuleWalks> WalkClosure(const Automaton& sub, uint32_t states, const TokenizerInfo& tok, uint64_t workLimit) {
  const CutTables tables(sub, tok);
  WorkBudget budget(workLimit);
  Worker w(sub, tok.MaxTokenLength(), &budget);
  auto out = std::make_shared<RuleWalks>();
  out->states.resize(states);
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  uint64_t used = 0;
  for (uint32_t i = 0; i < states; ++i) {
    // Where the rule may end, every token goes on in the stand-in caller: no candidate list pays.
    if (sub.Is(1 + i, kFinal)) continue;
    w.result.Clear();
    StateWalk& sw = out->states[i];
    for (int t = 0; t < 2; ++t) {
      if (tries[t]->NodeCount() <= 1) continue;
      sw.visited += w.walker.Walk(*tries[t], tables.cuts[t], 1 + i, &w.result.accepted[t], &w.result.uncertain[t], &w.memo[t],
                                  &w.result.conditional[t], &w.result.countedCuts);
    }
    w.walker.Flush();
    sw.work = budget.Used() - used;
    used = budget.Used();
    // (Kept rules have no counters: nothing conditional, no counted cuts.)
    if (!w.result.conditional[0].empty() || !w.result.conditional[1].empty() || !w.result.countedCuts.empty()) continue;
    if (w.result.uncertain[0].count + w.result.uncertain[1].count > kMaxCandidates) continue;
    UncertainByBytes(tok, w.result.uncertain, &sw.candidates);
    for (int t = 0; t < 2; ++t) sw.accepted[t] = w.result.accepted[t];
    sw.kept = true;
  }
  return out;
}

// Per state: its kept walk, for the states of rules whose walks the vocabulary holds (null for
// the others). `holds` keeps those walks alive for the compile.
std::vector<const StateWalk*> KeptWalks(const Automaton& a, const TokenizerInfo& tok, uint64_t workLimit,
                                        std::vector<std::shared_ptr<const RuleWalks>>* holds) {
  std::vector<const StateWalk*> kept(a.StateCount(), nullptr);
  const char* env = std::getenv("TAGMASK_RULE_WALKS");
  if (env != nullptr && std::strcmp(env, "off") == 0) return kept;
  std::vector<uint32_t> closure;
  std::string key;
  for (uint32_t r = 0; r < a.rules.size(); ++r) {
    if (!RuleClosureKey(a, r, kMaxClosureStates, &closure, &key)) continue;
    std::shared_ptr<const RuleWalks> walks = tok.FindRuleWalks(key);
    const AutomatonRule& rule = a.rules[r];
    if (walks == nullptr) {
      if (!tok.NoteRuleSeen(key)) continue;  // kept from a rule's second compile on
      try {
        walks = WalkClosure(ClosureAutomaton(a, closure), rule.endState - rule.firstState, tok, workLimit);
      } catch (const Error&) {
        // Too costly alone: kept as such (no state kept), so later compiles walk it in place
        // without trying again.
        auto none = std::make_shared<RuleWalks>();
        none->states.resize(rule.endState - rule.firstState);
        walks = std::move(none);
      }
      tok.StoreRuleWalks(key, walks, walks->Bytes());
    }
    // A kept walk pays when resolving its candidates once per return state costs less than the
    // walk in place (a resolved token takes a few steps of parser configurations, a walked trie
    // node about one).
    const uint64_t returns = rule.returnStates.size();
    for (uint32_t s = rule.firstState; s < rule.endState; ++s) {
      const StateWalk& sw = walks->states[s - rule.firstState];
      if (sw.kept && sw.candidates.size() * returns * kResolveCost <= sw.visited) kept[s] = &sw;
    }
    holds->push_back(std::move(walks));
  }
  return kept;
}

// A pair's remainder entries in the order the fill searches them, each once.
void SortResidueTokens(std::vector<ResidueToken>* residues) {
  std::sort(residues->begin(), residues->end());
  residues->erase(std::unique(residues->begin(), residues->end(),
                              [](const ResidueToken& x, const ResidueToken& y) { return !(x < y) && !(y < x); }),
                  residues->end());
}

// A state's results from its kept walk: the accepted tokens as walked, the uncertain ones those
// of the candidates that some return state lets through (exactly those a walk in place finds
// uncertain: it goes on past the rule's end in each return state, inexactly).
void ComputeKeptState(const Automaton& a, const TokenizerInfo& tok, const StateWalk& kept, uint32_t s, Worker& w, uint32_t worker,
                      MaskData* out) {
  out->worker = worker;
  for (int t = 0; t < 2; ++t) {
    out->accBegin[t] = static_cast<uint32_t>(w.accPool.size());
    w.accPool.insert(w.accPool.end(), kept.accepted[t].r.begin(), kept.accepted[t].r.end());
    out->accEnd[t] = static_cast<uint32_t>(w.accPool.size());
    out->marked[t].clear();
    std::vector<CountSpan>().swap(out->cond[t]);
  }
  out->cuts.clear();
  out->accepted = kept.accepted[0].count + kept.accepted[1].count;
  w.visited += kept.visited;
  w.walker.Charge(kept.work);
  out->uncertain.clear();
  out->pairs.clear();
  if (kept.candidates.empty()) return;
  for (uint32_t r : a.rules[a.ruleOf[s]].returnStates) {
    out->pairs.emplace_back();
    auto& [acc, residual, counted, residues] = out->pairs.back();
    w.walker.WalkTokens(tok, s, r, kept.candidates, &acc, &residual, &counted, &residues);
    std::sort(acc.begin(), acc.end());
    std::sort(residual.begin(), residual.end());
    SortResidueTokens(&residues);
    out->uncertain.insert(out->uncertain.end(), acc.begin(), acc.end());
    out->uncertain.insert(out->uncertain.end(), residual.begin(), residual.end());
    for (const ResidueToken& t : residues) out->uncertain.push_back(t.id);
  }
  std::sort(out->uncertain.begin(), out->uncertain.end());
  out->uncertain.erase(std::unique(out->uncertain.begin(), out->uncertain.end()), out->uncertain.end());
  if (out->uncertain.empty()) out->pairs.clear();
}

void ComputeState(const Automaton& a, const TokenizerInfo& tok, const CutRule cuts[2], const StateWalk* kept, uint32_t s, Worker& w,
                  uint32_t worker, MaskData* out) {
  if (kept != nullptr) {
    ComputeKeptState(a, tok, *kept, s, w, worker, out);
    return;
  }
  w.result.Clear();
  const TokenTrie* tries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  for (int t = 0; t < 2; ++t) {
    if (tries[t]->NodeCount() <= 1) continue;
    w.visited += w.walker.Walk(*tries[t], cuts[t], s, &w.result.accepted[t], &w.result.uncertain[t], &w.memo[t], &w.result.conditional[t],
                              &w.result.countedCuts);
  }
  out->worker = worker;
  for (int t = 0; t < 2; ++t) {
    out->accBegin[t] = static_cast<uint32_t>(w.accPool.size());
    w.accPool.insert(w.accPool.end(), w.result.accepted[t].r.begin(), w.result.accepted[t].r.end());
    out->accEnd[t] = static_cast<uint32_t>(w.accPool.size());
    out->marked[t].clear();
    size_t counted = 0;
    for (const CondSpan& sp : w.result.conditional[t]) counted += sp.HasMarks() ? 0 : 1;
    std::vector<CountSpan>().swap(out->cond[t]);
    out->cond[t].reserve(counted);
    for (const CondSpan& sp : w.result.conditional[t]) {
      if (sp.HasMarks()) {
        out->marked[t].push_back(sp);
      } else {
        out->cond[t].push_back({sp.a, sp.b, sp.lo, sp.hi});
      }
    }
  }
  out->cuts.assign(w.result.countedCuts.begin(), w.result.countedCuts.end());
  out->accepted = w.result.accepted[0].count + w.result.accepted[1].count;
  out->uncertain.clear();
  out->pairs.clear();
  if (w.result.uncertain[0].r.empty() && w.result.uncertain[1].r.empty()) return;  // most states
  for (int t = 0; t < 2; ++t) AppendIds(*tries[t], w.result.uncertain[t], &out->uncertain);
  std::sort(out->uncertain.begin(), out->uncertain.end());
  if (out->uncertain.empty()) return;
  // Resolve the uncertain tokens once per possible frame below (docs/engine.md). Each trie lists
  // them in byte order; merging the two keeps that order for WalkTokens' prefix sharing.
  std::vector<uint32_t> byBytes;
  UncertainByBytes(tok, w.result.uncertain, &byBytes);
  for (uint32_t r : a.rules[a.ruleOf[s]].returnStates) {
    out->pairs.emplace_back();
    auto& [acc, residual, counted, residues] = out->pairs.back();
    w.walker.WalkTokens(tok, s, r, byBytes, &acc, &residual, &counted, &residues);
    std::sort(acc.begin(), acc.end());
    std::sort(residual.begin(), residual.end());
    SortResidueTokens(&residues);
  }
}

}  // namespace

void BuildMasks(const Automaton& a, const TokenizerInfo& tok, uint32_t threads, uint64_t workLimit, MaskStore* store,
                MaskBuildStats* stats) {
  WorkBudget budget(workLimit);
  const uint32_t count = a.StateCount();
  const uint32_t listMax = std::max<uint32_t>(32, tok.MaskWordCount() / 4);
  const uint32_t maxDepth = tok.MaxTokenLength();
  uint64_t visited = 0;
  const CutTables tables(a, tok);
  const CutRule* cuts = tables.cuts;
  const std::vector<uint32_t>& profileOf = tables.profileOf;
  const std::vector<uint16_t>& plainDepth = tables.plainDepth;
  // One walk per class of states that no token tells apart; the other states take its result.
  const TokenTrie* const walkedTries[2] = {&tok.PlainTrie(), &tok.ImpureTrie()};
  const std::vector<uint32_t> cls = TokenEquivalenceClasses(a, profileOf, tok.MaxTokenLength() + 1, walkedTries, plainDepth.data());
  uint32_t chains = 0;
  const std::vector<uint8_t> chain = ChainStates(a, tok, &chains);
  std::vector<uint32_t> walked;  // the first state of each class, in state order
  std::vector<uint32_t> source(count, 0);  // per state: the index in `walked` of the walk it takes
  {
    std::vector<uint32_t> firstOfClass(count, UINT32_MAX);
    for (uint32_t s = 1; s < count; ++s) {
      if (chain[s]) continue;
      uint32_t& first = firstOfClass[cls[s]];
      if (first == UINT32_MAX) {
        first = static_cast<uint32_t>(walked.size());
        walked.push_back(s);
      }
      source[s] = first;
    }
  }
  const uint32_t todo = static_cast<uint32_t>(walked.size());
  // One result per walk, not per state: a large enum's states are mostly chain states.
  std::vector<MaskData> results(todo);
  std::vector<std::shared_ptr<const RuleWalks>> holds;
  const std::vector<const StateWalk*> kept = KeptWalks(a, tok, workLimit, &holds);
  // Progress and cancellation, on every thread that walks (the pool's threads have no control
  // installed of their own).
  CompileControl* control = CurrentCompileControl();
  if (control != nullptr) control->Report(CompilePhase::Masks, 0, todo);
  const auto walkedOne = [control]() {
    if (control == nullptr) return;
    control->Check();
    control->Advance(1);
  };
  std::vector<std::unique_ptr<Worker>> workers;
  if (threads > 1 && todo > 8) {
    std::shared_ptr<ThreadPool> pool = SharedThreadPool();
    // One worker (scratch and subtree memo) per thread. States go out in blocks, round robin:
    // neighbouring states (one excluded-string automaton, one literal) share memo entries, and
    // the round robin spreads the costly regions over the threads.
    const size_t chunks = std::max<size_t>(1, std::min<size_t>(threads, pool->Size()));
    constexpr uint32_t kBlock = 16;
    for (size_t i = 0; i < chunks; ++i) workers.push_back(std::make_unique<Worker>(a, maxDepth, &budget));
    pool->ParallelFor(chunks, 1, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        Worker& w = *workers[c];
        for (uint32_t block = static_cast<uint32_t>(c) * kBlock; block < todo; block += static_cast<uint32_t>(chunks) * kBlock) {
          for (uint32_t i = block; i < std::min(todo, block + kBlock); ++i) {
            walkedOne();
            ComputeState(a, tok, cuts, kept[walked[i]], walked[i], w, static_cast<uint32_t>(c), &results[i]);
          }
        }
        w.walker.Flush();
      }
    });
    for (const auto& w : workers) visited += w->visited;
  } else {
    workers.push_back(std::make_unique<Worker>(a, maxDepth, &budget));
    Worker& w = *workers.front();
    for (uint32_t i = 0; i < todo; ++i) {
      walkedOne();
      ComputeState(a, tok, cuts, kept[walked[i]], walked[i], w, 0, &results[i]);
    }
    w.walker.Flush();
    visited = w.visited;
  }
  const auto accOf = [&](const MaskData& d, AccView out[2]) {
    const auto& pool = workers[d.worker]->accPool;
    for (int t = 0; t < 2; ++t) out[t] = {pool.data() + d.accBegin[t], d.accEnd[t] - d.accBegin[t]};
  };

  // Deduplicate into the store. Mask 0 is the empty mask (the dead state's).
  store->wordCount = tok.MaskWordCount();
  store->masks.assign(1, StoredMask{});
  store->ids.clear();
  store->words.clear();
  store->uncertain.clear();
  store->pairs.clear();
  store->regimes.clear();
  store->countedTokens.clear();
  store->residueTokens.clear();
  store->marked.clear();
  store->markedIds.clear();
  store->states.assign(count, StateMask{});
  MaskIndex byHash;
  std::vector<uint32_t> sourceOf(1, 0);  // per stored mask: the state it came from
  std::vector<uint32_t> data;
  MaskBuildStats st;
  st.trieNodesVisited = visited;
  st.work = budget.Used();
  st.walkedStates = todo;
  st.chainStates = chains;
  RegimeBuilder regimes(tok, store, listMax);
  // States whose regimes were built, by HashRegimeInput: a state with the same accepted ranges
  // and counted spans as one of them (not token-equivalent, e.g. two strings with the same
  // length bound followed by different members) shares its regimes instead of building them
  // again.
  std::unordered_map<uint64_t, std::vector<uint32_t>> regimesBuilt;
  for (uint32_t s = 1; s < count; ++s) {
    StateMask& sm = store->states[s];
    if (chain[s]) {
      sm.mask = kChainMask;
      continue;
    }
    const MaskData& d = results[source[s]];
    if (walked[source[s]] != s) {
      // Everything stored for a state comes from its class's walk: share the source's entries
      // (its uncertain lists, pairs and regimes) instead of storing them again.
      sm = store->states[walked[source[s]]];
      st.uncertainTokens += sm.uncertainCount;
      if (sm.uncertainCount > 0) ++st.statesWithUncertain;
      for (const auto& pair : d.pairs) {
        st.residualTokens += pair.residual.size();
        st.residueTokens += pair.residues.size();
      }
      continue;
    }
    sm.uncertainOffset = static_cast<uint32_t>(store->uncertain.size());
    sm.uncertainCount = static_cast<uint32_t>(d.uncertain.size());
    store->uncertain.insert(store->uncertain.end(), d.uncertain.begin(), d.uncertain.end());
    st.uncertainTokens += sm.uncertainCount;
    if (sm.uncertainCount > 0) ++st.statesWithUncertain;
    sm.pairBegin = static_cast<uint32_t>(store->pairs.size());
    for (const auto& [acc, residual, counted, residues] : d.pairs) {
      PairMask pm;
      pm.residueOffset = static_cast<uint32_t>(store->residueTokens.size());
      pm.residueCount = static_cast<uint32_t>(residues.size());
      store->residueTokens.insert(store->residueTokens.end(), residues.begin(), residues.end());
      pm.countedOffset = static_cast<uint32_t>(store->countedTokens.size());
      pm.countedCount = static_cast<uint32_t>(counted.size());
      store->countedTokens.insert(store->countedTokens.end(), counted.begin(), counted.end());
      pm.acceptedOffset = static_cast<uint32_t>(store->uncertain.size());
      pm.acceptedCount = static_cast<uint32_t>(acc.size());
      store->uncertain.insert(store->uncertain.end(), acc.begin(), acc.end());
      pm.residualOffset = static_cast<uint32_t>(store->uncertain.size());
      pm.residualCount = static_cast<uint32_t>(residual.size());
      store->uncertain.insert(store->uncertain.end(), residual.begin(), residual.end());
      store->pairs.push_back(pm);
      st.residualTokens += pm.residualCount;
      st.residueTokens += pm.residueCount;
    }
    if (!d.marked[0].empty() || !d.marked[1].empty()) StoreMarked(tok, d.marked, store, &sm);
    AccView acc[2];
    accOf(d, acc);
    if (d.Counted()) {
      auto& same = regimesBuilt[HashRegimeInput(acc, d)];
      const auto sameInput = [&](uint32_t other) {
        const MaskData& e = results[source[other]];
        AccView o[2];
        accOf(e, o);
        return o[0] == acc[0] && o[1] == acc[1] && e.cond[0] == d.cond[0] && e.cond[1] == d.cond[1] && e.cuts == d.cuts;
      };
      const auto it = std::find_if(same.begin(), same.end(), sameInput);
      if (it != same.end()) {
        const StateMask& built = store->states[*it];
        sm.regimeBegin = built.regimeBegin;
        sm.regimeCount = built.regimeCount;
        sm.mask = built.mask;
        continue;
      }
      same.push_back(s);
      const std::vector<std::pair<uint32_t, uint32_t>> ranges[2] = {{acc[0].begin(), acc[0].end()}, {acc[1].begin(), acc[1].end()}};
      regimes.Add(ranges, d.cond, d.cuts, &sm, &st);
      sourceOf.resize(store->masks.size(), 0);  // regime masks are not found by ranges
      continue;
    }
    if (d.accepted == 0) {
      sm.mask = 0;
      continue;
    }
    const uint64_t h = HashRanges(acc);
    uint32_t found = byHash.Find(h, [&](uint32_t m) {
      AccView other[2];
      accOf(results[source[sourceOf[m]]], other);
      return other[0] == acc[0] && other[1] == acc[1];
    });
    if (found == UINT32_MAX) {
      StoredMask m;
      Materialize(tok, d, acc, listMax, &m.form, &data);
      m.accepted = d.accepted;
      if (m.form == MaskForm::Bitset) {
        m.offset = static_cast<uint32_t>(store->words.size());
        m.size = d.accepted;
        store->words.insert(store->words.end(), data.begin(), data.end());
        ++st.bitsetMasks;
      } else {
        m.offset = static_cast<uint32_t>(store->ids.size());
        m.size = static_cast<uint32_t>(data.size());
        store->ids.insert(store->ids.end(), data.begin(), data.end());
        ++(m.form == MaskForm::List ? st.listMasks : st.complementMasks);
      }
      found = static_cast<uint32_t>(store->masks.size());
      store->masks.push_back(m);
      sourceOf.push_back(s);
      byHash.Insert(h, found);
    }
    sm.mask = found;
  }
  st.distinctMasks = static_cast<uint32_t>(store->masks.size()) - 1;
  if (stats != nullptr) *stats = st;
}

}  // namespace tagmask
