// NFAs to the pushdown automaton: subset construction per rule over byte segments, trimming of
// states that cannot lead to an end (and of calls to rules that match nothing), minimization,
// byte classes, state flags, and the left-recursion check.
#include "dfa_builder.h"

#include <algorithm>
#include <type_traits>

#include "nfa_index.h"
#include "subset_blowup.h"
#include "tagmask/compile_control.h"
#include "tagmask/error.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {
namespace {

template <class T>
uint64_t HashSet(const T* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint64_t>(p[i]) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h;
}

// Bound on the NFA states all subsets of one rule hold together: nested unbounded repeats of
// long items make subsets large, and the work grows with their total size.
constexpr size_t kMaxSubsetWork = size_t{1} << 23;

// The counter operations met on epsilon paths inside one rule's closures (count_op.h), each with
// the repeat nodes it came from (to name them when two paths disagree).
class PendingOps {
 public:
  PendingOps() : ops_(1), nodes_(1), regions_(1, 0) {}
  const CountOp& Op(uint32_t id) const { return ops_[id]; }
  /// The counted node whose count the operation last read or changed (0: none).
  uint32_t Region(uint32_t id) const { return regions_[id]; }
  // The operation `id` followed by the primitive `step`, or UINT32_MAX when no count passes it.
  uint32_t Then(uint32_t id, const Nfa::CountStep& step) {
    CountOp op = ops_[id];
    if (!op.Then(step.kind, step.value, step.modulus)) return UINT32_MAX;
    std::vector<uint32_t> nodes = nodes_[id];
    if (std::find(nodes.begin(), nodes.end(), step.node) == nodes.end()) nodes.push_back(step.node);
    const uint32_t region = step.region != 0 ? step.region : regions_[id];
    for (uint32_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i] == op && regions_[i] == region) {
        for (uint32_t n : nodes) {
          if (std::find(nodes_[i].begin(), nodes_[i].end(), n) == nodes_[i].end()) nodes_[i].push_back(n);
        }
        return i;
      }
    }
    ops_.push_back(op);
    nodes_.push_back(std::move(nodes));
    regions_.push_back(region);
    return static_cast<uint32_t>(ops_.size()) - 1;
  }
  [[noreturn]] void Conflict(uint32_t x, uint32_t y) const {
    CountConflict c;
    for (uint32_t id : {x, y}) c.nodes.insert(c.nodes.end(), nodes_[id].begin(), nodes_[id].end());
    throw c;
  }

 private:
  std::vector<CountOp> ops_;
  std::vector<std::vector<uint32_t>> nodes_;
  std::vector<uint32_t> regions_;
};

// Operations of the whole automaton, by value; index 0 is kNoCountOp.
class CountOpTable {
 public:
  CountOpTable() : ops_(1) {}
  uint32_t Intern(const CountOp& op) {
    if (op.IsIdentity()) return kNoCountOp;
    for (uint32_t i = 1; i < ops_.size(); ++i) {
      if (ops_[i] == op) return i;
    }
    ops_.push_back(op);
    return static_cast<uint32_t>(ops_.size()) - 1;
  }
  std::vector<CountOp> Take() { return std::move(ops_); }

 private:
  std::vector<CountOp> ops_;
};

// The subset construction of one rule. Local state ids start at 0; transitions hold local id + 1
// (0 = dead). Columns: the byte segments, then one per token class.
//
// With counted repetition (kCounted) a subset element is an NFA state together with the counter
// operation of the epsilon path that reached it (high and low 32 bits), and each transition,
// call edge and end gets the operation of its source elements. Two paths reaching one NFA state
// with different operations, or one byte leaving elements with different operations, mean the
// count cannot follow the bytes: a CountConflict.
template <bool kCounted>
class SubsetBuilder {
  using Elem = std::conditional_t<kCounted, uint64_t, uint32_t>;

