// Rule analysis for the NFA builder: the call graph, nullability, tail self-references, and the
// choice of the rules kept as real calls (the root, and enough rules of each recursive component
// to break every cycle). Every other reference is inlined; the NFA builder keeps more rules when
// their copies turn out too large.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nfa_builder.h"
#include "tagmask/ir.h"

namespace tagmask {

class RuleAnalysis {
 public:
  RuleAnalysis(const ir::Grammar& g, const CompileLimits& limits, const UnrollSet& unroll);

  bool Kept(uint32_t rule) const { return kept_[rule] != 0; }
  /// Keeps a rule as a call from now on (the NFA builder found its copies too large).
  void Keep(uint32_t rule) { kept_[rule] = 1; }
  /// Whether the rule refers to itself in tail position (a loop, not a call).
  bool TailSelf(uint32_t rule) const { return tailSelf_[rule] != 0; }
  /// Estimated NFA states of a node (inlined references included); 1 for unvisited nodes.
  uint64_t EstimatedSize(uint32_t node) const { return nodeSize_[node] == UINT64_MAX ? 1 : nodeSize_[node]; }
  bool Reachable(uint32_t rule) const { return reachable_[rule] != 0; }
  /// The right-linear group of a rule, or kNoGroup: a cyclic component whose rules refer to
  /// each other only in tail position (a state machine written as rules, `s1 ::= "a" s2 | ""`).
  /// References inside a group are jumps, so it needs no call and no kept rule.
  uint32_t Group(uint32_t rule) const { return group_[rule]; }
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  bool NullableRule(uint32_t rule) const { return ruleNullable_[rule] != 0; }
  bool NullableNode(uint32_t node) const { return nodeNullable_[node] != 0; }
  /// Whether a repeat node is built as a counted loop (docs/engine.md, "Counted repetition"):
  /// its unrolling would copy a non-nullable item more than limits.countedRepeatFrom times, its
  /// bounds fit a counter, and it was not found ambiguous.
  bool Counted(uint32_t node) const;
  /// Whether the expression contains a counted repeat, looking through references that are
  /// inlined (not through calls to kept rules).
  bool ContainsCounted(uint32_t node) const;
  /// Whether the expression holds a unit not enclosed by a counted node of its own (through
  /// references of any kind).
  bool FreeUnits(uint32_t node) const;
  /// Throws InvalidGrammar when the units a counted node counts would be met inside a call.
  void CheckUnitsInline(uint32_t countedNode, const std::string& rule) const;
  /// Whether the expression holds a mark not enclosed by a marks node of its own (through
  /// references of any kind).
  bool FreeMarks(uint32_t node) const;
  /// Whether the expression holds a `target` node not enclosed by an `owner` node (FreeUnits,
  /// FreeMarks), memoized per node in `memos`.
  bool HoldsFree(uint32_t node, std::vector<uint8_t>& memos, ir::Kind target, ir::Kind owner) const;
  /// Throws InvalidGrammar when the marks a marks node holds would be met inside a call, or a
  /// mark matches the empty string.
  void CheckMarksInline(uint32_t marksNode, const std::string& rule) const;

 private:
  // References per rule. A reference of a rule to itself in tail position (the last thing its
  // body matches) is not a call: the NFA builder turns it into a jump back to the body's start,
  // so such a rule needs no frame for it (e.g. `members ::= "}" | "," member members`).
  void CollectCallees();
  void FindRightLinearGroups();
  void ComputeNullable();
  void ComputeReachable();

  // Strongly connected components (Tarjan, iterative) of the reachable rules that are not kept,
  // with edges only between such rules. Returns the components that contain a cycle.
  std::vector<std::vector<uint32_t>> CyclicComponents() const;

  // Keeps rules until no cycle runs through inlined rules only: in each cyclic component, the
  // rule with the most references in and out of the component (a greedy feedback vertex set).
  void BreakCycles();

  // Whether a marks node nested in `item` (on its level) has an item for which `holds` is true.
  template <class Holds>
  bool NestedMarksHold(uint32_t item, Holds holds) const;
  // Visits each node met on `item`'s own rule level (through inlined references, not into kept
  // rules) that has an item or is a reference, once; `visit(id, node)` says whether to go on
  // into its item (for a reference, its inlined body). Sequences and choices are walked through.
  template <class Visit>
  void ForEachOnLevel(uint32_t item, Visit visit) const;

  // Node sizes, for refusing oversized repeats before unrolling them.
  void EstimateSizes();
  uint64_t RuleSize(uint32_t r, uint32_t depth);
  uint64_t NodeSize(uint32_t id, uint32_t depth, uint32_t rule);
  // The size of one copy of a right-linear group (the sum of its bodies).
  uint64_t GroupSize(uint32_t group, uint32_t depth);
  // Whether a node is reachable from `node` for which `step` says yes (step(id, node, &next)
  // also lists where to go on), memoized in `memos` (ContainsCounted, HoldsFree).
  template <class Step>
  bool Reaches(uint32_t node, std::vector<uint8_t>& memos, Step step) const;

  const ir::Grammar& g_;
  const CompileLimits& limits_;
  const UnrollSet& unroll_;
  std::vector<uint8_t> nodeNullable_;
  mutable std::vector<uint8_t> containsCounted_, freeUnits_, freeMarks_;  // per node: 0 unknown, 1 being looked at, 2 no, 3 yes
  std::vector<std::vector<uint32_t>> callees_;
  std::vector<std::vector<uint32_t>> nonTail_;  // rules referenced in non-tail position
  std::vector<uint32_t> refCount_;
  std::vector<uint8_t> ruleNullable_, reachable_, kept_, tailSelf_, sizing_;
  std::vector<uint64_t> nodeSize_, ruleSize_, groupSize_;
  std::vector<uint8_t> groupSizing_;
  std::vector<std::vector<uint32_t>> groupMembers_;
  std::vector<uint32_t> group_;
};

/// Throws InvalidGrammar naming the rule.
[[noreturn]] void FailRule(const std::string& rule, const std::string& what);

/// a * b, saturating at 2^40 (sizes estimated here never need more).
uint64_t SatMul(uint64_t a, uint64_t b);

}  // namespace tagmask
