#include "nfa_builder.h"

#include <algorithm>
#include <unordered_map>

#include "rule_analysis.h"
#include "tagmask/error.h"
#include "text_automaton.h"
#include "utf8_ranges.h"

namespace tagmask {
namespace {

using ir::Kind;

// Thompson-style construction threaded through states: Build(node, from) adds the node's
// fragment starting at `from` and returns its end state. A fragment never adds an edge into its
// `from` state (loops get a fresh state), so alternatives sharing `from` cannot leak into each
// other.
class NfaBuilder {
 public:
  NfaBuilder(const ir::Grammar& g, const CompileLimits& limits, const RuleAnalysis& analysis, bool softLimit)
      : g_(g), limits_(limits), analysis_(analysis), softLimit_(softLimit),
        copies_(g.rules.size(), 0), copiedStates_(g.rules.size(), 0) {}

  /// Thrown when the NFA outgrows the inline budget, or when a large rule is copied a second
  /// time (softLimit only); `rule` is that large rule, or UINT32_MAX for the budget.
  struct OverBudget {
    uint32_t rule = UINT32_MAX;
  };

  /// The inlined rule whose copies took the most states beyond its first copy, or UINT32_MAX.
  uint32_t CostliestCopies() const {
    uint32_t best = UINT32_MAX;
    uint64_t bestCost = 0;
    for (uint32_t r = 0; r < copies_.size(); ++r) {
      if (copies_[r] < 2 || analysis_.Kept(r)) continue;
      const uint64_t cost = copiedStates_[r] - copiedStates_[r] / copies_[r];
      if (cost > bestCost) {
        best = r;
        bestCost = cost;
      }
    }
    return best;
  }

  NfaProgram Run() {
    ruleIndex_.assign(g_.rules.size(), UINT32_MAX);
    program_.root = RuleIndexOf(g_.root);
    // Kept rules are numbered on first reference; build them in that order until all are done.
    for (size_t k = 0; k < pending_.size(); ++k) {
      const uint32_t irRule = pending_[k];
      const uint32_t index = ruleIndex_[irRule];
      current_ = irRule;
      const uint32_t start = program_.rules[index].start;
      frames_.assign(1, {irRule, start, nextUid_++, kNotTail});
      const uint32_t end = Build(g_.rules[irRule].body, start, 0, 0);
      AddEps(end, program_.rules[index].final);
    }
    return std::move(program_);
  }

 private:
  uint32_t RuleIndexOf(uint32_t irRule) {
    if (ruleIndex_[irRule] != UINT32_MAX) return ruleIndex_[irRule];
    NfaRule rule;
    rule.name = g_.rules[irRule].name;
    rule.start = NewState();
    rule.final = NewState();
    rule.nullable = analysis_.NullableRule(irRule);
    ruleIndex_[irRule] = static_cast<uint32_t>(program_.rules.size());
    program_.rules.push_back(std::move(rule));
    pending_.push_back(irRule);
    return ruleIndex_[irRule];
  }

  uint32_t NewState() {
    if (softLimit_ && program_.nfa.stateCount >= limits_.inlineBudget) throw OverBudget{};
    if (program_.nfa.stateCount >= limits_.maxNfaStates) {
      FailRule(g_.rules[current_].name, "the grammar is too large: its automata need more than " +
                                            std::to_string(limits_.maxNfaStates) + " states");
    }
    return program_.nfa.stateCount++;
  }
  void AddEps(uint32_t from, uint32_t to) {
    if (from != to) program_.nfa.eps.push_back({from, to});
  }
  void AddRange(uint32_t from, uint8_t lo, uint8_t hi, uint32_t to) { program_.nfa.ranges.push_back({from, lo, hi, to}); }