 public:
  SubsetBuilder(const NfaIndex& index, const Nfa& nfa, const std::vector<uint32_t>& stateRegion,
                const std::vector<NfaProgram::Region>& regions, const std::array<uint8_t, 256>& segOf,
                uint32_t segCount, const TokenClasses* tokens, uint32_t stateLimit, const std::string& ruleName, CountOpTable* table,
                SubsetBlowupProver* prover)
      : index_(index), nfa_(nfa), stateRegion_(stateRegion), regions_(regions), segOf_(segOf), segCount_(segCount), tokens_(tokens),
        width_(segCount + (tokens ? tokens->count : 0)), stateLimit_(stateLimit), ruleName_(ruleName), table_(table), prover_(prover),
        mark_(nfa.stateCount, 0), singleId_(nfa.stateCount, UINT32_MAX), buckets_(width_) {
    if (kCounted) {
      opAt_.assign(nfa.stateCount, 0);
      segOp_.assign(width_, 0);
    }
    // The fewest bits of a proven blowup (subset_blowup.h) that pass a bound: 2^k subsets, or
    // k * 2^(k-1) NFA states held by them.
    for (uint32_t k = 1; k < 63; ++k) {
      if ((uint64_t{1} << k) > stateLimit_ || k * (uint64_t{1} << (k - 1)) > kMaxSubsetWork) {
        wantBits_ = k;
        break;
      }
    }
  }

