#include "minimize.h"

#include <algorithm>

#include "signature_table.h"
#include "tagmask/compile_control.h"

namespace tagmask {

std::vector<uint32_t> MinimizeStates(const MinimizeInput& in) {
  {
    std::vector<uint32_t> rep;
    if (MinimizeAcyclic(in, &rep)) return rep;
  }
  const uint32_t n = in.stateCount, k = in.symbolCount;
  const std::vector<uint8_t>& keep = *in.keep;
  const std::vector<uint32_t>& runBegin = *in.runBegin;
  const std::vector<SegmentRun>& runs = *in.runs;
  const auto takesPart = [&](uint32_t s) { return s == 0 || keep[s] != 0; };
  const auto target = [&](uint32_t t) { return (t != 0 && keep[t]) ? t : 0u; };
  // Call symbols: one per callee, or per (callee, counter operation) with counted repetition.
  std::vector<std::pair<uint32_t, uint32_t>> callKinds;
  for (const CallEdge& c : *in.calls) callKinds.emplace_back(c.rule, c.op);
  std::sort(callKinds.begin(), callKinds.end());
  callKinds.erase(std::unique(callKinds.begin(), callKinds.end()), callKinds.end());
  const auto callSymbol = [&](const CallEdge& c) {
    return static_cast<uint32_t>(std::lower_bound(callKinds.begin(), callKinds.end(), std::make_pair(c.rule, c.op)) - callKinds.begin());
  };
  // The segments with a live transition, as maximal intervals (adjacent runs to different
  // targets merged): two states with the same live set get the same list.
  const auto liveIntervals = [&](uint32_t s, std::vector<std::pair<uint32_t, uint32_t>>* out) {
    out->clear();
    for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) {
      const SegmentRun& r = runs[i];
      if (target(r.to) == 0) continue;
      if (!out->empty() && out->back().second + 1 == r.lo) {
        out->back().second = r.hi;
      } else {
        out->emplace_back(r.lo, r.hi);
      }
    }
  };
  // What a state does to the counter: (segment, operation) of its live transitions that have
  // one, in segment order (transitions into dead states left out).
  const auto opsOf = [&](uint32_t s, std::vector<std::pair<uint32_t, uint32_t>>* out) {
    out->clear();
    if (in.transOp == nullptr) return;
    for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) {
      const SegmentRun& r = runs[i];
      if (target(r.to) == 0) continue;
      for (uint32_t c = r.lo; c <= r.hi; ++c) {
        const uint32_t op = (*in.transOp)[static_cast<size_t>(s) * k + c];
        if (op != 0) out->emplace_back(c, op);
      }
    }
  };
  const auto finalOpOf = [&](uint32_t s) -> uint32_t { return in.finalOp == nullptr ? 0u : (*in.finalOp)[s]; };
  const auto regionOf = [&](uint32_t s) -> uint32_t { return in.region == nullptr ? 0u : (*in.region)[s]; };

  // Inverse transitions, by target: (symbol, source). Symbols k.. are callees. Transitions into
  // the dead state are left out: the initial partition already separates states whose sets of
  // live symbols differ, so no block ever splits on where a symbol is dead.
  std::vector<uint32_t> invBegin(n + 1, 0);
  const auto forEachEdge = [&](auto&& fn) {
    for (uint32_t s = 1; s < n; ++s) {
      if (!takesPart(s)) continue;
      for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) {
        const uint32_t t = target(runs[i].to);
        if (t == 0) continue;
        for (uint32_t c = runs[i].lo; c <= runs[i].hi; ++c) fn(t, c, s);
      }
      for (uint32_t e = (*in.callBegin)[s]; e < (*in.callBegin)[s + 1]; ++e) {
        const CallEdge& call = (*in.calls)[e];
        if (in.liveCall(call)) fn(target(call.returnState), k + callSymbol(call), s);
      }
    }
  };
  forEachEdge([&](uint32_t t, uint32_t, uint32_t) { ++invBegin[t + 1]; });
  for (uint32_t i = 0; i < n; ++i) invBegin[i + 1] += invBegin[i];
  std::vector<std::pair<uint32_t, uint32_t>> inv(invBegin[n]);
  {
    std::vector<uint32_t> at(invBegin.begin(), invBegin.end() - 1);
    forEachEdge([&](uint32_t t, uint32_t sym, uint32_t s) { inv[at[t]++] = {sym, s}; });
  }

  // Initial partition: states with the same signature (rule, finality, the end's counter
  // operation, region, the set of segments with a live transition, what those transitions do to
  // the counter, and the set of callees) start in one block, so that missing edges never have to
  // be represented. Signatures are interned whole: grouping by a hash and then comparing
  // neighbours in hash order split a class wherever a colliding state of another class sorted
  // into it, and refinement never merges blocks again.
  std::vector<uint32_t> order;
  std::vector<uint32_t> classOf(n, 0);
  std::vector<uint32_t> classSize;
  {
    SignatureTable classes(n / 4);
    std::vector<uint32_t> sig, callees;
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t s = 0; s < n; ++s) {
      if (!takesPart(s)) continue;
      order.push_back(s);
      sig.clear();
      if (s == 0) {
        sig.push_back(UINT32_MAX);  // the dead state: shorter than any other signature
      } else {
        sig.insert(sig.end(), {(*in.ruleOf)[s], (*in.final)[s], finalOpOf(s), regionOf(s)});
        liveIntervals(s, &pairs);
        sig.push_back(static_cast<uint32_t>(pairs.size()));
        for (const auto& [lo, hi] : pairs) sig.insert(sig.end(), {lo, hi});
        opsOf(s, &pairs);
        sig.push_back(static_cast<uint32_t>(pairs.size()));
        for (const auto& [c, op] : pairs) sig.insert(sig.end(), {c, op});
        callees.clear();
        for (uint32_t e = (*in.callBegin)[s]; e < (*in.callBegin)[s + 1]; ++e) {
          if (in.liveCall((*in.calls)[e])) callees.push_back(callSymbol((*in.calls)[e]));
        }
        std::sort(callees.begin(), callees.end());
        callees.erase(std::unique(callees.begin(), callees.end()), callees.end());
        sig.insert(sig.end(), callees.begin(), callees.end());
      }
      bool added = false;
      classOf[s] = classes.Intern(sig, &added);
      if (added) classSize.push_back(0);
      ++classSize[classOf[s]];
    }
  }

  // One block per class, its states in ascending order (a counting sort of `order`).
  const uint32_t m = static_cast<uint32_t>(order.size());
  std::vector<uint32_t> elems(m), loc(n, 0), blk(n, 0);
  std::vector<uint32_t> first, end, markedEnd;
  std::vector<uint8_t> inWork;
  std::vector<uint32_t> work;
  {
    uint32_t at = 0;
    for (uint32_t size : classSize) {
      first.push_back(at);
      at += size;
      end.push_back(at);
    }
    std::vector<uint32_t> next(first);
    for (uint32_t s : order) {
      const uint32_t b = classOf[s];
      blk[s] = b;
      loc[s] = next[b];
      elems[next[b]++] = s;
    }
  }
  markedEnd = first;
  inWork.assign(first.size(), 1);
  for (uint32_t b = 0; b < first.size(); ++b) work.push_back(b);

  // Symbols: byte segments, then one per callee.
  uint32_t symbolCount = k;
  for (const auto& [sym, src] : inv) symbolCount = std::max(symbolCount, sym + 1);
  std::vector<uint32_t> symCount(symbolCount, 0), symAt(symbolCount, 0), symbols;
  std::vector<uint32_t> sources;
  std::vector<uint32_t> touched;
  for (uint32_t round = 1; !work.empty(); ++round) {
    if ((round & 4095) == 0) CompileCheckpoint();
    const uint32_t splitter = work.back();
    work.pop_back();
    inWork[splitter] = 0;
    // Predecessors of the splitter, bucketed by symbol (a counting sort).
    symbols.clear();
    size_t total = 0;
    for (uint32_t i = first[splitter]; i < end[splitter]; ++i) {
      const uint32_t t = elems[i];
      for (uint32_t e = invBegin[t]; e < invBegin[t + 1]; ++e) {
        if (symCount[inv[e].first]++ == 0) symbols.push_back(inv[e].first);
        ++total;
      }
    }
    uint32_t at = 0;
    for (uint32_t sym : symbols) {
      symAt[sym] = at;
      at += symCount[sym];
    }
    sources.resize(total);
    for (uint32_t i = first[splitter]; i < end[splitter]; ++i) {
      const uint32_t t = elems[i];
      for (uint32_t e = invBegin[t]; e < invBegin[t + 1]; ++e) sources[symAt[inv[e].first]++] = inv[e].second;
    }
    size_t g = 0;
    for (uint32_t sym : symbols) {
      const size_t groupEnd = g + symCount[sym];
      symCount[sym] = 0;
      touched.clear();
      for (; g < groupEnd; ++g) {
        const uint32_t s = sources[g];
        const uint32_t b = blk[s];
        const uint32_t pos = loc[s];
        if (pos < markedEnd[b]) continue;
        if (markedEnd[b] == first[b]) touched.push_back(b);
        const uint32_t other = elems[markedEnd[b]];
        std::swap(elems[pos], elems[markedEnd[b]]);
        loc[other] = pos;
        loc[s] = markedEnd[b];
        ++markedEnd[b];
      }
      for (uint32_t b : touched) {
        if (markedEnd[b] == end[b]) {
          markedEnd[b] = first[b];
          continue;
        }
        // The marked front becomes a new block.
        const uint32_t nb = static_cast<uint32_t>(first.size());
        first.push_back(first[b]);
        end.push_back(markedEnd[b]);
        markedEnd.push_back(first[b]);
        inWork.push_back(0);
        first[b] = markedEnd[b];
        for (uint32_t i = first[nb]; i < end[nb]; ++i) blk[elems[i]] = nb;
        if (inWork[b]) {
          inWork[nb] = 1;
          work.push_back(nb);
        } else {
          const uint32_t smaller = (end[nb] - first[nb]) <= (end[b] - first[b]) ? nb : b;
          inWork[smaller] = 1;
          work.push_back(smaller);
        }
      }
    }
  }

  std::vector<uint32_t> rep(n, 0);
  std::vector<uint32_t> smallest(first.size(), UINT32_MAX);
  for (uint32_t s : order) smallest[blk[s]] = std::min(smallest[blk[s]], s);
  for (uint32_t s : order) rep[s] = smallest[blk[s]];
  return rep;
}

}  // namespace tagmask
