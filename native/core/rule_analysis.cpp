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

RuleAnalysis::RuleAnalysis(const ir::Grammar& g, const CompileLimits& limits) : g_(g), limits_(limits) {
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
  std::vector<uint8_t> node(g_.nodes.size(), 0);
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
          v = 0;
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
    case Kind::Repeat: {
      const uint64_t item = NodeSize(n.a, depth + 1, rule);
      const uint64_t copies = n.c == ir::kNone ? std::max<uint64_t>(n.b, 1) : n.c;
      size = SatAdd(1, SatMul(item, copies));
      break;
    }
    case Kind::Ref:
      // Rules that are not kept form an acyclic graph, so this recursion ends.
      if (!kept_[n.a]) size = RuleSize(n.a, depth + 1);
      if (kept_[n.a]) size = 1;
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
  nodeSize_[id] = size;
  return size;
}

}  // namespace tagmask