  RuleDfa Run(uint32_t start, uint32_t final) {
    final_ = final;
    RuleDfa dfa;
    std::vector<Elem> set{static_cast<Elem>(start)};
    Close(&set);
    Intern(set);
    std::vector<std::pair<uint64_t, uint32_t>> callTargets;  // ((callee, op), nfa target)
    dfa.runBegin.push_back(0);
    for (uint32_t s = 0; s < setBegin_.size(); ++s) {
      if ((s & 1023) == 1023) {
        CompileCheckpoint();
        if (!kCounted && pool_.size() >= nextProof_) TryProveBlowup(start);
      }
      if (!kCounted && setEnd_[s] - setBegin_[s] == 1 && DirectRow(static_cast<uint32_t>(pool_[setBegin_[s]]), &dfa)) continue;
      // Copy: interning below may grow the pool.
      members_.assign(pool_.begin() + setBegin_[s], pool_.begin() + setEnd_[s]);
      const std::vector<Elem>& members = members_;
      uint32_t finalOp = kNoFinal;
      for (Elem e : members) {
        if (StateOf(e) == final) finalOp = OpOf(e);
      }
      dfa.final.push_back(finalOp != kNoFinal ? 1 : 0);
      if (kCounted) dfa.region.push_back(RegionOf(members));
      if (kCounted) {
        dfa.transOp.resize(static_cast<size_t>(s + 1) * width_, kNoCountOp);
        // Only the condition matters at the end of the rule.
        CountOp end = finalOp == kNoFinal ? CountOp{} : ops_.Op(finalOp);
        end.add = 0;
        end.reset = 0;
        end.markSet = 0;
        end.markReset = 0;
        dfa.finalOp.push_back(table_->Intern(end));
      }
      // Byte transitions: without counters, by the intervals where the targets stay the same
      // (ByteRuns); with counters, segment by segment, checking each segment's operation.
      touched_.clear();
      if constexpr (!kCounted) ByteRuns(members, &dfa);
      for (Elem e : members) {
        const uint32_t q = StateOf(e);
        if constexpr (kCounted) {
          for (uint32_t i = index_.rangeBegin[q]; i < index_.rangeBegin[q + 1]; ++i) {
            const Nfa::Range& r = index_.ranges[i];
            for (uint32_t k = segOf_[r.lo]; k <= segOf_[r.hi]; ++k) {
              if (buckets_[k].empty()) {
                touched_.push_back(k);
                segOp_[k] = OpOf(e);
              } else if (segOp_[k] != OpOf(e)) {
                ops_.Conflict(segOp_[k], OpOf(e));
              }
              buckets_[k].push_back(static_cast<Elem>(r.to));
            }
          }
        }
        // Token edges: one column per token class the edge's node takes.
        if (!index_.HasTokens(q)) continue;
        if (kCounted && OpOf(e) != 0) {
          throw Error(ErrorCode::InvalidGrammar, "rule '" + ruleName_ + "': a token node right after a counter operation (inside counted "
                                                 "repetition) is not supported");
        }
        for (uint32_t t = index_.tokenBegin[q]; t < index_.tokenBegin[q + 1]; ++t) {
          for (uint32_t c : tokens_->ofNode.at(index_.tokens[t].node)) {
            const uint32_t k = segCount_ + c;
            if (buckets_[k].empty()) {
              touched_.push_back(k);
              if (kCounted) segOp_[k] = 0;
            }
            buckets_[k].push_back(static_cast<Elem>(index_.tokens[t].to));
          }
        }
      }
      std::sort(touched_.begin(), touched_.end());
      uint32_t previousSeg = UINT32_MAX, previousTarget = 0;
      for (uint32_t k : touched_) {
        std::vector<Elem>& b = buckets_[k];
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        uint32_t target;
        if (previousSeg != UINT32_MAX && buckets_[previousSeg] == b) {
          target = previousTarget;
        } else if (b.size() == 1 && index_.epsBegin[static_cast<uint32_t>(b[0])] == index_.epsBegin[static_cast<uint32_t>(b[0]) + 1]) {
          // One NFA state without epsilon edges is its own closure (or an empty one): a trie
          // position of an enum or a literal's next byte. No closure walk, no sort.
          const uint32_t q = static_cast<uint32_t>(b[0]);
          closed_.clear();
          if (Keeps(q)) closed_.push_back(Make(q, 0));
          target = Intern(closed_) + 1;
        } else {
          closed_.assign(b.begin(), b.end());
          target = CloseAndIntern(&closed_) + 1;
        }
        if (dfa.runs.size() > dfa.runBegin.back() && dfa.runs.back().hi + 1u == k && dfa.runs.back().to == target) {
          dfa.runs.back().hi = k;
        } else {
          dfa.runs.push_back({k, k, target});
        }
        // Counter operations stay dense per segment (transOp), so runs need not split on them.
        if (kCounted) dfa.transOp[static_cast<size_t>(s) * width_ + k] = table_->Intern(ops_.Op(segOp_[k]));
        if (previousSeg != UINT32_MAX) buckets_[previousSeg].clear();
        previousSeg = k;
        previousTarget = target;
      }
      if (previousSeg != UINT32_MAX) buckets_[previousSeg].clear();
      dfa.runBegin.push_back(static_cast<uint32_t>(dfa.runs.size()));
      // Call edges, grouped by callee (and operation: two operations are two edges, which the
      // matcher follows as two stacks).
      callTargets.clear();
      for (Elem e : members) {
        const uint32_t q = StateOf(e);
        for (uint32_t i = index_.callBegin[q]; i < index_.callBegin[q + 1]; ++i) {
          callTargets.emplace_back((static_cast<uint64_t>(index_.calls[i].rule) << 32) | OpOf(e), index_.calls[i].to);
        }
      }
      std::sort(callTargets.begin(), callTargets.end());
      dfa.callBegin.push_back(static_cast<uint32_t>(dfa.calls.size()));
      for (size_t i = 0; i < callTargets.size();) {
        size_t j = i;
        closed_.clear();
        while (j < callTargets.size() && callTargets[j].first == callTargets[i].first) closed_.push_back(static_cast<Elem>(callTargets[j++].second));
        CallEdge edge{static_cast<uint32_t>(callTargets[i].first >> 32), CloseAndIntern(&closed_)};
        if (kCounted) edge.op = table_->Intern(ops_.Op(static_cast<uint32_t>(callTargets[i].first)));
        dfa.calls.push_back(edge);
        i = j;
      }
    }
    dfa.callBegin.push_back(static_cast<uint32_t>(dfa.calls.size()));
    dfa.oneByteStates = oneByteStates_;
    return dfa;
  }

