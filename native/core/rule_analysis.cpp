#include "rule_analysis.h"

#include <algorithm>

#include "tagmask/error.h"

namespace tagmask {
namespace {

using ir::Kind;

constexpr uint64_t kSizeCap = 1ull << 40;

uint64_t SatAdd(uint64_t a, uint64_t b) { return std::min(kSizeCap, a + b); }

}  // namespace

uint64_t SatMul(uint64_t a, uint64_t b) { return (a != 0 && b > kSizeCap / a) ? kSizeCap : std::min(kSizeCap, a * b); }

void FailRule(const std::string& rule, const std::string& what) {
  throw Error(ErrorCode::InvalidGrammar, "rule '" + rule + "': " + what);
}

RuleAnalysis::RuleAnalysis(const ir::Grammar& g, const CompileLimits& limits, const UnrollSet& unroll)
    : g_(g), limits_(limits), unroll_(unroll) {
  const size_t r = g.rules.size();
  callees_.resize(r);
  nonTail_.resize(r);
  refCount_.assign(r, 0);
  CollectCallees();
  ComputeNullable();
  ComputeReachable();
  kept_.assign(r, 0);
  group_.assign(r, kNoGroup);
  FindRightLinearGroups();
  kept_[g.root] = 1;
  BreakCycles();
  EstimateSizes();
}

void RuleAnalysis::CollectCallees() {
  std::vector<uint32_t> seenAt(2 * g_.nodes.size(), UINT32_MAX);  // per (node, tail)
  std::vector<std::pair<uint32_t, bool>> stack;
  tailSelf_.assign(g_.rules.size(), 0);
  for (uint32_t r = 0; r < g_.rules.size(); ++r) {
    std::vector<uint32_t>& out = callees_[r];
    std::vector<uint32_t>& nonTail = nonTail_[r];
    stack.assign(1, {g_.rules[r].body, true});
    while (!stack.empty()) {
      const auto [id, tail] = stack.back();
      stack.pop_back();
      if (seenAt[2 * id + (tail ? 1 : 0)] == r) continue;
      seenAt[2 * id + (tail ? 1 : 0)] = r;
      const ir::Node& n = g_.nodes[id];
      switch (n.kind) {
        case Kind::Seq:
          for (uint32_t i = 0; i < n.b; ++i) stack.push_back({g_.Children(n)[i], tail && i + 1 == n.b});
          break;
        case Kind::Choice:
          for (uint32_t i = 0; i < n.b; ++i) stack.push_back({g_.Children(n)[i], tail});
          break;
        case Kind::Repeat:
        case Kind::Counted:
        case Kind::Unit:
        case Kind::Marks:
        case Kind::Mark:
        case Kind::Residue:
          stack.push_back({n.a, false});
          break;
        case Kind::Ref:
          if (tail && n.a == r) {
            tailSelf_[r] = 1;
            break;
          }
          out.push_back(n.a);
          if (!tail) nonTail.push_back(n.a);
          ++refCount_[n.a];
          break;
        default:
          break;
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    std::sort(nonTail.begin(), nonTail.end());
    nonTail.erase(std::unique(nonTail.begin(), nonTail.end()), nonTail.end());
  }
}

void RuleAnalysis::FindRightLinearGroups() {
  group_.assign(g_.rules.size(), kNoGroup);
  const std::vector<uint8_t> kept = kept_;
  std::fill(kept_.begin(), kept_.end(), 0);
  uint32_t groups = 0;
  for (const auto& comp : CyclicComponents()) {
    bool rightLinear = true;
    for (uint32_t r : comp) {
      for (uint32_t t : nonTail_[r]) rightLinear = rightLinear && std::find(comp.begin(), comp.end(), t) == comp.end();
    }
    if (!rightLinear) continue;
    for (uint32_t r : comp) group_[r] = groups;
    ++groups;
  }
  kept_ = kept;
}

void RuleAnalysis::ComputeNullable() {
  ruleNullable_.assign(g_.rules.size(), 0);
  std::vector<uint8_t>& node = nodeNullable_;
  node.assign(g_.nodes.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    // Children precede parents, so one pass in id order settles every node given the rules.
    for (uint32_t id = 0; id < g_.nodes.size(); ++id) {
      const ir::Node& n = g_.nodes[id];
      uint8_t v = 0;
      switch (n.kind) {
        case Kind::Empty:
        case Kind::Text:
        case Kind::AnyTokens:
          v = 1;
          break;
        case Kind::Never:
        case Kind::Bytes:
        case Kind::Class:
        case Kind::Token:
        case Kind::ExcludeToken:
        case Kind::ResidueDigit:
          v = 0;
          break;
        case Kind::ResidueLive:
          v = 1;
          break;
        case Kind::Residue:
          v = node[n.a];
          break;
        case Kind::Seq:
          v = 1;
          for (uint32_t i = 0; i < n.b && v; ++i) v = node[g_.Children(n)[i]];
          break;
        case Kind::Choice:
          for (uint32_t i = 0; i < n.b && !v; ++i) v = node[g_.Children(n)[i]];
          break;
        case Kind::Repeat:
          v = (n.b == 0 || node[n.a]) ? 1 : 0;
          break;
        case Kind::Counted:
          // An empty match holds no unit.
          v = (n.b == 0 && node[n.a]) ? 1 : 0;
          break;
        case Kind::Unit:
        case Kind::Mark:
          v = node[n.a];
          break;
        case Kind::Marks:
          // An empty match uses no mark.
          v = (n.b == 0 && node[n.a]) ? 1 : 0;
          break;
        case Kind::Ref:
          v = ruleNullable_[n.a];
          break;
      }
      node[id] = v;
    }
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {
      if (node[g_.rules[r].body] && !ruleNullable_[r]) {
        ruleNullable_[r] = 1;
        changed = true;
      }
    }
  }
}

void RuleAnalysis::ComputeReachable() {
  reachable_.assign(g_.rules.size(), 0);
  std::vector<uint32_t> stack{g_.root};
  reachable_[g_.root] = 1;
  while (!stack.empty()) {
    const uint32_t r = stack.back();
    stack.pop_back();
    for (uint32_t c : callees_[r]) {
      if (!reachable_[c]) {
        reachable_[c] = 1;
        stack.push_back(c);
      }
    }
  }
}

std::vector<std::vector<uint32_t>> RuleAnalysis::CyclicComponents() const {
  const uint32_t n = static_cast<uint32_t>(g_.rules.size());
  std::vector<int64_t> index(n, -1), low(n, 0);
  std::vector<uint8_t> onStack(n, 0);
  std::vector<uint32_t> sccStack;
  std::vector<std::vector<uint32_t>> out;
  int64_t counter = 0;
  const auto active = [&](uint32_t r) { return reachable_[r] && !kept_[r]; };
  struct Frame {
    uint32_t rule;
    size_t next;
  };
  std::vector<Frame> dfs;
  for (uint32_t start = 0; start < n; ++start) {
    if (!active(start) || index[start] >= 0) continue;
    dfs.push_back({start, 0});
    index[start] = low[start] = counter++;
    sccStack.push_back(start);
    onStack[start] = 1;
    while (!dfs.empty()) {
      Frame& f = dfs.back();
      const std::vector<uint32_t>& edges = callees_[f.rule];
      if (f.next < edges.size()) {
        const uint32_t c = edges[f.next++];
        if (!active(c) || (group_[c] != kNoGroup && group_[c] == group_[f.rule])) continue;
        if (index[c] < 0) {
          index[c] = low[c] = counter++;
          sccStack.push_back(c);
          onStack[c] = 1;
          dfs.push_back({c, 0});
        } else if (onStack[c]) {
          low[f.rule] = std::min(low[f.rule], index[c]);
        }
        continue;
      }
      const uint32_t r = f.rule;
      dfs.pop_back();
      if (!dfs.empty()) low[dfs.back().rule] = std::min(low[dfs.back().rule], low[r]);
      if (low[r] == index[r]) {
        std::vector<uint32_t> comp;
        uint32_t x;
        do {
          x = sccStack.back();
          sccStack.pop_back();
          onStack[x] = 0;
          comp.push_back(x);
        } while (x != r);
        const bool selfLoop = std::binary_search(callees_[r].begin(), callees_[r].end(), r) && group_[r] == kNoGroup;
        if (comp.size() > 1 || selfLoop) out.push_back(std::move(comp));
      }
    }
  }
  return out;
}

void RuleAnalysis::BreakCycles() {
  for (;;) {
    const auto comps = CyclicComponents();
    if (comps.empty()) return;
    for (const auto& comp : comps) {
      uint32_t best = comp[0];
      uint64_t bestScore = 0;
      for (uint32_t r : comp) {
        uint64_t in = 0, out = 0;
        for (uint32_t o : comp) {
          if (std::binary_search(callees_[o].begin(), callees_[o].end(), r)) ++in;
          if (std::binary_search(callees_[r].begin(), callees_[r].end(), o)) ++out;
        }
        const uint64_t score = (in + 1) * (out + 1);
        if (score > bestScore || (score == bestScore && r < best)) {
          best = r;
          bestScore = score;
        }
      }
      kept_[best] = 1;
    }
  }
}

void RuleAnalysis::EstimateSizes() {
  nodeSize_.assign(g_.nodes.size(), UINT64_MAX);
  ruleSize_.assign(g_.rules.size(), UINT64_MAX);
  sizing_.assign(g_.rules.size(), 0);
  for (uint32_t r = 0; r < g_.rules.size(); ++r) {
    if (reachable_[r]) RuleSize(r, 0);
  }
}

uint64_t RuleAnalysis::RuleSize(uint32_t r, uint32_t depth) {
  if (ruleSize_[r] != UINT64_MAX) return ruleSize_[r];
  if (sizing_[r]) return 1;  // its own tail reference: a jump, not a copy
  sizing_[r] = 1;
  const uint64_t size = NodeSize(g_.rules[r].body, depth + 1, r);
  sizing_[r] = 0;
  ruleSize_[r] = size;
  return size;
}

uint64_t RuleAnalysis::GroupSize(uint32_t group, uint32_t depth) {
  if (groupSize_.empty()) {
    groupSize_.assign(g_.rules.size(), UINT64_MAX);
    groupSizing_.assign(g_.rules.size(), 0);
    groupMembers_.assign(g_.rules.size(), {});
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {
      if (group_[r] != kNoGroup && !kept_[r]) groupMembers_[group_[r]].push_back(r);
    }
  }
  if (groupSize_[group] != UINT64_MAX) return groupSize_[group];
  if (groupSizing_[group]) return 1;
  groupSizing_[group] = 1;
  uint64_t size = 0;
  for (uint32_t r : groupMembers_[group]) size = SatAdd(size, RuleSize(r, depth));
  groupSizing_[group] = 0;
  groupSize_[group] = size;
  return size;
}

uint64_t RuleAnalysis::NodeSize(uint32_t id, uint32_t depth, uint32_t rule) {
  if (nodeSize_[id] != UINT64_MAX) return nodeSize_[id];
  if (depth > limits_.maxNestingDepth) {
    FailRule(g_.rules[rule].name, "the grammar is nested more than " + std::to_string(limits_.maxNestingDepth) + " levels deep");
  }
  const ir::Node& n = g_.nodes[id];
  uint64_t size = 1;
  switch (n.kind) {
    case Kind::Empty:
    case Kind::Never:
      break;
    case Kind::Bytes:
      size = n.b;
      break;
    case Kind::Class:
      size = 4ull * n.b + 4;
      break;
    case Kind::Seq:
    case Kind::Choice:
      for (uint32_t i = 0; i < n.b; ++i) size = SatAdd(size, NodeSize(g_.Children(n)[i], depth + 1, rule));
      break;
    case Kind::Counted:
    case Kind::Unit:
    case Kind::Marks:
    case Kind::Mark:
    case Kind::Residue:
      size = SatAdd(3, NodeSize(n.a, depth + 1, rule));
      break;
    case Kind::ResidueDigit:
    case Kind::ResidueLive:
      size = 4;
      break;
    case Kind::Repeat: {
      const uint64_t item = NodeSize(n.a, depth + 1, rule);
      const uint64_t copies = Counted(id) ? 1 : n.c == ir::kNone ? std::max<uint64_t>(n.b, 1) : n.c;
      size = SatAdd(3, SatMul(item, copies));
      break;
    }
    case Kind::Ref:
      // Rules that are not kept form an acyclic graph apart from right-linear groups, so this
      // recursion ends. Inside a group a reference is a jump within the group's one copy; from
      // outside it enters that copy: all the group's bodies, each sized with its jumps as 1, so
      // the recursion never follows a group's chains of rules (thousands deep in a divisibility
      // automaton).
      if (kept_[n.a]) {
        size = 1;
      } else if (group_[n.a] == kNoGroup) {
        size = RuleSize(n.a, depth + 1);
      } else if (group_[n.a] == group_[rule]) {
        size = 1;
      } else {
        size = GroupSize(group_[n.a], depth + 1);
      }
      break;
    case Kind::Text: {
      uint64_t total = 1;
      for (uint32_t i = 0; i < n.b; ++i) total += g_.extra[n.a + 3 + 2 * i];
      size = SatMul(total, 4);
      const uint32_t maxChars = g_.TextMaxChars(n);
      if (maxChars != ir::kNone) size = SatMul(size, static_cast<uint64_t>(maxChars) + 1);
      break;
    }
    case Kind::Token:
    case Kind::ExcludeToken:
    case Kind::AnyTokens:
      size = 2;
      break;
  }
  // A reference's size depends on the rule it is met in (a jump inside its group, the group's
  // copy outside), and the builder may share one reference node between both.
  if (n.kind != Kind::Ref) nodeSize_[id] = size;
  return size;
}

bool RuleAnalysis::Counted(uint32_t node) const {
  const ir::Node& n = g_.nodes[node];
  if (n.kind != Kind::Repeat || nodeNullable_[n.a] || unroll_.count(node) != 0) return false;
  const uint32_t min = n.b, max = n.c;
  if (min > kMaxCountBound || (max != ir::kNone && max > kMaxCountBound)) return false;
  const uint64_t copies = max == ir::kNone ? static_cast<uint64_t>(min) + 1 : max;
  return copies > limits_.countedRepeatFrom;
}

template <class Step>
bool RuleAnalysis::Reaches(uint32_t node, std::vector<uint8_t>& memos, Step step) const {
  // An explicit stack, not recursion: a right-linear group inlines thousands of rules into one
  // another (the divisibility automata of JSON Schema's multipleOf), too deep for the C++ stack.
  // memos: 0 unknown, 1 seen by this search, 2 no, 3 yes. When nothing is found, every node
  // seen reaches only nodes seen, so all of them are "no"; when something is, only `node` is
  // known to be "yes" and the others go back to unknown.
  if (memos[node] >= 2) return memos[node] == 3;
  std::vector<uint32_t> stack{node}, seen, next;
  bool found = false;
  while (!stack.empty() && !found) {
    const uint32_t id = stack.back();
    stack.pop_back();
    if (memos[id] == 3) {
      found = true;
      break;
    }
    if (memos[id] != 0) continue;
    memos[id] = 1;
    seen.push_back(id);
    next.clear();
    found = step(id, g_.nodes[id], &next);
    stack.insert(stack.end(), next.begin(), next.end());
  }
  for (uint32_t id : seen) memos[id] = found ? 0 : 2;
  memos[node] = found ? 3 : 2;
  return found;
}

bool RuleAnalysis::ContainsCounted(uint32_t node) const {
  if (containsCounted_.empty()) containsCounted_.assign(g_.nodes.size(), 0);
  return Reaches(node, containsCounted_, [&](uint32_t id, const ir::Node& n, std::vector<uint32_t>* next) {
    switch (n.kind) {
      case Kind::Seq:
      case Kind::Choice:
        for (uint32_t i = 0; i < n.b; ++i) next->push_back(g_.Children(n)[i]);
        return false;
      case Kind::Repeat:
        if (Counted(id)) return true;
        next->push_back(n.a);
        return false;
      case Kind::Counted:
        return true;
      case Kind::Unit:
      case Kind::Marks:
      case Kind::Mark:
      case Kind::Residue:
        next->push_back(n.a);
        return false;
      case Kind::Ref:
        if (!kept_[n.a]) next->push_back(g_.rules[n.a].body);
        return false;
      default:
        return false;
    }
  });
}

bool RuleAnalysis::FreeUnits(uint32_t node) const { return HoldsFree(node, freeUnits_, Kind::Unit, Kind::Counted); }

bool RuleAnalysis::FreeMarks(uint32_t node) const { return HoldsFree(node, freeMarks_, Kind::Mark, Kind::Marks); }

bool RuleAnalysis::HoldsFree(uint32_t node, std::vector<uint8_t>& memos, Kind target, Kind owner) const {
  if (memos.empty()) memos.assign(g_.nodes.size(), 0);
  return Reaches(node, memos, [&](uint32_t, const ir::Node& n, std::vector<uint32_t>* next) {
    switch (n.kind) {
      case Kind::Seq:
      case Kind::Choice:
        for (uint32_t i = 0; i < n.b; ++i) next->push_back(g_.Children(n)[i]);
        return false;
      case Kind::Repeat:
      case Kind::Counted:
      case Kind::Unit:
      case Kind::Marks:
      case Kind::Mark:
      case Kind::Residue:
        // An owner node keeps what it holds to itself.
        if (n.kind == target) return true;
        if (n.kind != owner) next->push_back(n.a);
        return false;
      case Kind::Ref:
        next->push_back(g_.rules[n.a].body);
        return false;
      default:
        return false;
    }
  });
}

template <class Visit>
void RuleAnalysis::ForEachOnLevel(uint32_t item, Visit visit) const {
  std::vector<uint32_t> stack{item};
  std::vector<uint8_t> seen(g_.nodes.size(), 0);
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = 1;
    const ir::Node& n = g_.nodes[id];
    switch (n.kind) {
      case Kind::Seq:
      case Kind::Choice:
        for (uint32_t i = 0; i < n.b; ++i) stack.push_back(g_.Children(n)[i]);
        break;
      case Kind::Repeat:
      case Kind::Counted:
      case Kind::Unit:
      case Kind::Marks:
      case Kind::Mark:
      case Kind::Residue:
        if (visit(id, n)) stack.push_back(n.a);
        break;
      case Kind::Ref:
        if (visit(id, n) && !kept_[n.a]) stack.push_back(g_.rules[n.a].body);
        break;
      default:
        break;
    }
  }
}

void RuleAnalysis::CheckUnitsInline(uint32_t countedNode, const std::string& rule) const {
  // The units a counted node counts must be met on its own rule level: inside a call they would
  // count for another frame (a recursive rule, or a large repeat built as a rule of its own).
  ForEachOnLevel(g_.nodes[countedNode].a, [&](uint32_t id, const ir::Node& n) {
    switch (n.kind) {
      case Kind::Counted:  // a nested counted node counts its own units
        return false;
      case Kind::Marks:
        // A marks node inside another one is a rule level of its own (nfa_builder.cpp).
        if (NestedMarksHold(n.a, [&](uint32_t item) { return FreeUnits(item); })) {
          FailRule(rule, "a counted node reaches units inside a marks node nested in another one; such a marks node is a rule level "
                         "of its own, so those units cannot count");
        }
        return true;
      case Kind::Repeat:
        if (Counted(id) && FreeUnits(n.a)) {
          FailRule(rule, "a counted node holds a repeat {" + std::to_string(n.b) + "," +
                             (n.c == ir::kNone ? std::string() : std::to_string(n.c)) +
                             "} with units inside; a repeat that large is a rule level of its own, so those units cannot count");
        }
        return true;
      case Kind::Ref:
        if (kept_[n.a] && FreeUnits(g_.rules[n.a].body)) {
          FailRule(rule, "a counted node reaches units through the recursive rule '" + g_.rules[n.a].name +
                             "'; units must be met on the counted node's own rule level");
        }
        return true;
      default:
        return true;
    }
  });
}

template <class Holds>
bool RuleAnalysis::NestedMarksHold(uint32_t item, Holds holds) const {
  // Marks nodes inside `item` on its own level (through inlined references), and whether one
  // of their items satisfies `holds`.
  bool found = false;
  ForEachOnLevel(item, [&](uint32_t, const ir::Node& n) {
    if (n.kind != Kind::Marks) return !found;
    found = found || holds(n.a);
    return false;
  });
  return found;
}

void RuleAnalysis::CheckMarksInline(uint32_t marksNode, const std::string& rule) const {
  // The marks a marks node holds must be met on its own rule level, like units (CheckUnitsInline):
  // not through a recursive rule, not inside a repeat large enough to be counted (it may be a
  // rule level of its own), not inside a counted node (one nested in a counted node is one).
  ForEachOnLevel(g_.nodes[marksNode].a, [&](uint32_t id, const ir::Node& n) {
    switch (n.kind) {
      case Kind::Marks:  // a nested marks node holds its own
        return false;
      case Kind::Mark:
        if (NullableNode(n.a)) FailRule(rule, "a mark node matches the empty string");
        return true;
      case Kind::Repeat:
      case Kind::Counted:
        if ((n.kind == Kind::Counted || Counted(id)) && FreeMarks(n.a)) {
          FailRule(rule, std::string("a marks node holds ") + (n.kind == Kind::Counted ? "a counted node" : "a large repeat") +
                             " with marks inside, which may be a rule level of its own; put the mark nodes outside it");
        }
        return true;
      case Kind::Ref:
        if (kept_[n.a] && FreeMarks(g_.rules[n.a].body)) {
          FailRule(rule, "a marks node reaches mark nodes through the recursive rule '" + g_.rules[n.a].name +
                             "'; marks must be met on the marks node's own rule level");
        }
        return true;
      default:
        return true;
    }
  });
}

}  // namespace tagmask
