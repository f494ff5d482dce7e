// NFAs to the pushdown automaton: subset construction per rule over byte segments, trimming of
// states that cannot lead to an end (and of calls to rules that match nothing), minimization,
// byte classes, state flags, and the left-recursion check.
#include "dfa_builder.h"

#include <algorithm>
#include <unordered_map>

#include "tagmask/error.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {
namespace {

// Compressed adjacency of the NFA, by source state.
struct NfaIndex {
  std::vector<uint32_t> epsBegin, epsTo;
  std::vector<uint32_t> rangeBegin;
  std::vector<Nfa::Range> ranges;
  std::vector<uint32_t> callBegin;
  std::vector<Nfa::Call> calls;
  std::vector<uint32_t> tokenBegin;
  std::vector<Nfa::Token> tokens;

  explicit NfaIndex(const Nfa& nfa) {
    const uint32_t n = nfa.stateCount;
    epsBegin.assign(n + 1, 0);
    for (const auto& e : nfa.eps) ++epsBegin[e.from + 1];
    for (uint32_t i = 0; i < n; ++i) epsBegin[i + 1] += epsBegin[i];
    epsTo.resize(nfa.eps.size());
    {
      std::vector<uint32_t> at(epsBegin.begin(), epsBegin.end() - 1);
      for (const auto& e : nfa.eps) epsTo[at[e.from]++] = e.to;
    }
    rangeBegin.assign(n + 1, 0);
    for (const auto& r : nfa.ranges) ++rangeBegin[r.from + 1];
    for (uint32_t i = 0; i < n; ++i) rangeBegin[i + 1] += rangeBegin[i];
    ranges.resize(nfa.ranges.size());
    {
      std::vector<uint32_t> at(rangeBegin.begin(), rangeBegin.end() - 1);
      for (const auto& r : nfa.ranges) ranges[at[r.from]++] = r;
    }
    callBegin.assign(n + 1, 0);
    for (const auto& c : nfa.calls) ++callBegin[c.from + 1];
    for (uint32_t i = 0; i < n; ++i) callBegin[i + 1] += callBegin[i];
    calls.resize(nfa.calls.size());
    {
      std::vector<uint32_t> at(callBegin.begin(), callBegin.end() - 1);
      for (const auto& c : nfa.calls) calls[at[c.from]++] = c;
    }
    if (nfa.tokens.empty()) return;  // most grammars: no token edges, no index
    tokenBegin.assign(n + 1, 0);
    for (const auto& t : nfa.tokens) ++tokenBegin[t.from + 1];
    for (uint32_t i = 0; i < n; ++i) tokenBegin[i + 1] += tokenBegin[i];
    tokens.resize(nfa.tokens.size());
    {
      std::vector<uint32_t> at(tokenBegin.begin(), tokenBegin.end() - 1);
      for (const auto& t : nfa.tokens) tokens[at[t.from]++] = t;
    }
  }
  bool HasTokens(uint32_t q) const { return !tokenBegin.empty() && tokenBegin[q] != tokenBegin[q + 1]; }
};

uint64_t HashSet(const uint32_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h;
}

// Bound on the NFA states all subsets of one rule hold together: nested unbounded repeats of
// long items make subsets large, and the work grows with their total size.
constexpr size_t kMaxSubsetWork = size_t{1} << 23;

// The subset construction of one rule. Local state ids start at 0; transitions hold local id + 1
// (0 = dead). Columns: the byte segments, then one per token class.
class SubsetBuilder {
 public:
  SubsetBuilder(const NfaIndex& index, uint32_t nfaStates, const std::array<uint8_t, 256>& segOf, uint32_t segCount,
                const TokenClasses* tokens, uint32_t stateLimit, const std::string& ruleName)
      : index_(index), segOf_(segOf), segCount_(segCount), tokens_(tokens),
        width_(segCount + (tokens ? tokens->count : 0)), stateLimit_(stateLimit), ruleName_(ruleName), mark_(nfaStates, 0),
        buckets_(width_) {}