 private:
  static constexpr uint32_t kNoFinal = UINT32_MAX;
  static uint32_t StateOf(Elem e) { return kCounted ? static_cast<uint32_t>(static_cast<uint64_t>(e) >> 32) : static_cast<uint32_t>(e); }
  static uint32_t OpOf(Elem e) { return kCounted ? static_cast<uint32_t>(e) : 0u; }
  static Elem Make(uint32_t state, uint32_t op) {
    return kCounted ? static_cast<Elem>((static_cast<uint64_t>(state) << 32) | op) : static_cast<Elem>(state);
  }
  // The counted node a subset lies in: the one region its members are tagged with.
  uint32_t RegionOf(const std::vector<Elem>& members) const {
    uint32_t region = 0;
    for (Elem e : members) {
      const uint32_t q = StateOf(e);
      uint32_t r = q < stateRegion_.size() ? stateRegion_[q] : 0;
      // A pending check (or count) of a node keeps the state in it: its count still decides.
      if (r == 0 && OpOf(e) != 0 && !ops_.Op(OpOf(e)).reset) r = ops_.Region(OpOf(e));
      if (r == 0 || r == region) continue;
      // Two counted nodes overlap (one byte could belong to either): the compiler builds them as
      // rules of their own and tries again.
      if (region != 0) throw CountConflict{{regions_[region - 1].node, regions_[r - 1].node}};
      region = r;
    }
    return region;
  }
  // The byte transitions of a subset without counter operations, appended to dfa.runs. The
  // target set changes only where some member's range starts or ends, so the segments between
  // two such points share one set, closed and interned once: a string body's [^"\\] spans most
  // segments, and filling, sorting and comparing a bucket per segment was most of the subset
  // construction of a typical schema. Sets are met in ascending segment order, as they were per
  // segment, so states are numbered as before.
  void ByteRuns(const std::vector<Elem>& members, RuleDfa* dfa) {
    spans_.clear();
    for (Elem e : members) {
      const uint32_t q = StateOf(e);
      for (uint32_t i = index_.rangeBegin[q]; i < index_.rangeBegin[q + 1]; ++i) {
        const Nfa::Range& r = index_.ranges[i];
        spans_.push_back({segOf_[r.lo], segOf_[r.hi], r.to});
      }
    }
    if (spans_.empty()) return;
    std::sort(spans_.begin(), spans_.end(), [](const Span& x, const Span& y) { return x.lo < y.lo; });
    points_.clear();
    for (const Span& sp : spans_) {
      points_.push_back(sp.lo);
      points_.push_back(sp.hi + 1);
    }
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
    active_.clear();
    size_t next = 0;
    bool havePrevious = false;
    uint32_t previousTarget = 0;
    for (size_t p = 0; p + 1 < points_.size(); ++p) {
      const uint32_t lo = points_[p], hi = points_[p + 1] - 1;
      active_.erase(std::remove_if(active_.begin(), active_.end(), [&](uint32_t i) { return spans_[i].hi < lo; }), active_.end());
      while (next < spans_.size() && spans_[next].lo == lo) active_.push_back(static_cast<uint32_t>(next++));
      if (active_.empty()) continue;
      targets_.clear();
      for (uint32_t i : active_) targets_.push_back(static_cast<Elem>(spans_[i].to));
      std::sort(targets_.begin(), targets_.end());
      targets_.erase(std::unique(targets_.begin(), targets_.end()), targets_.end());
      uint32_t target = previousTarget;
      if (!havePrevious || targets_ != previousTargets_) {
        closed_.assign(targets_.begin(), targets_.end());
        target = CloseAndIntern(&closed_) + 1;
        previousTargets_.swap(targets_);
        havePrevious = true;
        previousTarget = target;
      }
      if (dfa->runs.size() > dfa->runBegin.back() && dfa->runs.back().hi + 1u == lo && dfa->runs.back().to == target) {
        dfa->runs.back().hi = hi;
      } else {
        dfa->runs.push_back({lo, hi, target});
      }
    }
  }

