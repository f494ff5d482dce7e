// Liveness of marks (docs/engine.md, "Marks"). Inside a `marks` node the level's marks decide
// which ways on are still open: a mark already used closes every way through it, a required mark
// not yet used closes the end of the node. A state is viable with marks m iff some way out of
// its rule level accepts m; that condition is checked like a counter operation whenever a parse
// enters the state, so no mask allows a token after which the marks cannot work out (a dead end).
//
// The condition of a state is worked out as a disjunction of terms, each a conjunction "these
// bits clear, those set" (a least fixed point over the level's edges: byte transitions, calls,
// the end of the rule; an edge's operation turns each term of its target into one of its source).
// It is then written as one operation: common bits clear and set, and "some bit of markAny clear"
// for terms that differ in one clear bit each. Object members compile to exactly those: after
// `"na` one of the names starting with "na" must be unused. Conditions that need more than one
// such operation are refused.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dfa_builder.h"
#include "tagmask/error.h"

namespace tagmask {
namespace {

struct Term {
  uint32_t clear, need;
  bool operator==(const Term& o) const { return clear == o.clear && need == o.need; }
};

// x holds whenever y does (x asks for no more than y).
bool Weaker(const Term& x, const Term& y) { return (x.clear & ~y.clear) == 0 && (x.need & ~y.need) == 0; }

// Adds a term to a set of terms none of which is weaker than another.
void AddTerm(std::vector<Term>* set, const Term& t) {
  for (const Term& x : *set) {
    if (Weaker(x, t)) return;
  }
  set->erase(std::remove_if(set->begin(), set->end(), [&](const Term& x) { return Weaker(t, x); }), set->end());
  set->push_back(t);
}

// Closes a set of terms under consensus: "b clear and X" or "b set and Y" gives "X and Y". With
// the subsumption of AddTerm this keeps the set in its canonical form (all prime implicants), so
// "1 clear, or 1 set and 0 clear" becomes "1 clear or 0 clear", and equal conditions have equal
// sets.
void CloseTerms(std::vector<Term>* set) {
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<Term> snapshot = *set;
    for (const Term& x : snapshot) {
      for (const Term& y : snapshot) {
        const uint32_t opposite = x.clear & y.need;
        if (opposite == 0 || (opposite & (opposite - 1)) != 0) continue;  // exactly one bit in opposition
        if ((x.need & y.clear) != 0) continue;
        const Term r{(x.clear & ~opposite) | y.clear, x.need | (y.need & ~opposite)};
        if ((r.clear & r.need) != 0) continue;
        bool known = false;
        for (const Term& t : *set) known = known || Weaker(t, r);
        if (known) continue;
        AddTerm(set, r);
        changed = true;
      }
    }
  }
}

// The term before an edge with operation `o`, given a term after it; false when none.
bool Before(const CountOp& o, const Term& after, Term* before) {
  if (o.markReset) {
    // The marks after the edge are exactly markSet.
    if ((after.clear & o.markSet) != 0 || (after.need & ~o.markSet) != 0) return false;
    *before = {o.markClear, o.markNeed};
  } else {
    if (after.clear & o.markSet) return false;
    *before = {o.markClear | after.clear, o.markNeed | (after.need & ~o.markSet)};
  }
  return (before->clear & before->need) == 0;
}

uint32_t Bits(uint32_t x) {
  uint32_t n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}

constexpr uint32_t kExit = 0xFFFFFFFFu;
constexpr size_t kMaxTerms = 256;

// The operation that checks a disjunction of terms; false when one operation cannot.
bool AsOperation(const std::vector<Term>& terms, CountOp* out) {
  *out = CountOp{};
  if (terms.empty()) {
    out->lo = 1;  // no marks can end the node from here
    out->hi = 0;
    return true;
  }
  uint32_t clear = ~0u, need = ~0u;
  for (const Term& t : terms) {
    clear &= t.clear;
    need &= t.need;
  }
  uint32_t any = 0;
  std::vector<Term> others;
  for (const Term& t : terms) {
    const Term rest{t.clear & ~clear, t.need & ~need};
    if (rest.clear == 0 && rest.need == 0) {
      // The common part is itself a term (then it is the only one).
      out->markClear = clear;
      out->markNeed = need;
      return true;
    }
    if (rest.need == 0 && Bits(rest.clear) == 1) {
      any |= rest.clear;
    } else {
      others.push_back(rest);
    }
  }
  out->markClear = clear;
  out->markNeed = need;
  if (others.empty()) {
    out->markAny = any;
    return true;
  }
  // "these set" or "one of `any` clear" always holds when the set bits lie within `any`.
  for (const Term& t : others) {
    if (t.clear == 0 && (t.need & ~any) == 0) return true;
  }
  return false;
}

}  // namespace