  // `tailFrom`: the rule bodies (frames_[tailFrom..]) this node ends, or kNotTail.
  uint32_t Build(uint32_t id, uint32_t from, uint32_t depth, uint32_t tailFrom) {
    if (depth > limits_.maxNestingDepth) {
      FailRule(g_.rules[current_].name, "the grammar is nested more than " + std::to_string(limits_.maxNestingDepth) + " levels deep");
    }
    const ir::Node& n = g_.nodes[id];
    switch (n.kind) {
      case Kind::Empty:
        return from;
      case Kind::Never:
        return NewState();  // nothing leads here
      case Kind::Bytes: {
        uint32_t cur = from;
        for (uint32_t i = 0; i < n.b; ++i) {
          const uint32_t next = NewState();
          const uint8_t b = g_.Literal(n)[i];
          AddRange(cur, b, b, next);
          cur = next;
        }
        return cur;
      }
      case Kind::Class:
        return BuildClass(id, n, from);
      case Kind::Seq: {
        uint32_t cur = from;
        for (uint32_t i = 0; i < n.b; ++i) cur = Build(g_.Children(n)[i], cur, depth + 1, i + 1 == n.b ? tailFrom : kNotTail);
        return cur;
      }
      case Kind::Choice: {
        const uint32_t to = NewState();
        for (uint32_t i = 0; i < n.b; ++i) AddEps(Build(g_.Children(n)[i], from, depth + 1, tailFrom), to);
        return to;
      }
      case Kind::Repeat:
        return BuildRepeat(n, from, depth);
      case Kind::Ref: {
        if (tailFrom != kNotTail) {
          // A tail reference to a body being built: jump back to its start. Nothing follows
          // the jump here; the body's own end is where it comes out.
          for (size_t f = frames_.size(); f-- > tailFrom;) {
            if (frames_[f].rule == n.a && frames_[f].entry != kNotTail) {
              AddEps(from, frames_[f].entry);
              return NewState();
            }
            // A tail reference inside an instance of its right-linear group: a jump to that
            // rule's entry in the instance.
            const uint32_t inst = frames_[f].instance;
            if (inst != kNotTail && instances_[inst].group == analysis_.Group(n.a)) {
              AddEps(from, EntryIn(inst, n.a));
              return NewState();
            }
          }
        }
        if (!analysis_.Kept(n.a) && analysis_.Group(n.a) != RuleAnalysis::kNoGroup) {
          // A new instance of the right-linear group: one entry state per rule of the group
          // reached from here, one shared exit; each body is built once in the instance.
          const uint32_t inst = static_cast<uint32_t>(instances_.size());
          instances_.push_back(Instance{analysis_.Group(n.a), NewState(), {}, {}});
          frames_.push_back({UINT32_MAX, kNotTail, nextUid_++, inst});
          const uint32_t frame = static_cast<uint32_t>(frames_.size()) - 1;
          AddEps(from, EntryIn(inst, n.a));
          while (!instances_[inst].pending.empty()) {
            const uint32_t rule = instances_[inst].pending.back();
            instances_[inst].pending.pop_back();
            const uint32_t entry = instances_[inst].entries.at(rule);
            const uint32_t end = Build(g_.rules[rule].body, entry, depth + 1, frame);
            AddEps(end, instances_[inst].exit);
          }
          frames_.pop_back();
          return instances_[inst].exit;
        }
        if (!analysis_.Kept(n.a)) {
          // Inline. A rule that loops through a tail reference gets its own entry state, so
          // that the jump back cannot reach what else starts at `from`.
          //
          // A rule referenced in tail position of the same body more than once is built once:
          // every such reference continues where that body ends, so the copies would be equal.
          // (Outside groups and kept rules the call graph is acyclic, so the rule's own tail
          // references cannot jump into frames that differ between the references.) Grammars
          // that spell out a state machine as rules reach each rule along many paths.
          const bool shareable = tailFrom != kNotTail && analysis_.Group(n.a) == RuleAnalysis::kNoGroup;
          const uint64_t key = (static_cast<uint64_t>(frames_[tailFrom == kNotTail ? 0 : tailFrom].uid) << 32) | n.a;
          if (shareable) {
            const auto it = sharedTails_.find(key);
            if (it != sharedTails_.end()) {
              AddEps(from, it->second.first);
              return it->second.second;
            }
          }
          uint32_t entry = kNotTail;
          uint32_t start = from;
          if (shareable || analysis_.TailSelf(n.a)) {
            start = NewState();
            AddEps(from, start);
            if (analysis_.TailSelf(n.a)) entry = start;
          }
          frames_.push_back({n.a, entry, nextUid_++, kNotTail});
          const uint32_t bodyTail = tailFrom != kNotTail ? tailFrom : static_cast<uint32_t>(frames_.size()) - 1;
          const uint32_t before = program_.nfa.stateCount;
          const uint32_t end = Build(g_.rules[n.a].body, start, depth + 1, bodyTail);
          frames_.pop_back();
          ++copies_[n.a];
          copiedStates_[n.a] += program_.nfa.stateCount - before;
          if (softLimit_ && copies_[n.a] >= 2 && copiedStates_[n.a] / copies_[n.a] >= limits_.sharedRuleStates) throw OverBudget{n.a};
          if (shareable) sharedTails_.emplace(key, std::make_pair(start, end));
          return end;
        }
        const uint32_t callee = RuleIndexOf(n.a);
        const uint32_t to = NewState();
        program_.nfa.calls.push_back({from, callee, to});
        // A call that may match nothing can also be skipped without a frame; the matcher's
        // closure dedupes the two ways of matching the empty string.
        if (program_.rules[callee].nullable) AddEps(from, to);
        return to;
      }
      case Kind::Text:
        return BuildText(id, n, from);
      case Kind::Token:
      case Kind::ExcludeToken: {
        const uint32_t to = NewState();
        program_.nfa.tokens.push_back({from, id, to});
        return to;
      }
      case Kind::AnyTokens:
        return BuildAnyTokens(id, n, from);
    }
    return from;
  }