  // Past each of a few sizes of the subsets built (2^16, 2^20 NFA states in all), looks for a
  // proof that the construction cannot end within its bounds (subset_blowup.h), from the column
  // targets met so far, and refuses the rule at once when it finds one.
  void TryProveBlowup(uint32_t start) {
    nextProof_ = pool_.size() * 16;
    if (prover_ == nullptr) return;
    // The states the construction has reached as column targets so far, each once.
    std::vector<uint32_t> raw;
    std::vector<uint8_t> seen(nfa_.stateCount, 0);
    for (Elem e : rawPool_) {
      const uint32_t q = StateOf(e);
      if (seen[q] == 0) {
        seen[q] = 1;
        raw.push_back(q);
      }
    }
    const SubsetBlowup proof = prover_->Find(start, final_, raw, wantBits_);
    if (proof.bits == 0) return;
    const std::string k = std::to_string(proof.bits), x = ByteName(proof.startByte), y = ByteName(proof.otherByte);
    const uint64_t subsets = uint64_t{1} << proof.bits;
    const std::string need = subsets > stateLimit_
                                 ? "at least 2^" + k + " states, more than the " + std::to_string(stateLimit_) + " allowed"
                                 : "states that hold at least " + std::to_string(proof.bits * (subsets / 2)) + " NFA states in all, more than the " +
                                       std::to_string(kMaxSubsetWork) + " allowed";
    throw Error(ErrorCode::InvalidGrammar, "rule '" + ruleName_ + "': its automaton is too large to determinize: after any " + k +
                                               " bytes that are each " + x + " or " + y + ", it must remember which were " + x +
                                               " (a repeat that goes on, then a fixed run of items that also take " + x +
                                               ", as in `.*a.{25}`), so it needs " + need +
                                               "; bound the repeat before the run, or shorten the run");
  }
  static std::string ByteName(uint8_t b) {
    if (b >= 0x20 && b < 0x7f && b != '\\' && b != '\'') return std::string("'") + static_cast<char>(b) + "'";
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[b >> 4] + hex[b & 15];
  }

  bool Keeps(uint32_t q) const {
    return q == final_ || index_.rangeBegin[q] != index_.rangeBegin[q + 1] || index_.callBegin[q] != index_.callBegin[q + 1] ||
           index_.HasTokens(q);
  }

  // Epsilon closure, sorted, keeping only the states that matter for the future: those with byte
  // or call edges, and the rule's final state. States that only pass epsilons on would make
  // equal futures look different (a choice's branches meeting again), and the subsets blow up.
  // `set` holds plain NFA states on entry (the targets of one byte or call).
  void Close(std::vector<Elem>* set) {
    ++epoch_;
    std::vector<Elem>& out = *set;
    stack_.assign(out.begin(), out.end());
    out.clear();
    for (Elem q : stack_) {
      mark_[static_cast<uint32_t>(q)] = epoch_;
      if (kCounted) opAt_[static_cast<uint32_t>(q)] = 0;
    }
    while (!stack_.empty()) {
      const uint32_t q = static_cast<uint32_t>(stack_.back());
      stack_.pop_back();
      const uint32_t op = kCounted ? opAt_[q] : 0u;
      if (Keeps(q)) out.push_back(Make(q, op));
      for (uint32_t e = index_.epsBegin[q]; e < index_.epsBegin[q + 1]; ++e) {
        const uint32_t t = index_.epsTo[e];
        uint32_t next = op;
        if (kCounted && index_.epsOp[e] != 0) {
          next = ops_.Then(op, nfa_.ops[index_.epsOp[e]]);
          if (next == UINT32_MAX) continue;  // no count takes this path
        }
        if (mark_[t] == epoch_) {
          if (kCounted && opAt_[t] != next) ops_.Conflict(opAt_[t], next);
          continue;
        }
        mark_[t] = epoch_;
        if (kCounted) opAt_[t] = next;
        stack_.push_back(static_cast<Elem>(t));
      }
    }
    std::sort(out.begin(), out.end());
  }

