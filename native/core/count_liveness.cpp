// Liveness of counted nodes (docs/engine.md, "Counted repetition"). Inside a counted node the
// automaton has the item once; the count of units so far decides whether the node can still end
// within [min, max]. A state is viable with count c iff some way out of the node accepts c: the
// end of the node (c + k units on the way must lie in [min, max]), or an edge that resets the
// counter (its own condition on c). When the counts each state accepts form one range
// [lo, hi], that range is checked like a counter operation whenever a parse enters the state,
// so no mask ever allows a token after which the node cannot end (a dead end).
//
// hi(s) is the best of the ways out minus the units on the way (a shortest-path problem), lo(s)
// the least (unbounded below, so 0, when a cycle that adds units lies on a way out). The counts
// a state accepts are that whole range when, for every group of states joined by cycles that
// add nothing, the ranges its edges give are contiguous (an induction on the count, which every
// other edge raises). Nodes where they are not (a fixed length, say, and only even lengths) are
// refused: an exact condition would need more than one range.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "dfa_builder.h"
#include "tagmask/error.h"

namespace tagmask {
namespace {


struct Edge {
  uint32_t to;  // a state of the node, or kExit
  uint32_t weight;
  // For a way out: the counts it accepts.
  int64_t lo = 0, hi = 0;
};
constexpr uint32_t kExit = 0xFFFFFFFFu;
constexpr int64_t kNoHi = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kNoLo = std::numeric_limits<int64_t>::min() / 4;

// Strongly connected components (Tarjan, iterative) of the graph restricted to `use` edges.
template <class UseEdge>
std::vector<uint32_t> Components(const std::vector<std::vector<Edge>>& out, UseEdge use, uint32_t* count) {
  const uint32_t n = static_cast<uint32_t>(out.size());
  std::vector<int64_t> index(n, -1), low(n, 0);
  std::vector<uint8_t> onStack(n, 0);
  std::vector<uint32_t> comp(n, 0), stack;
  std::vector<std::pair<uint32_t, size_t>> dfs;
  int64_t counter = 0;
  *count = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    dfs.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!dfs.empty()) {
      auto& [v, i] = dfs.back();
      if (i < out[v].size()) {
        const Edge e = out[v][i++];
        if (e.to == kExit || !use(e)) continue;
        if (index[e.to] < 0) {
          index[e.to] = low[e.to] = counter++;
          stack.push_back(e.to);
          onStack[e.to] = 1;
          dfs.push_back({e.to, 0});
        } else if (onStack[e.to]) {
          low[v] = std::min(low[v], index[e.to]);
        }
        continue;
      }
      const uint32_t done = v;
      dfs.pop_back();
      if (!dfs.empty()) low[dfs.back().first] = std::min(low[dfs.back().first], low[done]);
      if (low[done] == index[done]) {
        uint32_t x;
        do {
          x = stack.back();
          stack.pop_back();
          onStack[x] = 0;
          comp[x] = *count;
        } while (x != done);
        ++*count;
      }
    }
  }
  return comp;
}

// The range of counts each state of one counted node accepts (local ids 0..n-1), checked to be
// exact. Empty ranges have lo > hi.
void Solve(const std::vector<std::vector<Edge>>& out, const std::string& where, std::vector<int64_t>* lo, std::vector<int64_t>* hi) {
  const uint32_t n = static_cast<uint32_t>(out.size());
  std::vector<std::vector<Edge>> in(n);
  for (uint32_t s = 0; s < n; ++s) {
    for (const Edge& e : out[s]) {
      if (e.to != kExit) in[e.to].push_back({s, e.weight});
    }
  }
  // hi: the best way out, less the units on the way (Dijkstra on "how far below the best").
  hi->assign(n, kNoLo);
  using Item = std::pair<int64_t, uint32_t>;  // (-hi, state)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (uint32_t s = 0; s < n; ++s) {
    for (const Edge& e : out[s]) {
      if (e.to == kExit && e.lo <= e.hi) (*hi)[s] = std::max((*hi)[s], e.hi);
    }
    if ((*hi)[s] != kNoLo) queue.push({-(*hi)[s], s});
  }
  while (!queue.empty()) {
    const auto [negative, t] = queue.top();
    queue.pop();
    if (-negative != (*hi)[t]) continue;
    for (const Edge& e : in[t]) {
      const int64_t v = (*hi)[t] - e.weight;
      if (v > (*hi)[e.to]) {
        (*hi)[e.to] = v;
        queue.push({-v, e.to});
      }
    }
  }
  // lo: the least way out, less the units on the way; a cycle adding units on a way out makes
  // it unbounded below. Tarjan numbers components successors first.
  uint32_t comps = 0;
  const std::vector<uint32_t> comp = Components(out, [](const Edge&) { return true; }, &comps);
  std::vector<std::vector<uint32_t>> members(comps);
  std::vector<uint8_t> pumps(comps, 0);
  for (uint32_t s = 0; s < n; ++s) {
    members[comp[s]].push_back(s);
    for (const Edge& e : out[s]) {
      if (e.to != kExit && comp[e.to] == comp[s] && e.weight > 0) pumps[comp[s]] = 1;
    }
  }
  lo->assign(n, kNoHi);
  std::vector<int64_t> clo(comps, kNoHi);
  for (uint32_t c = 0; c < comps; ++c) {
    int64_t best = kNoHi;
    for (uint32_t s : members[c]) {
      for (const Edge& e : out[s]) {
        if (e.to == kExit) {
          if (e.lo <= e.hi) best = std::min(best, e.lo);
        } else if (comp[e.to] != c && clo[comp[e.to]] != kNoHi) {
          best = std::min(best, clo[comp[e.to]] - e.weight);
        }
      }
    }
    if (best != kNoHi && pumps[c]) best = kNoLo;
    clo[c] = best;
    for (uint32_t s : members[c]) (*lo)[s] = best == kNoHi ? kNoHi : std::max<int64_t>(best, 0);
  }
  for (uint32_t s = 0; s < n; ++s) {
    if ((*hi)[s] == kNoLo) (*lo)[s] = kNoHi;  // no way out
  }
  // Exactness, per group of states joined by cycles that add nothing.
  uint32_t zeroComps = 0;
  const std::vector<uint32_t> zero = Components(out, [](const Edge& e) { return e.weight == 0; }, &zeroComps);
  std::vector<std::vector<std::pair<int64_t, int64_t>>> ranges(zeroComps);
  for (uint32_t s = 0; s < n; ++s) {
    for (const Edge& e : out[s]) {
      int64_t a, b;
      if (e.to == kExit) {
        a = std::max<int64_t>(e.lo, 0);
        b = e.hi;
      } else {
        if (zero[e.to] == zero[s] && e.weight == 0) continue;
        if ((*lo)[e.to] > (*hi)[e.to]) continue;
        a = std::max<int64_t>((*lo)[e.to] - e.weight, 0);
        b = (*hi)[e.to] - e.weight;
      }
      if (a <= b) ranges[zero[s]].push_back({a, b});
    }
  }
  for (auto& r : ranges) {
    std::sort(r.begin(), r.end());
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i].first > r[i - 1].second + 1) {
        throw Error(ErrorCode::InvalidGrammar, where + ": the counts of units a counted node can still end with from some point are not a "
                                                       "range (e.g. a fixed length and only even lengths); such a node cannot be counted exactly");
      }
      r[i].second = std::max(r[i].second, r[i - 1].second);
    }
  }
}

}  // namespace

