#include "token_equivalence.h"

#include <algorithm>

namespace tagmask {
namespace {

// A state's transition row as runs of equal target over the byte classes: (first class, target).
// Rows have a few distinct targets (the next position, the string's end, an escape, the UTF-8
// lead bytes, dead), so a refinement round costs a few entries per state instead of one per class.
// With counted repetition a run also ends where the counter operation changes (`ops`, one per
// run; empty without counters): two transitions to one state that count differently are
// different transitions.
struct Runs {
  std::vector<uint32_t> begin;  // per state into `runs`; size StateCount() + 1
  std::vector<std::pair<uint32_t, uint32_t>> runs;
  std::vector<uint32_t> ops;
};

Runs CompressRows(const Automaton& a) {
  Runs out;
  const uint32_t count = a.StateCount();
  out.begin.assign(count + 1, 0);
  // Whether every class holds a byte (token-class columns may hold none: then a state with one
  // live byte may have more live columns).
  std::vector<uint8_t> holdsByte(a.classCount, 0);
  for (int b = 0; b < 256; ++b) holdsByte[a.byteClass[b]] = 1;
  const bool bytesOnly = std::find(holdsByte.begin(), holdsByte.end(), 0) == holdsByte.end();
  const bool counting = a.HasCounters();
  for (uint32_t s = 0; s < count; ++s) {
    out.begin[s] = static_cast<uint32_t>(out.runs.size());
    const auto row = [&a, s](uint32_t c) { return a.NextByClass(s, c); };
    const uint32_t* ops = !counting || a.opRow.empty() || a.opRow[s] == Automaton::kNoOpRow ? nullptr : a.transOps.data() + a.opRow[s];
    const auto opOf = [ops](uint32_t c) { return ops == nullptr ? kNoCountOp : ops[c]; };
    if (bytesOnly && a.singleByte[s] >= 0) {  // one live class: the row is dead around it
      const uint32_t c = a.byteClass[static_cast<uint8_t>(a.singleByte[s])];
      if (c > 0) out.runs.emplace_back(0, kDeadState);
      out.runs.emplace_back(c, row(c));
      if (c + 1 < a.classCount) out.runs.emplace_back(c + 1, kDeadState);
      if (counting) {
        if (c > 0) out.ops.push_back(kNoCountOp);
        out.ops.push_back(opOf(c));
        if (c + 1 < a.classCount) out.ops.push_back(kNoCountOp);
      }
      continue;
    }
    for (uint32_t c = 0; c < a.classCount; ++c) {
      if (c == 0 || row(c) != row(c - 1) || opOf(c) != opOf(c - 1)) {
        out.runs.emplace_back(c, row(c));
        if (counting) out.ops.push_back(opOf(c));
      }
    }
  }
  out.begin[count] = static_cast<uint32_t>(out.runs.size());
  return out;
}

uint64_t HashSpan(const uint32_t* p, uint32_t n) {
  uint64_t h = 0xCBF29CE484222325ull ^ n;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

bool SameSpan(const uint32_t* a, uint32_t an, const uint32_t* b, uint32_t bn) {
  return an == bn && std::equal(a, a + an, b);
}

// A key: a span of a buffer that lives as long as the table's entries.
struct Span {
  uint32_t begin, size;
};

// Keys (spans of one buffer) to ids, open addressing; Clear() costs only what was inserted.
class KeyTable {
 public:
  explicit KeyTable(uint32_t states) {
    size_t n = 16;
    while (n < 2 * static_cast<size_t>(states) + 2) n *= 2;
    slot_.assign(n, kEmpty);
  }
  /// The id of the key `k` of `buf`, or `missing`.
  uint32_t Find(const std::vector<uint32_t>& buf, Span k, uint32_t missing) const {
    for (size_t i = Home(buf, k);; i = (i + 1) & (slot_.size() - 1)) {
      if (slot_[i] == kEmpty) return missing;
      const Entry& e = entries_[slot_[i]];
      if (SameSpan(buf.data() + e.key.begin, e.key.size, buf.data() + k.begin, k.size)) return e.id;
    }
  }
  void Insert(const std::vector<uint32_t>& buf, Span k, uint32_t id) {
    size_t i = Home(buf, k);
    while (slot_[i] != kEmpty) i = (i + 1) & (slot_.size() - 1);
    slot_[i] = static_cast<uint32_t>(entries_.size());
    used_.push_back(i);
    entries_.push_back({k, id});
  }
  void Clear() {
    for (size_t i : used_) slot_[i] = kEmpty;
    used_.clear();
    entries_.clear();
  }

 private:
  struct Entry {
    Span key;
    uint32_t id;
  };
  size_t Home(const std::vector<uint32_t>& buf, Span k) const { return HashSpan(buf.data() + k.begin, k.size) & (slot_.size() - 1); }
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> slot_;
  std::vector<size_t> used_;
  std::vector<Entry> entries_;
};

// Per state, whether its class is certain to be its own after `depth` rounds, so that the
// refinement can leave it out (docs/engine.md, "The mask cache"). A state p whose byte paths
// within its rule are acyclic, the longest L(p) bytes long, with L(p) + 1 <= depth, differs from
// every other state q of a minimized automaton within depth bytes: some byte string w tells them
// apart (minimization puts them in different blocks); calls are no way out, since a state with
// calls has a class of its own, so there is such a w of bytes only, after which one of them is
// final and the other not, or is dead and the other not, or has a different rule, flags or call
// set: all things round 0 or the dead class see. Every prefix of w but the last byte keeps p
// alive, so |w| <= L(p) + 1. (If the automaton were not minimal, two equal states would only be
// walked twice: a finer partition never changes a mask.) Such states are singletons after the
// refinement; they are left out of it only when no state outside the set reaches them (a state
// of the refinement that leads into one would see its final class before the round that
// makes it), so the classes of the other states come out exactly as before.
std::vector<uint8_t> SettledStates(const Runs& rows, uint32_t count, uint32_t depth) {
  constexpr uint32_t kUnbounded = UINT32_MAX;
  std::vector<uint32_t> longest(count, 0);
  // Longest paths by an iterative depth-first search: 0 new, 1 on the path, 2 done.
  std::vector<uint8_t> color(count, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (state, next run)
  color[kDeadState] = 2;
  for (uint32_t root = 1; root < count; ++root) {
    if (color[root] != 0) continue;
    color[root] = 1;
    stack.push_back({root, rows.begin[root]});
    while (!stack.empty()) {
      auto& [s, i] = stack.back();
      if (i < rows.begin[s + 1]) {
        const uint32_t t = rows.runs[i++].second;
        if (t == kDeadState) continue;
        if (color[t] == 1) {
          longest[s] = kUnbounded;  // a cycle
        } else if (color[t] == 0) {
          color[t] = 1;
          stack.push_back({t, rows.begin[t]});
          continue;
        }
        if (longest[s] != kUnbounded) longest[s] = longest[t] == kUnbounded ? kUnbounded : std::max(longest[s], longest[t] + 1);
        continue;
      }
      const uint32_t done = s;
      color[done] = 2;
      stack.pop_back();
      if (!stack.empty()) {
        uint32_t& parent = longest[stack.back().first];
        if (parent != kUnbounded) parent = longest[done] == kUnbounded ? kUnbounded : std::max(parent, longest[done] + 1);
      }
    }
  }
  // Settled: short enough, and not reachable from a state that is not.
  std::vector<uint8_t> settled(count, 0);
  std::vector<uint32_t> queue;
  for (uint32_t s = 1; s < count; ++s) {
    if (longest[s] != kUnbounded && longest[s] + 1 <= depth) {
      settled[s] = 1;
    } else {
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    const uint32_t s = queue.back();
    queue.pop_back();
    for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
      const uint32_t t = rows.runs[i].second;
      if (settled[t]) {
        settled[t] = 0;
        queue.push_back(t);
      }
    }
  }
  return settled;
}


// How far apart the refinement's classes x and y lie: the length of the shortest byte string
// that told their states apart (0: round 0 did), or UINT32_MAX for one class.
class Separation {
 public:
  Separation(const std::vector<uint32_t>& parent, const std::vector<uint32_t>& madeAt) : parent_(parent), madeAt_(madeAt) {
    level_.assign(parent.size(), 0);
    for (size_t x = 0; x < parent.size(); ++x) level_[x] = parent[x] == UINT32_MAX ? 0 : level_[parent[x]] + 1;  // parents come first
  }
  uint32_t operator()(uint32_t x, uint32_t y) const {
    if (x == y) return UINT32_MAX;
    uint32_t sep = UINT32_MAX;
    // Up to the class both left: each side's last step up is the split that took it away.
    while (x != y) {
      uint32_t& z = level_[x] >= level_[y] ? x : y;
      if (parent_[z] == UINT32_MAX) return 0;
      sep = std::min(sep, madeAt_[z]);
      z = parent_[z];
    }
    return sep;
  }

 private:
  const std::vector<uint32_t>& parent_;
  const std::vector<uint32_t>& madeAt_;
  std::vector<uint32_t> level_;
};

// Whether no token of `trie` tells states p and q apart: along every token's bytes both reach
// states of one round-0 class through the same counter operations — all a walk reads (its cuts
// only skip work whose outcome they know). The product walk skips a subtree where the two
// states' classes agree on every string as long as the tokens' remaining bytes, and where both
// are in one state. `budget` bounds the nodes stepped; false when it runs out.
struct ProductItem {
  uint32_t node, depth, p, q;
};

bool SameForTokens(const Automaton& a, const TokenTrie& trie, const std::vector<uint32_t>& cls, const Separation& sep, uint32_t p,
                   uint32_t q, uint64_t* budget, std::vector<ProductItem>* scratch) {
  std::vector<ProductItem>& stack = *scratch;
  stack.clear();
  stack.push_back({0, 0, p, q});
  while (!stack.empty()) {
    const ProductItem it = stack.back();
    stack.pop_back();
    if (it.p == it.q) continue;
    const uint32_t apart = sep(cls[it.p], cls[it.q]);
    // MaxLength saturates at 65535: past that, nothing is known to be short enough to skip.
    const uint32_t remaining = trie.MaxLength(it.node) == UINT16_MAX ? UINT32_MAX - 1 : trie.MaxLength(it.node) - it.depth;
    if (apart == UINT32_MAX || apart > remaining) continue;
    if (apart == 0) return false;
    const uint32_t end = trie.SubtreeEnd(it.node);
    for (uint32_t c = it.node + 1; c < end; c = trie.SubtreeEnd(c)) {
      if (*budget == 0) return false;
      --*budget;
      const uint8_t b = trie.Label(c);
      if (a.TransOp(it.p, b) != a.TransOp(it.q, b)) return false;
      const uint32_t np = a.Next(it.p, b), nq = a.Next(it.q, b);
      if (np == nq) continue;
      // States of different round-0 classes fail wherever they are met: fail now, not after
      // the siblings are stepped (the answer is the same; a failing test is most tests).
      if (sep(cls[np], cls[nq]) == 0) return false;
      stack.push_back({c, it.depth + 1, np, nq});
    }
  }
  return true;
}

// Merges the refinement's classes whose states no token tells apart, though a longer string
// does (docs/engine.md, "The mask cache"): the word counts of `(\S+\s+){0,49}` differ only on
// strings with more space/non-space alternations than a token holds. Within a round-0 class,
// each class is tested against one group merged so far (token equivalence is an equivalence: one
// test per group is exact): the group last met under its deepest ancestor in the refinement's
// class tree, whose states the refinement kept with it longest. Untested or failed, it starts a
// group of its own: a missed merge costs a walk, never a mask. A failed test costs a product walk
// that found no shortcut, so tests are only made where a walk is dear (not from states with one
// live byte, that absorb plain text or that no plain text can kill, which walk in a few steps;
// and only in automata with many such states), each is bounded by
// kTestNodesPerApart times the square of how long a string told the two apart (states apart
// after two bytes are seldom equal for tokens, and such tests fail slowly; word counts are apart
// after many) and by kTestNodes, and the whole search by kBudgetPerNode per trie node.
constexpr uint64_t kTestNodes = uint64_t{1} << 16;
constexpr uint64_t kTestNodesPerApart = 1024;
constexpr uint64_t kBudgetPerNode = 128;
// PlainDepth's value for a state no plain text can kill (cut_tables.cpp).
constexpr uint16_t kNoPlainDeath = 0xFFFF;
// The merge runs when at least kMinCandidates states, and one in kCandidateShare, walk dear.
constexpr uint64_t kMinCandidates = 1024;
constexpr uint64_t kCandidateShare = 2;

void MergeByTokens(const Automaton& a, const TokenTrie* const* tries, const uint16_t* plainDepth, const std::vector<uint32_t>& parent,
                   const std::vector<uint32_t>& madeAt, std::vector<uint32_t>* clsOut) {
  std::vector<uint32_t>& cls = *clsOut;
  const uint32_t count = a.StateCount();
  // One state per class, in state order, grouped by round-0 class (the root of its tree).
  std::vector<uint32_t> rep(parent.size(), UINT32_MAX), root(parent.size(), 0), perRoot(parent.size(), 0);
  for (uint32_t x = 0; x < parent.size(); ++x) root[x] = parent[x] == UINT32_MAX ? x : root[parent[x]];
  for (uint32_t s = 1; s < count; ++s) {
    if (rep[cls[s]] != UINT32_MAX) continue;
    rep[cls[s]] = s;
    ++perRoot[root[cls[s]]];
  }
  // States with one live byte, that absorb plain text, or that no plain text can kill walk in
  // a few steps (the walk goes straight to the one child, or cuts the plain trie at once): a
  // test would cost more than it saves. (A test that succeeds walks both states with no cut.)
  const auto cheapWalk = [&](uint32_t st) {
    return a.singleByte[st] >= -1 || a.Is(st, kAbsorbing) || (plainDepth != nullptr && plainDepth[st] == kNoPlainDeath);
  };
  // The merge pays where most states walk dear (JSONSchemaBench's slow tail: o21142 10,135
  // candidates of 12,193 states, 10.4 s -> 1.3 s; o21115 75 %, o35866 68 %, o9906 50 %); with a
  // few hundred candidates (the median schema) or a minority of them (tool lists: 50 six-parameter
  // tools 20 %, 50 Glaiveai2K tools 28-41 %) its tests cost more than the walks they save (+40 %
  // of a median schema's engine time, 2-5x the masks phase of the tool lists, measured). A
  // measured bound, not a proof: the next step is to price a state's walk before testing it.
  // Counted before any per-group list is built: where the merge does not run (a 10,000-value
  // enum: 152k classes of one state each) those lists were a fifth of the masks phase.
  uint64_t candidates = 0;
  for (uint32_t x = 0; x < parent.size(); ++x) {
    if (rep[x] != UINT32_MAX && perRoot[root[x]] >= 2 && !cheapWalk(rep[x])) ++candidates;
  }
  if (candidates < kMinCandidates || candidates * kCandidateShare < count) return;
  std::vector<std::vector<uint32_t>> byRoot(parent.size());
  for (uint32_t s = 1; s < count; ++s) {
    if (rep[cls[s]] == s) byRoot[root[cls[s]]].push_back(cls[s]);
  }
  const Separation sep(parent, madeAt);
  uint64_t budget = 0;
  for (int t = 0; t < 2; ++t) budget += kBudgetPerNode * tries[t]->NodeCount();
  std::vector<uint32_t> into(parent.size(), UINT32_MAX);  // class -> the class it joins
  std::vector<uint32_t> groupUnder(parent.size(), UINT32_MAX);  // per class of the tree
  std::vector<ProductItem> scratch;
  for (const auto& members : byRoot) {
    if (members.size() < 2 || budget == 0) continue;
    for (uint32_t x : members) {
      // The group last met under the deepest class above x in the refinement's tree: the
      // states the refinement kept together with x longest.
      uint32_t best = UINT32_MAX;
      for (uint32_t z = x; z != UINT32_MAX && best == UINT32_MAX; z = parent[z]) best = groupUnder[z];
      const uint64_t apart = best == UINT32_MAX ? 0 : sep(best, x);
      uint32_t joined = UINT32_MAX;
      if (best != UINT32_MAX && budget > 0 && !cheapWalk(rep[x])) {
        uint64_t cap = std::min({budget, kTestNodes, kTestNodesPerApart * apart * apart});
        const uint64_t before = cap;
        bool same = true;
        for (int t = 0; t < 2 && same; ++t) same = SameForTokens(a, *tries[t], cls, sep, rep[best], rep[x], &cap, &scratch);
        budget -= before - cap;
        if (same) joined = best;
      }
      if (joined == UINT32_MAX) {
        joined = x;
      } else {
        into[x] = joined;
      }
      for (uint32_t z = x; z != UINT32_MAX && groupUnder[z] != joined; z = parent[z]) groupUnder[z] = joined;
    }
  }
  for (uint32_t s = 1; s < count; ++s) {
    if (into[cls[s]] != UINT32_MAX) cls[s] = into[cls[s]];
  }
}

}  // namespace

std::vector<uint32_t> TokenEquivalenceClasses(const Automaton& a, const std::vector<uint32_t>& profileOf, uint32_t depth,
                                              const TokenTrie* const* tries, const uint16_t* plainDepth) {
  const uint32_t count = a.StateCount();
  std::vector<uint32_t> cls(count, 0);
  KeyTable table(count);

  // Round 0: what the walk reads from the state itself.
  const Runs rows = CompressRows(a);
  const std::vector<uint8_t> settled = SettledStates(rows, count, depth);
  std::vector<uint32_t> keys;
  keys.reserve(static_cast<size_t>(count) * 6);
  std::vector<uint8_t> alone(count, 0);
  for (uint32_t s = 0; s < count; ++s) {
    // States with calls keep classes of their own; so do settled states. With counted
    // repetition the walk also reads the counter operations: the check on entering a state and
    // the one on ending the rule here (those on transitions are in the rounds' keys).
    alone[s] = a.Is(s, kHasCalls) || settled[s];
    keys.insert(keys.end(), {a.ruleOf[s], a.flags[s], profileOf[s], alone[s] ? s : UINT32_MAX, a.LiveOp(s), a.FinalOp(s)});
  }
  uint32_t classes = 1;  // class 0: the dead state
  // The classes as a tree: each class made by a split records the class it left and the length
  // of the strings that told them apart (round + 1); those of round 0 have no parent.
  std::vector<uint32_t> parent, madeAt;
  for (uint32_t s = 1; s < count; ++s) {
    if (alone[s]) {  // its key holds s: a new class, that no other state's key can meet
      cls[s] = classes++;
      continue;
    }
    const Span k{s * 6, 6};
    cls[s] = table.Find(keys, k, classes);
    if (cls[s] == classes) table.Insert(keys, k, classes++);
  }

  // Rounds 1..depth, Moore's refinement done incrementally: a state's key is the class it leads
  // to on each byte class (as runs), and it can only change when a successor changed class in the
  // round before. Each class keeps the key its members had when it was made (`classKey`, unset
  // for the classes of round 0 until their first member is looked at in round 1): members whose
  // successors did not move still have it, so only the states that lead into moved states are
  // looked at again. The looked-at states of a class are grouped by key; the group with the
  // class's key stays, the others become new classes (moved), and when every member was looked
  // at and none has the old key, the largest group keeps the id and gives it its key (a renaming
  // would only make more states look again). All keys of a round are read before any state
  // moves, so that after round k the classes are exactly "equal on every string of at most k
  // bytes".
  // A class of one member never splits: its states are never looked at again.
  std::vector<uint32_t> size(classes, 0);
  for (uint32_t s = 1; s < count; ++s) ++size[cls[s]];
  std::vector<uint32_t> dirty;
  for (uint32_t s = 1; s < count; ++s) {
    if (size[cls[s]] > 1) dirty.push_back(s);
  }
  std::vector<uint32_t> predBegin(count + 1, 0), preds;
  if (!dirty.empty()) {
    std::vector<uint32_t> last(count, UINT32_MAX), degree(count + 1, 0);
    for (uint32_t s = 1; s < count; ++s) {
      for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
        const uint32_t t = rows.runs[i].second;
        if (t != kDeadState && last[t] != s) {
          last[t] = s;
          ++degree[t];
        }
      }
    }
    for (uint32_t t = 0; t < count; ++t) predBegin[t + 1] = predBegin[t] + degree[t];
    preds.resize(predBegin[count]);
    std::vector<uint32_t> fill(predBegin.begin(), predBegin.end() - 1);
    std::fill(last.begin(), last.end(), UINT32_MAX);
    for (uint32_t s = 1; s < count; ++s) {
      for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
        const uint32_t t = rows.runs[i].second;
        if (t != kDeadState && last[t] != s) {
          last[t] = s;
          preds[fill[t]++] = s;
        }
      }
    }
  }
  const bool counting = !rows.ops.empty();
  const auto successorKey = [&](uint32_t s, std::vector<uint32_t>* out) {
    uint32_t prev = UINT32_MAX, prevOp = kNoCountOp;
    for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
      const auto& [c, t] = rows.runs[i];
      const uint32_t op = counting ? rows.ops[i] : kNoCountOp;
      if (cls[t] == prev && op == prevOp) continue;  // adjacent runs into one class read as one
      prev = cls[t];
      prevOp = op;
      out->push_back(c);
      out->push_back(prev);
      if (counting) out->push_back(op);
    }
  };

