#include "nfa_builder.h"

#include <algorithm>
#include <unordered_map>

#include "rule_analysis.h"
#include "tagmask/compile_control.h"
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
  NfaBuilder(const ir::Grammar& g, const CompileLimits& limits, const RuleAnalysis& analysis, const OwnRuleSet& ownRules,
             bool softLimit)
      : g_(g), limits_(limits), analysis_(analysis), ownRules_(ownRules), softLimit_(softLimit),
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
      // A rule with units must stay inline: a call would count them on another level.
      if (copies_[r] < 2 || analysis_.Kept(r) || analysis_.FreeUnits(g_.rules[r].body) || analysis_.FreeMarks(g_.rules[r].body)) continue;
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
    // Kept rules are numbered on first reference, synthesized ones (counted repeats and their
    // items, docs/engine.md) when first needed; build them in that order until all are done.
    size_t kept = 0, synth = 0;
    while (kept < pending_.size() || synth < synth_.size()) {
      if (kept < pending_.size()) {
        const uint32_t irRule = pending_[kept++];
        const uint32_t index = ruleIndex_[irRule];
        current_ = irRule;
        currentRule_ = index;
        const uint32_t start = program_.rules[index].start;
        frames_.assign(1, {irRule, start, nextUid_++, kNotTail});
        const uint32_t end = Build(g_.rules[irRule].body, start, 0, 0);
        AddEps(end, program_.rules[index].final);
        continue;
      }
      const Synth job = synth_[synth++];
      current_ = job.irRule;
      currentRule_ = job.index;
      synthNode_ = job.node;
      frames_.assign(1, {UINT32_MAX, kNotTail, nextUid_++, kNotTail});
      const uint32_t start = program_.rules[job.index].start;
      const uint32_t end = Build(job.node, start, 0, kNotTail);
      AddEps(end, program_.rules[job.index].final);
    }
    return std::move(program_);
  }

 private:
  // A rule of its own for an expression (a counted repeat met inside another one's item, or the
  // item of a counted repeat that contains one): one per node, since its language does not
  // depend on where it is used.
  uint32_t SynthRuleOf(uint32_t node, const char* what) {
    const auto it = synthIndex_.find(node);
    if (it != synthIndex_.end()) return it->second;
    NfaRule rule;
    rule.name = g_.rules[current_].name + "." + what + std::to_string(node);
    rule.start = NewRuleState();
    rule.final = NewRuleState();
    rule.nullable = analysis_.NullableNode(node);
    const uint32_t index = static_cast<uint32_t>(program_.rules.size());
    program_.rules.push_back(std::move(rule));
    synthIndex_.emplace(node, index);
    synth_.push_back({index, node, current_});
    return index;
  }

  uint32_t CallRule(uint32_t index, uint32_t from) {
    const uint32_t to = NewState();
    program_.nfa.calls.push_back({from, index, to});
    // A call that may match nothing can also be skipped without a frame; the matcher's closure
    // dedupes the two ways of matching the empty string.
    if (program_.rules[index].nullable) AddEps(from, to);
    return to;
  }

  uint32_t RuleIndexOf(uint32_t irRule) {
    if (ruleIndex_[irRule] != UINT32_MAX) return ruleIndex_[irRule];
    NfaRule rule;
    rule.name = g_.rules[irRule].name;
    rule.start = NewRuleState();
    rule.final = NewRuleState();
    rule.nullable = analysis_.NullableRule(irRule);
    ruleIndex_[irRule] = static_cast<uint32_t>(program_.rules.size());
    program_.rules.push_back(std::move(rule));
    pending_.push_back(irRule);
    return ruleIndex_[irRule];
  }

  uint32_t NewState() {
    if ((program_.nfa.stateCount & 0xFFFF) == 0xFFFF) CompileCheckpoint();
    if (softLimit_ && program_.nfa.stateCount >= limits_.inlineBudget) throw OverBudget{};
    if (program_.nfa.stateCount >= limits_.maxNfaStates) {
      FailRule(g_.rules[current_].name, "the grammar is too large: its automata need more than " +
                                            std::to_string(limits_.maxNfaStates) + " states");
    }
    if (currentRegion_ != 0) {
      program_.stateRegion.resize(program_.nfa.stateCount + 1, 0);
      program_.stateRegion[program_.nfa.stateCount] = currentRegion_;
    }
    return program_.nfa.stateCount++;
  }
  // A state of another rule (its start or end), made while a counted node's item is built.
  uint32_t NewRuleState() {
    const uint32_t region = currentRegion_;
    currentRegion_ = 0;
    const uint32_t s = NewState();
    currentRegion_ = region;
    return s;
  }
  void AddEps(uint32_t from, uint32_t to, uint32_t op = 0) {
    if (from != to) program_.nfa.eps.push_back({from, to, op});
  }
  uint32_t CountStep(CountPrimitive kind, uint32_t value, uint32_t node, uint32_t region = 0) {
    program_.nfa.ops.push_back({kind, value, node, region});
    program_.rules[currentRule_].hasOps = true;
    return static_cast<uint32_t>(program_.nfa.ops.size()) - 1;
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
        if (analysis_.Counted(id)) return BuildCounted(id, n, from, depth);
        return BuildRepeat(n, from, depth);
      case Kind::Counted:
        return BuildCountedNode(id, n, from, depth);
      case Kind::Unit:
        return BuildUnit(n, from, depth);
      case Kind::Marks:
        return BuildMarks(id, n, from, depth);
      case Kind::Mark:
        return BuildMark(n, from, depth);
      case Kind::Residue:
        return BuildResidue(id, n, from, depth);
      case Kind::ResidueDigit:
      case Kind::ResidueLive:
        return BuildResidueStep(n, from);
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
          // References into the group in tail position of one body share its instance (as
          // shared tails do, every such reference continues where that body ends): a numeral
          // automaton enters its group of remainder rules from ten digits, with and without a
          // sign, and a copy per reference made 20 copies of thousands of rules.
          const uint64_t groupKey = tailFrom == kNotTail ? 0 : (static_cast<uint64_t>(frames_[tailFrom].uid) << 32) | analysis_.Group(n.a);
          uint32_t inst = kNotTail;
          if (tailFrom != kNotTail) {
            const auto it = sharedGroups_.find(groupKey);
            if (it != sharedGroups_.end()) inst = it->second;
          }
          if (inst == kNotTail) {
            inst = static_cast<uint32_t>(instances_.size());
            instances_.push_back(Instance{analysis_.Group(n.a), NewState(), {}, {}});
            if (tailFrom != kNotTail) sharedGroups_.emplace(groupKey, inst);
          }
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
          // (Safe inside a counted item too: the items are built out of tail position, so the
          // frames these references continue were all pushed inside the item.)
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
          if (softLimit_ && copies_[n.a] >= 2 && copiedStates_[n.a] / copies_[n.a] >= limits_.sharedRuleStates &&
              !analysis_.FreeUnits(g_.rules[n.a].body)) {
            throw OverBudget{n.a};
          }
          if (shareable) sharedTails_.emplace(key, std::make_pair(start, end));
          return end;
        }
        return CallRule(RuleIndexOf(n.a), from);
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

  // A counted repeat (docs/engine.md, "Counted repetition"): the item once, in a loop, with
  // operations on the rule level's counter: entering sets it to 0, starting an item requires
  // count < max and adds one, leaving requires count >= min.
  //
  //   from --reset--> head --inc(max)--> item --> head --check(min)--> out
  //
  // The operations ride on the next byte (or call): the first byte of an item is where the
  // count goes up, so a count past max is refused at once (an item counted only when it ends
  // would be refused only at the byte after it, leaving dead ends in the masks). An item must
  // therefore start differently from what follows the repeat (",", not whitespace that may also
  // precede "]"); otherwise the loop is ambiguous and gets unrolled (CountConflict).
  //
  // One counter per rule level: a counted repeat inside another one's item gets a rule of its
  // own (a call, so a frame and a counter of its own), and an item that contains one is itself
  // built as a rule, so that the inner repeats can stay inline there.
  uint32_t BuildCounted(uint32_t id, const ir::Node& n, uint32_t from, uint32_t depth) {
    if (!regions_.empty()) return CallRule(SynthRuleOf(id, "repeat"), from);
    const uint32_t head = NewState();
    AddEps(from, head, CountStep(CountPrimitive::Reset, 0, id));
    const uint32_t itemStart = NewState();
    AddEps(head, itemStart, CountStep(CountPrimitive::Inc, n.c == ir::kNone ? kNoCountLimit : n.c, id));
    uint32_t itemEnd;
    if (analysis_.ContainsCounted(n.a)) {
      itemEnd = CallRule(SynthRuleOf(n.a, "item"), itemStart);
    } else {
      regions_.push_back({false, 0});
      itemEnd = Build(n.a, itemStart, depth + 1, kNotTail);
      regions_.pop_back();
    }
    AddEps(itemEnd, head);
    const uint32_t out = NewState();
    AddEps(head, out, n.b == 0 ? 0 : CountStep(CountPrimitive::Check, n.b, id));
    return out;
  }

  // A counted node: its item inline, with the rule level's counter set to 0 on entry, one
  // added by each unit (which requires count < max), and count >= min required on leaving. Its
  // states are tagged with a region, whose liveness (which counts can still end within the
  // bounds) the automaton works out per state (automaton_assembly.cpp).
  uint32_t BuildCountedNode(uint32_t id, const ir::Node& n, uint32_t from, uint32_t depth) {
    if (!regions_.empty() || (OwnRule(id) && !analysis_.FreeMarks(n.a))) return CallRule(SynthRuleOf(id, "counted"), from);
    if (n.c != ir::kNone && n.c > kMaxCountBound) {
      FailRule(g_.rules[current_].name, "a counted node's max " + std::to_string(n.c) + " is above " + std::to_string(kMaxCountBound));
    }
    if (n.b > kMaxCountBound) FailRule(g_.rules[current_].name, "a counted node's min " + std::to_string(n.b) + " is above " + std::to_string(kMaxCountBound));
    analysis_.CheckUnitsInline(id, g_.rules[current_].name);
    program_.regions.push_back({n.b, n.c == ir::kNone ? kNoCountLimit : n.c, id});
    const uint32_t region = static_cast<uint32_t>(program_.regions.size());
    const uint32_t outer = currentRegion_;
    currentRegion_ = region;
    const uint32_t start = NewState();
    AddEps(from, start, CountStep(CountPrimitive::Reset, 0, id, region));
    regions_.push_back({true, n.c == ir::kNone ? kNoCountLimit : n.c, id});
    const uint32_t end = Build(n.a, start, depth + 1, kNotTail);
    regions_.pop_back();
    currentRegion_ = outer;
    const uint32_t out = NewState();
    // The check rides on what follows the node; the states it is pending in still belong to the
    // node for liveness (SubsetBuilder::RegionOf), since their count still decides.
    AddEps(end, out, n.b == 0 ? 0 : CountStep(CountPrimitive::Check, n.b, id, region));
    return out;
  }

  // A unit counts one for the counted node around it on this level (none: it counts nothing;
  // RuleAnalysis::CheckUnitsInline refuses units a counted node would meet through a call).
  uint32_t BuildUnit(const ir::Node& n, uint32_t from, uint32_t depth) {
    if (!analysis_.NullableNode(n.a) && !regions_.empty() && regions_.back().counted) {
      const uint32_t s = NewState();
      AddEps(from, s, CountStep(CountPrimitive::Inc, regions_.back().max, regions_.back().node, currentRegion_));
      return Build(n.a, s, depth + 1, kNotTail);
    }
    if (analysis_.NullableNode(n.a)) FailRule(g_.rules[current_].name, "a unit node matches the empty string");
    return Build(n.a, from, depth + 1, kNotTail);
  }

  // A marks node (docs/engine.md, "Marks"): its item inline, with the rule level's marks cleared
  // on entry, each mark node testing and setting its bit (on the first byte of its item), and
  // the required marks checked on leaving. A marks node inside another one is a rule of its own
  // (a call, so a frame and marks of its own). Liveness (which marks can still end the node from
  // each state) is worked out on the automaton (mark_liveness.cpp).
  uint32_t BuildMarks(uint32_t id, const ir::Node& n, uint32_t from, uint32_t depth) {
    if (marksDepth_ > 0 || (OwnRule(id) && !analysis_.FreeUnits(n.a))) return CallRule(SynthRuleOf(id, "marks"), from);
    analysis_.CheckMarksInline(id, g_.rules[current_].name);
    const uint32_t start = NewState();
    AddEps(from, start, CountStep(CountPrimitive::MarkReset, 0, id));
    ++marksDepth_;
    const uint32_t outerMarks = marksNode_;
    marksNode_ = id;
    const uint32_t end = Build(n.a, start, depth + 1, kNotTail);
    marksNode_ = outerMarks;
    --marksDepth_;
    const uint32_t out = NewState();
    AddEps(end, out, n.b == 0 ? 0 : CountStep(CountPrimitive::MarkNeed, n.b, id));
    return out;
  }

  // A mark uses its bit of the marks node around it on this level (none: it uses nothing).
  uint32_t BuildMark(const ir::Node& n, uint32_t from, uint32_t depth) {
    if (analysis_.NullableNode(n.a)) FailRule(g_.rules[current_].name, "a mark node matches the empty string");
    if (marksDepth_ == 0) return Build(n.a, from, depth + 1, kNotTail);
    const uint32_t s = NewState();
    AddEps(from, s, CountStep(CountPrimitive::MarkTest, n.b, marksNode_));
    return Build(n.a, s, depth + 1, kNotTail);
  }

  // A residue node (docs/json-schema.md, "The remainder counter"): always a rule of its own, so
  // its remainder is the count of a level no counted repeat or marks node shares, and its
  // states never lie at the bottom frame (Matcher::FillStack checks uncertain tokens above it).
  // Inside: the remainder set to 0 on entry, folded by each digit, 0 required on leaving.
  uint32_t BuildResidue(uint32_t id, const ir::Node& n, uint32_t from, uint32_t depth) {
    if (id != synthNode_) return CallRule(SynthRuleOf(id, "residue"), from);
    if (residueModulus_ != 0) FailRule(g_.rules[current_].name, "a residue node holds another one");
    const uint32_t start = NewState();
    AddEps(from, start, ResidueStep(CountPrimitive::ResReset, 0, n.b, id));
    residueModulus_ = n.b;
    residueNode_ = id;
    const uint32_t end = Build(n.a, start, depth + 1, kNotTail);
    residueModulus_ = 0;
    const uint32_t out = NewState();
    AddEps(end, out, ResidueStep(CountPrimitive::ResLive, 0, n.b, id));
    return out;
  }

  // An `rdigit` (fold the digit, then check liveness, on the epsilon edge before its byte) or an
  // `rlive` (the check alone), on the level of the residue node around it with the same modulus.
  uint32_t BuildResidueStep(const ir::Node& n, uint32_t from) {
    const bool digit = n.kind == Kind::ResidueDigit;
    if (residueModulus_ == 0 || residueModulus_ != n.c || currentRule_ != synthIndex_.at(residueNode_)) {
      FailRule(g_.rules[current_].name, std::string("an ") + (digit ? "rdigit" : "rlive") + " node of modulus " + std::to_string(n.c) +
                                            " lies outside a residue node of that modulus on its own rule level");
    }
    const uint32_t s = NewState();
    uint32_t at = from;
    if (digit) {
      const uint32_t mid = NewState();
      AddEps(at, mid, ResidueStep(CountPrimitive::ResFold, n.a, n.c, residueNode_));
      at = mid;
    }
    if (n.b != ir::kNone) {
      const uint32_t mid = NewState();
      AddEps(at, mid, ResidueStep(CountPrimitive::ResLive, n.b, n.c, residueNode_));
      at = mid;
    }
    if (!digit) {
      AddEps(at, s);
      return s;
    }
    AddRange(at, static_cast<uint8_t>('0' + n.a), static_cast<uint8_t>('0' + n.a), s);
    return s;
  }
  uint32_t ResidueStep(CountPrimitive kind, uint32_t value, uint32_t modulus, uint32_t node) {
    const uint32_t op = CountStep(kind, value, node);
    program_.nfa.ops[op].modulus = modulus;
    return op;
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
    rule.start = NewRuleState();
    rule.final = NewRuleState();
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
    rule.start = NewRuleState();
    rule.final = NewRuleState();
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
  const OwnRuleSet& ownRules_;
  const bool softLimit_;
  std::vector<uint32_t> copies_;        // per IR rule: inlined copies made
  std::vector<uint64_t> copiedStates_;  // per IR rule: states those copies took
  NfaProgram program_;
  std::vector<uint32_t> ruleIndex_;
  std::vector<uint32_t> pending_;
  uint32_t current_ = 0;      // the IR rule whose body (or part of it) is being built, for names
  uint32_t currentRule_ = 0;  // the NFA rule being built
  uint32_t textRules_ = 0;
  // Counted repeats and counted nodes whose items are being built inline, innermost last.
  struct Region {
    bool counted;  // a counted node (its units count); false: a counted repeat's item
    uint32_t max;
    uint32_t node = UINT32_MAX;  // the counted node (its units name it in a CountConflict)
  };
  std::vector<Region> regions_;
  uint32_t currentRegion_ = 0;  // NfaProgram::regions index + 1 of the counted node being built
  uint32_t marksDepth_ = 0;     // marks nodes being built inline (0 or 1)
  uint32_t marksNode_ = UINT32_MAX;  // the marks node being built inline
  uint32_t residueModulus_ = 0;           // the residue node being built (its rule's body): m, or 0
  uint32_t residueNode_ = UINT32_MAX;     // and its IR node
  uint32_t synthNode_ = UINT32_MAX;  // the body of the rule of its own being built
  // Whether a counted or marks node is to be a rule of its own (and this is not that rule).
  bool OwnRule(uint32_t id) const { return id != synthNode_ && ownRules_.count(id) != 0; }
  struct Synth {
    uint32_t index;   // NFA rule
    uint32_t node;    // its body
    uint32_t irRule;  // the IR rule it was met in (names)
  };
  std::vector<Synth> synth_;
  std::unordered_map<uint32_t, uint32_t> synthIndex_;
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
  // (frame uid, group) -> the instance of a right-linear group entered in tail position of that frame.
  std::unordered_map<uint64_t, uint32_t> sharedGroups_;
  std::unordered_map<uint32_t, std::vector<Utf8Sequence>> classCache_;
  std::unordered_map<uint32_t, TextDfa> textCache_;
};

}  // namespace

NfaProgram BuildNfa(const ir::Grammar& grammar, const CompileLimits& limits, const UnrollSet& unroll, const OwnRuleSet& ownRules) {
  RuleAnalysis analysis(grammar, limits, unroll);
  // Inlining copies a rule into every place that refers to it. When the copies outgrow the
  // budget, the rule whose copies cost the most becomes a call, and the build starts over; so
  // does a large rule at its second copy (the leap seconds of a date-time format are ~10^5 NFA
  // states: a schema with four date-times took 0.56 s to compile with four inlined copies,
  // 0.05–0.09 s with one called copy).
  for (int attempt = 0; attempt < 32; ++attempt) {
    NfaBuilder builder(grammar, limits, analysis, ownRules, true);
    try {
      return builder.Run();
    } catch (const NfaBuilder::OverBudget& over) {
      const uint32_t rule = over.rule != UINT32_MAX ? over.rule : builder.CostliestCopies();
      if (rule == UINT32_MAX) break;
      analysis.Keep(rule);
    }
  }
  return NfaBuilder(grammar, limits, analysis, ownRules, false).Run();
}

}  // namespace tagmask