  RuleDfa Run(uint32_t start, uint32_t final) {
    final_ = final;
    RuleDfa dfa;
    std::vector<uint32_t> set{start};
    Close(&set);
    Intern(set);
    std::vector<std::pair<uint32_t, uint32_t>> callTargets;  // (callee, nfa target)
    for (uint32_t s = 0; s < setBegin_.size(); ++s) {
      // Copy: interning below may grow the pool.
      members_.assign(pool_.begin() + setBegin_[s], pool_.begin() + setEnd_[s]);
      const std::vector<uint32_t>& members = members_;
      dfa.final.push_back(std::binary_search(members.begin(), members.end(), final) ? 1 : 0);
      dfa.trans.resize(static_cast<size_t>(s + 1) * width_, 0);
      // Byte transitions, segment by segment.
      touched_.clear();
      for (uint32_t q : members) {
        for (uint32_t e = index_.rangeBegin[q]; e < index_.rangeBegin[q + 1]; ++e) {
          const Nfa::Range& r = index_.ranges[e];
          for (uint32_t k = segOf_[r.lo]; k <= segOf_[r.hi]; ++k) {
            if (buckets_[k].empty()) touched_.push_back(k);
            buckets_[k].push_back(r.to);
          }
        }
        // Token edges: one column per token class the edge's node takes.
        if (!index_.HasTokens(q)) continue;
        for (uint32_t e = index_.tokenBegin[q]; e < index_.tokenBegin[q + 1]; ++e) {
          for (uint32_t c : tokens_->ofNode.at(index_.tokens[e].node)) {
            const uint32_t k = segCount_ + c;
            if (buckets_[k].empty()) touched_.push_back(k);
            buckets_[k].push_back(index_.tokens[e].to);
          }
        }
      }
      std::sort(touched_.begin(), touched_.end());
      uint32_t previousSeg = UINT32_MAX, previousTarget = 0;
      for (uint32_t k : touched_) {
        std::vector<uint32_t>& b = buckets_[k];
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        uint32_t target;
        if (previousSeg != UINT32_MAX && buckets_[previousSeg] == b) {
          target = previousTarget;
        } else {
          closed_.assign(b.begin(), b.end());
          Close(&closed_);
          target = Intern(closed_) + 1;
        }
        dfa.trans[static_cast<size_t>(s) * width_ + k] = target;
        if (previousSeg != UINT32_MAX) buckets_[previousSeg].clear();
        previousSeg = k;
        previousTarget = target;
      }
      if (previousSeg != UINT32_MAX) buckets_[previousSeg].clear();
      // Call edges, grouped by callee.
      callTargets.clear();
      for (uint32_t q : members) {
        for (uint32_t e = index_.callBegin[q]; e < index_.callBegin[q + 1]; ++e) {
          callTargets.emplace_back(index_.calls[e].rule, index_.calls[e].to);
        }
      }
      std::sort(callTargets.begin(), callTargets.end());
      dfa.callBegin.push_back(static_cast<uint32_t>(dfa.calls.size()));
      for (size_t i = 0; i < callTargets.size();) {
        size_t j = i;
        closed_.clear();
        while (j < callTargets.size() && callTargets[j].first == callTargets[i].first) closed_.push_back(callTargets[j++].second);
        Close(&closed_);
        dfa.calls.push_back({callTargets[i].first, Intern(closed_)});
        i = j;
      }
    }
    dfa.callBegin.push_back(static_cast<uint32_t>(dfa.calls.size()));
    return dfa;
  }

 private:
  // Epsilon closure, sorted, keeping only the states that matter for the future: those with byte
  // or call edges, and the rule's final state. States that only pass epsilons on would make
  // equal futures look different (a choice's branches meeting again), and the subsets blow up.
  void Close(std::vector<uint32_t>* set) {
    ++epoch_;
    std::vector<uint32_t>& out = *set;
    stack_.assign(out.begin(), out.end());
    out.clear();
    for (uint32_t q : stack_) mark_[q] = epoch_;
    while (!stack_.empty()) {
      const uint32_t q = stack_.back();
      stack_.pop_back();
      if (q == final_ || index_.rangeBegin[q] != index_.rangeBegin[q + 1] || index_.callBegin[q] != index_.callBegin[q + 1] ||
          index_.HasTokens(q)) {
        out.push_back(q);
      }
      for (uint32_t e = index_.epsBegin[q]; e < index_.epsBegin[q + 1]; ++e) {
        const uint32_t t = index_.epsTo[e];
        if (mark_[t] != epoch_) {
          mark_[t] = epoch_;
          stack_.push_back(t);
        }
      }
    }
    std::sort(out.begin(), out.end());
  }

  uint32_t Intern(const std::vector<uint32_t>& set) {
    const uint64_t h = HashSet(set.data(), set.size());
    auto it = byHash_.find(h);
    if (it != byHash_.end()) {
      for (uint32_t id = it->second; id != UINT32_MAX; id = sameHash_[id]) {
        if (setEnd_[id] - setBegin_[id] == set.size() &&
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
    if (id >= stateLimit_) {
      throw Error(ErrorCode::InvalidGrammar, "rule '" + ruleName_ + "': its automaton needs more than " +
                                                 std::to_string(stateLimit_) + " states (the grammar is too large)");
    }
    setBegin_.push_back(static_cast<uint32_t>(pool_.size()));
    pool_.insert(pool_.end(), set.begin(), set.end());
    setEnd_.push_back(static_cast<uint32_t>(pool_.size()));
    sameHash_.push_back(it != byHash_.end() ? it->second : UINT32_MAX);
    byHash_[h] = id;
    return id;
  }

  const NfaIndex& index_;
  const std::array<uint8_t, 256>& segOf_;
  uint32_t segCount_;
  const TokenClasses* tokens_;
  uint32_t width_;  // columns: byte segments, then token classes
  uint32_t stateLimit_;
  const std::string& ruleName_;
  std::vector<uint32_t> mark_;
  uint32_t epoch_ = 0;
  uint32_t final_ = 0;
  std::vector<uint32_t> stack_;
  std::vector<std::vector<uint32_t>> buckets_;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> members_, closed_;  // scratch, reused
  std::vector<uint32_t> pool_, setBegin_, setEnd_, sameHash_;
  std::unordered_map<uint64_t, uint32_t> byHash_;
};

}  // namespace

size_t Automaton::MemoryBytes() const {
  size_t n = sizeof(*this) + trans.capacity() * 4 + flags.capacity() + ruleOf.capacity() * 4 + callBegin.capacity() * 4 +
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
  for (uint32_t r = 0; r < ruleCount; ++r) {
    const NfaRule& rule = program.rules[r];
    SubsetBuilder builder(index, program.nfa.stateCount, segOf, segCount, tokens, limits.maxDfaStates, rule.name);
    dfas[r] = builder.Run(rule.start, rule.final);
    total += dfas[r].final.size();
    if (total > limits.maxDfaStates) {
      throw Error(ErrorCode::InvalidGrammar, "rule '" + rule.name + "': the grammar's automata need more than " +
                                                 std::to_string(limits.maxDfaStates) + " states (the grammar is too large)");
    }
  }
  return AssembleAutomaton(program, std::move(dfas), segOf, segCount + (tokens ? tokens->count : 0), tokens);
}

}  // namespace tagmask