  // Each class's key, a span of `classKeys` (size 0 with `classKeySet` 0: not known yet).
  std::vector<uint32_t> classKeys;
  std::vector<Span> classKey(classes, Span{0, 0});
  std::vector<uint8_t> classKeySet(classes, 0);
  std::vector<uint32_t> changed, order, groupOf;
  std::vector<Span> keyOf;
  std::vector<uint8_t> isDirty(count, 0);
  struct Group {
    Span key;
    uint32_t members;
  };
  std::vector<Group> groups;
  std::vector<uint32_t> idOf;
  const auto saveKey = [&](Span k) {
    const Span out{static_cast<uint32_t>(classKeys.size()), k.size};
    classKeys.insert(classKeys.end(), keys.begin() + k.begin, keys.begin() + k.begin + k.size);
    return out;
  };
  const auto hasClassKey = [&](uint32_t x, Span k) {
    return classKeySet[x] && SameSpan(classKeys.data() + classKey[x].begin, classKey[x].size, keys.data() + k.begin, k.size);
  };
  uint32_t round = 0;
  parent.assign(classes, UINT32_MAX);
  madeAt.assign(classes, 0);
  const auto newClass = [&](uint32_t from, Span k, uint32_t members) {
    parent.push_back(from);
    madeAt.push_back(round + 1);
    classKey.push_back(saveKey(k));
    classKeySet.push_back(1);
    size.push_back(members);
    size[from] -= members;
    return classes++;
  };
  for (; round < depth && !dirty.empty(); ++round) {
    keys.clear();
    keyOf.clear();
    for (uint32_t s : dirty) {
      const uint32_t begin = static_cast<uint32_t>(keys.size());
      successorKey(s, &keys);
      keyOf.push_back({begin, static_cast<uint32_t>(keys.size()) - begin});
    }
    // The dirty states class by class, and within a class grouped by key.
    order.resize(dirty.size());
    for (size_t k = 0; k < dirty.size(); ++k) order[k] = static_cast<uint32_t>(k);
    // Ties in index order, as a stable sort would leave them (see minimize.cpp).
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return cls[dirty[x]] != cls[dirty[y]] ? cls[dirty[x]] < cls[dirty[y]] : x < y; });
    groupOf.assign(dirty.size(), 0);
    changed.clear();
    for (size_t i = 0; i < order.size();) {
      const uint32_t x = cls[dirty[order[i]]];
      size_t j = i + 1;
      while (j < order.size() && cls[dirty[order[j]]] == x) ++j;
      const uint32_t looked = static_cast<uint32_t>(j - i);
      // Which group keeps the id x: the one with the class's key (members not looked at have
      // that key too); when every member was looked at and none has it, the largest group,
      // whose key the class takes. Every other group becomes a new class; its members moved.
      if (looked == 1) {
        const uint32_t k = order[i];
        if (!hasClassKey(x, keyOf[k])) {
          if (!classKeySet[x] || size[x] == 1) {
            classKey[x] = saveKey(keyOf[k]);
            classKeySet[x] = 1;
          } else {
            cls[dirty[k]] = newClass(x, keyOf[k], 1);
            changed.push_back(dirty[k]);
          }
        }
        i = j;
        continue;
      }
      table.Clear();
      groups.clear();
      for (size_t m = i; m < j; ++m) {
        const uint32_t k = order[m];
        uint32_t g = table.Find(keys, keyOf[k], static_cast<uint32_t>(groups.size()));
        if (g == groups.size()) {
          table.Insert(keys, keyOf[k], g);
          groups.push_back({keyOf[k], 0});
        }
        ++groups[g].members;
        groupOf[k] = g;
      }
      uint32_t keep = UINT32_MAX;
      for (uint32_t g = 0; g < groups.size() && keep == UINT32_MAX; ++g) {
        if (hasClassKey(x, groups[g].key)) keep = g;
      }
      if (keep == UINT32_MAX && (!classKeySet[x] || looked == size[x])) {
        keep = 0;
        for (uint32_t g = 1; g < groups.size(); ++g) {
          if (groups[g].members > groups[keep].members) keep = g;
        }
        classKey[x] = saveKey(groups[keep].key);
        classKeySet[x] = 1;
      }
      idOf.assign(groups.size(), x);
      for (uint32_t g = 0; g < groups.size(); ++g) {
        if (g != keep) idOf[g] = newClass(x, groups[g].key, groups[g].members);
      }
      for (size_t m = i; m < j; ++m) {
        const uint32_t k = order[m];
        const uint32_t z = idOf[groupOf[k]];
        if (z != x) {
          cls[dirty[k]] = z;
          changed.push_back(dirty[k]);
        }
      }
      i = j;
    }
    for (uint32_t s : dirty) isDirty[s] = 0;
    dirty.clear();
    for (uint32_t t : changed) {
      for (uint32_t i = predBegin[t]; i < predBegin[t + 1]; ++i) {
        const uint32_t p = preds[i];
        if (!isDirty[p] && size[cls[p]] > 1) {
          isDirty[p] = 1;
          dirty.push_back(p);
        }
      }
    }
  }
  // Token-class columns (whole tokens taken by id) are not byte strings: no product walk sees them.
  if (tries != nullptr && !a.tokenEdges.Active()) {
    bool bytesOnly = true;
    std::vector<uint8_t> holdsByte(a.classCount, 0);
    for (int b = 0; b < 256; ++b) holdsByte[a.byteClass[b]] = 1;
    for (uint8_t h : holdsByte) bytesOnly = bytesOnly && h != 0;
    if (bytesOnly) MergeByTokens(a, tries, plainDepth, parent, madeAt, &cls);
  }
  // Dense ids in order of first appearance.
  std::vector<uint32_t> dense(classes, UINT32_MAX);
  uint32_t next = 1;
  dense[0] = 0;
  for (uint32_t s = 1; s < count; ++s) {
    uint32_t& d = dense[cls[s]];
    if (d == UINT32_MAX) d = next++;
    cls[s] = d;
  }
  return cls;
}

}  // namespace tagmask