  // A loop over one token edge, entered from `from`; returns the loop state.
  uint32_t TokenLoop(uint32_t id, uint32_t from) {
    const uint32_t loop = NewState();
    AddEps(from, loop);
    const uint32_t mid = NewState();
    program_.nfa.tokens.push_back({loop, id, mid});
    AddEps(mid, loop);
    return loop;
  }

  // Any number of tokens: a token loop; with maxTokens, a rule of its own per occurrence, whose
  // tokens the matcher counts like those of a limited text.
  uint32_t BuildAnyTokens(uint32_t id, const ir::Node& n, uint32_t from) {
    const uint32_t maxTokens = g_.AnyTokensMax(n);
    if (maxTokens == 0) return from;
    if (maxTokens == ir::kNone) return TokenLoop(id, from);
    const uint32_t to = NewState();
    NfaRule rule;
    rule.name = g_.rules[current_].name + ".tokens" + std::to_string(++textRules_);
    rule.start = NewState();
    rule.final = NewState();
    rule.maxTokens = maxTokens;
    rule.nullable = true;
    AddEps(TokenLoop(id, rule.start), rule.final);
    const uint32_t index = static_cast<uint32_t>(program_.rules.size());
    program_.rules.push_back(std::move(rule));
    program_.nfa.calls.push_back({from, index, to});
    AddEps(from, to);
    return to;
  }

  uint32_t BuildRepeat(const ir::Node& n, uint32_t from, uint32_t depth) {
    const uint32_t min = n.b, max = n.c;
    // Refuse before unrolling: a bound like 2^31 must not first build millions of states.
    const uint64_t copies = max == ir::kNone ? static_cast<uint64_t>(min) + 1 : max;
    // The size estimate counts every path through shared sub-rules, so only a small one is
    // trusted; each copy adds at least one state in any case.
    const uint64_t item = analysis_.EstimatedSize(n.a);
    if (copies > 1 && (copies > limits_.maxNfaStates || (item <= 1024 && SatMul(copies, item) > limits_.maxNfaStates))) {
      FailRule(g_.rules[current_].name, "a repeat {" + std::to_string(min) + "," + (max == ir::kNone ? std::string() : std::to_string(max)) +
                                            "} unrolls to more than " + std::to_string(limits_.maxNfaStates) +
                                            " automaton states; use a smaller bound");
    }
    uint32_t cur = from;
    for (uint32_t i = 0; i < min; ++i) {
      const uint32_t before = program_.nfa.stateCount;
      cur = Build(n.a, cur, depth + 1, kNotTail);
      if (program_.nfa.stateCount == before) break;  // the item adds no state: it is empty
    }
    if (max == ir::kNone) {
      const uint32_t loop = NewState();
      AddEps(cur, loop);
      AddEps(Build(n.a, loop, depth + 1, kNotTail), loop);
      return loop;
    }
    if (max == min) return cur;
    const uint32_t exit = NewState();
    for (uint32_t i = min; i < max; ++i) {
      AddEps(cur, exit);
      const uint32_t before = program_.nfa.stateCount;
      cur = Build(n.a, cur, depth + 1, kNotTail);
      if (program_.nfa.stateCount == before) break;
    }
    AddEps(cur, exit);
    return exit;
  }