  // The row of the subset {q} built straight from q's ranges, when they need no merging: no
  // token or call edges, and ranges in increasing, disjoint segment order (an enum's value trie
  // and a literal's bytes: most states of such grammars). Interns the targets in the order the
  // general path would, so the numbering is the same. False (nothing written) otherwise.
  bool DirectRow(uint32_t q, RuleDfa* dfa) {
    if (index_.HasTokens(q) || index_.callBegin[q] != index_.callBegin[q + 1]) return false;
    const uint32_t rb = index_.rangeBegin[q], re = index_.rangeBegin[q + 1];
    for (uint32_t i = rb + 1; i < re; ++i) {
      if (segOf_[index_.ranges[i].lo] <= segOf_[index_.ranges[i - 1].hi]) return false;
    }
    dfa->final.push_back(q == final_ ? 1 : 0);
    for (uint32_t i = rb; i < re; ++i) {
      const Nfa::Range& r = index_.ranges[i];
      uint32_t target;
      if (index_.epsBegin[r.to] == index_.epsBegin[r.to + 1]) {
        closed_.clear();
        if (Keeps(r.to)) closed_.push_back(static_cast<Elem>(r.to));
        target = Intern(closed_) + 1;
      } else {
        closed_.assign(1, static_cast<Elem>(r.to));
        target = CloseAndIntern(&closed_) + 1;
      }
      const uint32_t lo = segOf_[r.lo], hi = segOf_[r.hi];
      if (dfa->runs.size() > dfa->runBegin.back() && dfa->runs.back().hi + 1u == lo && dfa->runs.back().to == target) {
        dfa->runs.back().hi = hi;
      } else {
        dfa->runs.push_back({lo, hi, target});
      }
    }
    dfa->runBegin.push_back(static_cast<uint32_t>(dfa->runs.size()));
    dfa->callBegin.push_back(static_cast<uint32_t>(dfa->calls.size()));
    return true;
  }

  // The subset a set of transition targets leads to: closed, then interned. Without counter
  // operations the closure depends on the targets alone, and many subsets share a target set
  // (every position of a string body goes where [^"\\] goes), so each target set met is
  // remembered with its subset id and closed only the first time. Ids come out as before: a set
  // met again was interned when it was first met.
  uint32_t CloseAndIntern(std::vector<Elem>* set) {
    if constexpr (kCounted) {
      Close(set);
      return Intern(*set);
    } else {
      // Past the subset work bound the table stops growing (memory stays within the bound's order).
      if (rawPool_.size() + set->size() > kMaxSubsetWork) {
        Close(set);
        return Intern(*set);
      }
      const uint64_t h = HashSet(set->data(), set->size());
      if (2 * (rawCount_ + 1) > rawSlots_.size()) GrowRawSlots();
      size_t i = static_cast<size_t>((h * 0x9E3779B97F4A7C15ull) >> 24) & (rawSlots_.size() - 1);
      for (; rawSlots_[i].id != UINT32_MAX; i = (i + 1) & (rawSlots_.size() - 1)) {
        const RawSlot& x = rawSlots_[i];
        if (x.hash == h && x.end - x.begin == set->size() && std::equal(set->begin(), set->end(), rawPool_.begin() + x.begin)) return x.id;
      }
      const uint32_t begin = static_cast<uint32_t>(rawPool_.size());
      rawPool_.insert(rawPool_.end(), set->begin(), set->end());
      Close(set);
      const uint32_t id = Intern(*set);
      rawSlots_[i] = {h, begin, static_cast<uint32_t>(rawPool_.size()), id};
      ++rawCount_;
      return id;
    }
  }