void ComputeLiveness(const NfaProgram& program, const std::vector<uint32_t>& stateRegion, Automaton* a) {
  const uint32_t count = a->StateCount();
  std::vector<std::vector<uint32_t>> statesOf(program.regions.size() + 1);
  for (uint32_t s = 1; s < count; ++s) {
    if (stateRegion[s] != 0) statesOf[stateRegion[s]].push_back(s);
  }
  a->liveOps.assign(count, kNoCountOp);
  std::vector<uint32_t> local(count, UINT32_MAX);
  for (uint32_t r = 1; r < statesOf.size(); ++r) {
    const std::vector<uint32_t>& states = statesOf[r];
    if (states.empty()) continue;
    const int64_t min = program.regions[r - 1].min;
    const int64_t max = program.regions[r - 1].max == kNoCountLimit ? kNoHi : program.regions[r - 1].max;
    for (uint32_t i = 0; i < states.size(); ++i) local[states[i]] = i;
    std::vector<std::vector<Edge>> out(states.size());
    for (uint32_t i = 0; i < states.size(); ++i) {
      const uint32_t s = states[i];
      const auto edge = [&](uint32_t t, uint32_t op) {
        const CountOp o = op == kNoCountOp ? CountOp{} : a->countOps[op];
        const int64_t opHi = o.hi == kNoCountLimit ? kNoHi : o.hi;
        if (o.reset) {
          // The counter starts over: what is left of this node is the operation's own condition.
          out[i].push_back({kExit, 0, o.lo, opHi});
        } else if (t != kDeadState && stateRegion[t] == r) {
          out[i].push_back({local[t], o.add, 0, 0});
        } else {
          // The node ends on the way (counts c + add in [min, max], and in the op's range).
          out[i].push_back({kExit, o.add, std::max<int64_t>(min - o.add, o.lo), std::min<int64_t>(max - o.add, opHi)});
        }
      };
      for (uint32_t c = 0; c < a->classCount; ++c) {
        const uint32_t t = a->NextByClass(s, c);
        if (t == kDeadState) continue;
        edge(t, a->opRow.empty() || a->opRow[s] == Automaton::kNoOpRow ? kNoCountOp : a->transOps[a->opRow[s] + c]);
      }
      for (uint32_t e = a->callBegin[s]; e < a->callBegin[s + 1]; ++e) edge(a->calls[e].returnState, a->calls[e].op);
      if (a->Is(s, kFinal)) edge(kDeadState, a->FinalOp(s));
    }
    std::vector<int64_t> lo, hi;
    Solve(out, "rule '" + a->rules[a->ruleOf[states[0]]].name + "'", &lo, &hi);
    for (uint32_t i = 0; i < states.size(); ++i) {
      CountOp live;
      if (lo[i] > hi[i] || hi[i] < 0) {
        live.lo = 1;  // no count can end the node from here
        live.hi = 0;
      } else {
        live.lo = static_cast<uint32_t>(std::min<int64_t>(lo[i], kMaxCountBound));
        if (hi[i] < kNoHi / 2) live.hi = static_cast<uint32_t>(std::min<int64_t>(hi[i], kMaxCountBound));
      }
      if (live.IsIdentity()) continue;
      const uint32_t op = InternCountOp(a, live);
      a->liveOps[states[i]] = op;
      a->flags[states[i]] |= kCounted;
    }
    for (uint32_t s : states) local[s] = UINT32_MAX;
  }
}

}  // namespace tagmask