  const std::vector<Utf8Sequence>& ClassSequences(uint32_t id, const ir::Node& n) {
    auto it = classCache_.find(id);
    if (it != classCache_.end()) return it->second;
    std::vector<Utf8Sequence>& seqs = classCache_[id];
    const uint32_t* r = g_.Ranges(n);
    if (!g_.Negated(n)) {
      for (uint32_t i = 0; i < n.b; ++i) AppendUtf8Sequences(r[2 * i], r[2 * i + 1], &seqs);
    } else {
      uint32_t next = 0;
      for (uint32_t i = 0; i < n.b; ++i) {
        if (r[2 * i] > next) AppendUtf8Sequences(next, r[2 * i] - 1, &seqs);
        next = r[2 * i + 1] + 1;
      }
      if (next <= ir::kMaxCodePoint) AppendUtf8Sequences(next, ir::kMaxCodePoint, &seqs);
    }
    return seqs;
  }

  uint32_t BuildClass(uint32_t id, const ir::Node& n, uint32_t from) {
    const std::vector<Utf8Sequence>& seqs = ClassSequences(id, n);
    const uint32_t to = NewState();
    // tail[k]: k more continuation bytes (0x80..0xBF) lead to `to`; shared by the sequences.
    uint32_t tail[4] = {to, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    const auto tailOf = [&](int k) {
      for (int j = 1; j <= k; ++j) {
        if (tail[j] == UINT32_MAX) {
          tail[j] = NewState();
          AddRange(tail[j], 0x80, 0xBF, tail[j - 1]);
        }
      }
      return tail[k];
    };
    for (const Utf8Sequence& s : seqs) {
      uint32_t cur = from;
      for (int k = 0; k < s.length; ++k) {
        bool restIsContinuation = true;
        for (int j = k + 1; j < s.length; ++j) restIsContinuation = restIsContinuation && s.lo[j] == 0x80 && s.hi[j] == 0xBF;
        if (restIsContinuation) {
          AddRange(cur, s.lo[k], s.hi[k], tailOf(s.length - 1 - k));
          break;
        }
        const uint32_t next = NewState();
        AddRange(cur, s.lo[k], s.hi[k], next);
        cur = next;
      }
    }
    return to;
  }

  const TextDfa& TextAutomaton(uint32_t id, const ir::Node& n) {
    auto it = textCache_.find(id);
    if (it != textCache_.end()) return it->second;
    std::vector<std::string> excludes;
    for (uint32_t i = 0; i < g_.TextExcludeCount(n); ++i) {
      uint32_t len;
      const uint8_t* p = g_.TextExclude(n, i, &len);
      excludes.emplace_back(reinterpret_cast<const char*>(p), len);
    }
    const std::string where = "rule '" + g_.rules[current_].name + "', text node " + std::to_string(id);
    return textCache_.emplace(id, BuildTextDfa(excludes, g_.TextMaxChars(n), limits_.maxTextStates, where)).first->second;
  }

  // Copies the text automaton: eps from `from` into its start, eps from accepting states to `to`.
  void EmbedText(const TextDfa& dfa, uint32_t from, uint32_t to) {
    const uint32_t base = program_.nfa.stateCount;
    for (uint32_t s = 0; s < dfa.StateCount(); ++s) NewState();
    AddEps(from, base);
    for (uint32_t s = 0; s < dfa.StateCount(); ++s) {
      const int32_t* row = dfa.next.data() + static_cast<size_t>(s) * 256;
      int b = 0;
      while (b < 256) {
        if (row[b] < 0) {
          ++b;
          continue;
        }
        int e = b;
        while (e + 1 < 256 && row[e + 1] == row[b]) ++e;
        AddRange(base + s, static_cast<uint8_t>(b), static_cast<uint8_t>(e), base + static_cast<uint32_t>(row[b]));
        b = e + 1;
      }
      if (dfa.accepting[s]) AddEps(base + s, to);
    }
  }

  uint32_t BuildText(uint32_t id, const ir::Node& n, uint32_t from) {
    const TextDfa& dfa = TextAutomaton(id, n);
    const uint32_t to = NewState();
    const uint32_t maxTokens = g_.TextMaxTokens(n);
    if (maxTokens == ir::kNone) {
      EmbedText(dfa, from, to);
      return to;
    }
    // One rule per occurrence, so that its tokens are counted per occurrence (docs/engine.md).
    NfaRule rule;
    rule.name = g_.rules[current_].name + ".text" + std::to_string(++textRules_);
    rule.start = NewState();
    rule.final = NewState();
    rule.maxTokens = maxTokens;
    rule.nullable = true;
    EmbedText(dfa, rule.start, rule.final);
    const uint32_t index = static_cast<uint32_t>(program_.rules.size());
    program_.rules.push_back(std::move(rule));
    program_.nfa.calls.push_back({from, index, to});
    AddEps(from, to);
    return to;
  }

  const ir::Grammar& g_;
  const CompileLimits& limits_;
  const RuleAnalysis& analysis_;
  const bool softLimit_;
  std::vector<uint32_t> copies_;        // per IR rule: inlined copies made
  std::vector<uint64_t> copiedStates_;  // per IR rule: states those copies took
  NfaProgram program_;
  std::vector<uint32_t> ruleIndex_;
  std::vector<uint32_t> pending_;
  uint32_t current_ = 0;
  uint32_t textRules_ = 0;
  static constexpr uint32_t kNotTail = UINT32_MAX;
  // Rule bodies being built, outermost first, with the state a tail reference jumps to
  // (kNotTail: none).
  struct Frame {
    uint32_t rule;      // UINT32_MAX for a group instance
    uint32_t entry;
    uint32_t uid;       // tells frames apart across time (shared tails are per frame)
    uint32_t instance;  // index into instances_, or kNotTail
  };
  // One inlined copy of a right-linear group: the entry state of each rule reached so far, the
  // rules whose bodies are still to be built, and the exit every body ends in.
  struct Instance {
    uint32_t group;
    uint32_t exit;
    std::unordered_map<uint32_t, uint32_t> entries;
    std::vector<uint32_t> pending;
  };
  std::vector<Instance> instances_;

  // The entry state of `rule` in an instance, scheduling its body on first use.
  uint32_t EntryIn(uint32_t inst, uint32_t rule) {
    auto it = instances_[inst].entries.find(rule);
    if (it != instances_[inst].entries.end()) return it->second;
    const uint32_t entry = NewState();
    instances_[inst].entries.emplace(rule, entry);
    instances_[inst].pending.push_back(rule);
    return entry;
  }
  std::vector<Frame> frames_;
  uint32_t nextUid_ = 0;
  // (frame uid, rule) -> (entry, end) of a leaf rule built once in tail position of that frame.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> sharedTails_;
  std::unordered_map<uint32_t, std::vector<Utf8Sequence>> classCache_;
  std::unordered_map<uint32_t, TextDfa> textCache_;
};

}  // namespace

NfaProgram BuildNfa(const ir::Grammar& grammar, const CompileLimits& limits) {
  RuleAnalysis analysis(grammar, limits);
  // Inlining copies a rule into every place that refers to it. When the copies outgrow the
  // budget, the rule whose copies cost the most becomes a call, and the build starts over; so
  // does a large rule at its second copy (the leap seconds of a date-time format are ~10^5 NFA
  // states: a schema with four date-times took 0.56 s to compile with four inlined copies,
  // 0.05–0.09 s with one called copy).
  for (int attempt = 0; attempt < 32; ++attempt) {
    NfaBuilder builder(grammar, limits, analysis, true);
    try {
      return builder.Run();
    } catch (const NfaBuilder::OverBudget& over) {
      const uint32_t rule = over.rule != UINT32_MAX ? over.rule : builder.CostliestCopies();
      if (rule == UINT32_MAX) break;
      analysis.Keep(rule);
    }
  }
  return NfaBuilder(grammar, limits, analysis, false).Run();
}

}  // namespace tagmask