  uint32_t Intern(const std::vector<Elem>& set) {
    // Subsets of one element (most states of a deterministic part of the NFA: an enum's value
    // trie, a literal) are found by their state directly, without hashing or comparing.
    uint32_t* single = nullptr;
    if (set.size() == 1 && OpOf(set[0]) == 0) {
      single = &singleId_[StateOf(set[0])];
      if (*single != UINT32_MAX) return *single;
    }
    uint64_t h = 0;
    size_t i = 0;
    if (single == nullptr) {
      h = HashSet(set.data(), set.size());
      // Open addressing over (hash, id), at most half full: no allocation per subset.
      if (2 * (hashed_ + 1) > slots_.size()) GrowSlots();
      i = static_cast<size_t>((h * 0x9E3779B97F4A7C15ull) >> 24) & (slots_.size() - 1);
      for (; slots_[i].second != UINT32_MAX; i = (i + 1) & (slots_.size() - 1)) {
        const uint32_t id = slots_[i].second;
        if (slots_[i].first == h && setEnd_[id] - setBegin_[id] == set.size() &&
            std::equal(set.begin(), set.end(), pool_.begin() + setBegin_[id])) {
          return id;
        }
      }
    }
    const uint32_t id = static_cast<uint32_t>(setBegin_.size());
    if (pool_.size() + set.size() > kMaxSubsetWork) {
      throw Error(ErrorCode::InvalidGrammar, "rule '" + ruleName_ + "': its automaton is too large to determinize (its states hold more than " +
                                                 std::to_string(kMaxSubsetWork) + " NFA states in all); simplify nested repeats");
    }
    // A subset {q} of a state with one byte edge and nothing else (a position on an enum value's
    // suffix, a literal's byte) is small all the way (~40 bytes here, no row in the automaton)
    // and there is at most one per NFA state, so the NFA's own limit bounds them: only the other
    // states count against the state limit.
    if (single != nullptr && OneByteState(StateOf(set[0]))) {
      ++oneByteStates_;
    } else if (id - oneByteStates_ >= stateLimit_) {
      throw Error(ErrorCode::InvalidGrammar, "rule '" + ruleName_ + "': its automaton needs more than " +
                                                 std::to_string(stateLimit_) + " states (the grammar is too large)");
    }
    setBegin_.push_back(static_cast<uint32_t>(pool_.size()));
    pool_.insert(pool_.end(), set.begin(), set.end());
    setEnd_.push_back(static_cast<uint32_t>(pool_.size()));
    if (single != nullptr) {
      *single = id;  // never in the hash table: every lookup of it comes here first
    } else {
      slots_[i] = {h, id};
      ++hashed_;
    }
    return id;
  }
  bool OneByteState(uint32_t q) const {
    const uint32_t rb = index_.rangeBegin[q];
    return index_.rangeBegin[q + 1] == rb + 1 && index_.ranges[rb].lo == index_.ranges[rb].hi && !index_.HasTokens(q) &&
           index_.callBegin[q] == index_.callBegin[q + 1];
  }
  void GrowRawSlots() {
    std::vector<RawSlot> old;
    old.swap(rawSlots_);
    rawSlots_.assign(old.empty() ? 256 : old.size() * 2, RawSlot{0, 0, 0, UINT32_MAX});
    for (const RawSlot& x : old) {
      if (x.id == UINT32_MAX) continue;
      size_t i = static_cast<size_t>((x.hash * 0x9E3779B97F4A7C15ull) >> 24) & (rawSlots_.size() - 1);
      while (rawSlots_[i].id != UINT32_MAX) i = (i + 1) & (rawSlots_.size() - 1);
      rawSlots_[i] = x;
    }
  }
  void GrowSlots() {
    std::vector<std::pair<uint64_t, uint32_t>> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 256 : old.size() * 2, {0, UINT32_MAX});
    for (const auto& x : old) {
      if (x.second == UINT32_MAX) continue;
      size_t i = static_cast<size_t>((x.first * 0x9E3779B97F4A7C15ull) >> 24) & (slots_.size() - 1);
      while (slots_[i].second != UINT32_MAX) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = x;
    }
  }

  const NfaIndex& index_;
  const Nfa& nfa_;
  const std::vector<uint32_t>& stateRegion_;
  const std::vector<NfaProgram::Region>& regions_;
  const std::array<uint8_t, 256>& segOf_;
  uint32_t segCount_;
  const TokenClasses* tokens_;
  uint32_t width_;  // columns: byte segments, then token classes
  uint32_t stateLimit_;
  uint32_t oneByteStates_ = 0;  // subsets {q} of OneByteState states, which the limit leaves out
  const std::string& ruleName_;
  CountOpTable* table_;
  SubsetBlowupProver* prover_;  // null: no proof is looked for
  uint32_t wantBits_ = 0;
  size_t nextProof_ = size_t{1} << 16;
  PendingOps ops_;
  std::vector<uint32_t> mark_;
  std::vector<uint32_t> singleId_;  // per NFA state q: the id of the subset {q} (operation 0), or UINT32_MAX
  std::vector<uint32_t> opAt_;  // kCounted: per NFA state, its operation in the current closure
  std::vector<uint32_t> segOp_;  // kCounted: per column, the operation of its sources
  uint32_t epoch_ = 0;
  uint32_t final_ = 0;
  std::vector<Elem> stack_;
  std::vector<std::vector<Elem>> buckets_;
  std::vector<uint32_t> touched_;
  std::vector<Elem> members_, closed_;  // scratch, reused
  // ByteRuns' scratch: one member range as segments, the points where targets change, the
  // ranges covering the current interval, its target set and the previous interval's.
  struct Span {
    uint32_t lo, hi, to;
  };
  std::vector<Span> spans_;
  std::vector<uint32_t> points_, active_;
  std::vector<Elem> targets_, previousTargets_;
  std::vector<Elem> pool_;
  std::vector<uint32_t> setBegin_, setEnd_;
  std::vector<std::pair<uint64_t, uint32_t>> slots_;  // (hash, subset id); id UINT32_MAX: empty
  uint32_t hashed_ = 0;  // subsets in slots_ (those of one element are not)
  // CloseAndIntern's table: target sets before closure (in rawPool_) and their subset ids.
  struct RawSlot {
    uint64_t hash;
    uint32_t begin, end, id;  // id UINT32_MAX: empty
  };
  std::vector<Elem> rawPool_;
  std::vector<RawSlot> rawSlots_;
  uint32_t rawCount_ = 0;
};

}  // namespace