void ComputeMarkLiveness(Automaton* a) {
  bool anyMarks = false;
  for (const CountOp& o : a->countOps) anyMarks = anyMarks || o.HasMarks();
  if (!anyMarks) return;
  const uint32_t count = a->StateCount();
  if (a->liveOps.empty()) a->liveOps.assign(count, kNoCountOp);
  const auto hasMarks = [&](uint32_t op) { return op != kNoCountOp && a->countOps[op].HasMarks(); };
  for (const AutomatonRule& rule : a->rules) {
    bool marked = false;
    for (uint32_t s = rule.firstState; s < rule.endState && !marked; ++s) {
      marked = hasMarks(a->FinalOp(s));
      if (!a->opRow.empty() && a->opRow[s] != Automaton::kNoOpRow) {
        for (uint32_t c = 0; c < a->classCount && !marked; ++c) marked = hasMarks(a->transOps[a->opRow[s] + c]);
      }
      for (uint32_t e = a->callBegin[s]; e < a->callBegin[s + 1] && !marked; ++e) marked = hasMarks(a->calls[e].op);
    }
    if (!marked) continue;
    const uint32_t first = rule.firstState, n = rule.endState - rule.firstState;
    // Edges of the level: (target local id or kExit, op), and predecessors.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> out(n);
    std::vector<std::vector<uint32_t>> preds(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t s = first + i;
      auto& edges = out[i];
      for (uint32_t c = 0; c < a->classCount; ++c) {
        const uint32_t t = a->NextByClass(s, c);
        if (t == kDeadState) continue;
        const uint32_t op = a->opRow.empty() || a->opRow[s] == Automaton::kNoOpRow ? kNoCountOp : a->transOps[a->opRow[s] + c];
        edges.push_back({t - first, op});
      }
      for (uint32_t e = a->callBegin[s]; e < a->callBegin[s + 1]; ++e) edges.push_back({a->calls[e].returnState - first, a->calls[e].op});
      if (a->Is(s, kFinal)) edges.push_back({kExit, a->FinalOp(s)});
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      for (const auto& [t, op] : edges) {
        if (t != kExit) preds[t].push_back(i);
      }
    }
    // Least fixed point: terms only ever get weaker, so the sets settle.
    std::vector<std::vector<Term>> live(n);
    std::vector<uint32_t> queue;
    std::vector<uint8_t> queued(n, 1);
    for (uint32_t i = n; i-- > 0;) queue.push_back(i);
    std::vector<Term> next;
    while (!queue.empty()) {
      const uint32_t i = queue.back();
      queue.pop_back();
      queued[i] = 0;
      next.clear();
      for (const auto& [t, op] : out[i]) {
        const CountOp o = op == kNoCountOp ? CountOp{} : a->countOps[op];
        Term before;
        if (t == kExit) {
          if (Before(o, Term{0, 0}, &before)) AddTerm(&next, before);
          continue;
        }
        for (const Term& after : live[t]) {
          if (Before(o, after, &before)) AddTerm(&next, before);
        }
      }
      CloseTerms(&next);
      if (next.size() > kMaxTerms) {
        throw Error(ErrorCode::InvalidGrammar, "rule '" + rule.name + "': the marks its states can still end with take more than " +
                                                   std::to_string(kMaxTerms) + " conditions; use fewer mark nodes");
      }
      std::sort(next.begin(), next.end(), [](const Term& x, const Term& y) { return x.clear != y.clear ? x.clear < y.clear : x.need < y.need; });
      if (next == live[i]) continue;
      live[i] = next;
      for (uint32_t p : preds[i]) {
        if (!queued[p]) {
          queued[p] = 1;
          queue.push_back(p);
        }
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      CountOp cond;
      if (!AsOperation(live[i], &cond)) {
        throw Error(ErrorCode::InvalidGrammar, "rule '" + rule.name + "': the marks with which it can still end from some point are not "
                                                   "one condition (bits clear, bits set, one of some bits clear); such marks cannot be "
                                                   "checked exactly");
      }
      if (cond.IsIdentity()) continue;
      const uint32_t s = first + i;
      // Together with the count's liveness (count_liveness.cpp), if any.
      CountOp live = a->liveOps[s] == kNoCountOp ? CountOp{} : a->countOps[a->liveOps[s]];
      if (cond.lo > cond.hi) {
        live.lo = 1;
        live.hi = 0;
      }
      live.markClear = cond.markClear;
      live.markNeed = cond.markNeed;
      live.markAny = cond.markAny;
      const uint32_t op = InternCountOp(a, live);
      a->liveOps[s] = op;
      a->flags[s] |= kCounted;
    }
  }
}

}  // namespace tagmask