size_t Automaton::MemoryBytes() const {
  size_t n = sizeof(*this) + trans.capacity() * 4 + rowAt.capacity() * 4 + flags.capacity() + ruleOf.capacity() * 4 + callBegin.capacity() * 4 +
             calls.capacity() * sizeof(CallEdge) + singleByte.capacity() * 2;
  for (const auto& r : rules) n += sizeof(r) + r.name.capacity() + r.returnStates.capacity() * 4;
  return n + tokenEdges.MemoryBytes();
}

Automaton BuildAutomaton(const NfaProgram& program, const CompileLimits& limits, const TokenClasses* tokens) {
  const NfaIndex index(program.nfa);
  // Byte segments: maximal byte intervals no range edge splits.
  std::array<uint8_t, 257> cut{};
  cut[0] = 1;
  for (const auto& r : program.nfa.ranges) {
    cut[r.lo] = 1;
    cut[r.hi + 1] = 1;
  }
  std::array<uint8_t, 256> segOf{};
  uint32_t segCount = 0;
  for (int b = 0; b < 256; ++b) {
    if (cut[b] && b > 0) ++segCount;
    segOf[b] = static_cast<uint8_t>(segCount);
  }
  ++segCount;

  // Determinize and minimize each rule.
  const uint32_t ruleCount = static_cast<uint32_t>(program.rules.size());
  std::vector<RuleDfa> dfas(ruleCount);
  uint64_t total = 1;
  CountOpTable ops;
  SubsetBlowupProver prover(index, program.nfa, segOf, segCount);
  for (uint32_t r = 0; r < ruleCount; ++r) {
    const NfaRule& rule = program.rules[r];
    if (rule.hasOps) {
      SubsetBuilder<true> builder(index, program.nfa, program.stateRegion, program.regions, segOf, segCount, tokens, limits.maxDfaStates, rule.name, &ops, &prover);
      dfas[r] = builder.Run(rule.start, rule.final);
    } else {
      SubsetBuilder<false> builder(index, program.nfa, program.stateRegion, program.regions, segOf, segCount, tokens, limits.maxDfaStates, rule.name, &ops, &prover);
      dfas[r] = builder.Run(rule.start, rule.final);
    }
    total += dfas[r].final.size() - dfas[r].oneByteStates;
    if (total > limits.maxDfaStates) {
      throw Error(ErrorCode::InvalidGrammar, "rule '" + rule.name + "': the grammar's automata need more than " +
                                                 std::to_string(limits.maxDfaStates) + " states (the grammar is too large)");
    }
  }
  return AssembleAutomaton(program, std::move(dfas), segOf, segCount + (tokens ? tokens->count : 0), ops.Take(), tokens);
}

}  // namespace tagmask
