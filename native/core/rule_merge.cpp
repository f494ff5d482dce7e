#include "rule_merge.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "signature_table.h"

namespace tagmask {

namespace {

/// The value-numbering key of node `n`: its kind and content, children as their value numbers and
/// references as the class of their target.
void NodeKey(const ir::Grammar& g, const ir::Node& n, const std::vector<uint32_t>& value, const std::vector<uint32_t>& cls,
             std::vector<uint32_t>* out) {
  std::vector<uint32_t>& key = *out;
  key.assign({static_cast<uint32_t>(n.kind)});
  switch (n.kind) {
    case ir::Kind::Empty:
    case ir::Kind::Never:
      break;
    case ir::Kind::Bytes:
      key.insert(key.end(), g.Literal(n), g.Literal(n) + n.b);
      break;
    case ir::Kind::Class:
      key.push_back(n.c);
      key.insert(key.end(), g.Ranges(n), g.Ranges(n) + 2 * n.b);
      break;
    case ir::Kind::Seq:
    case ir::Kind::Choice:
      for (uint32_t i = 0; i < n.b; ++i) key.push_back(value[g.Children(n)[i]]);
      break;
    case ir::Kind::Repeat:
    case ir::Kind::Counted:
    case ir::Kind::Unit:
    case ir::Kind::Marks:
    case ir::Kind::Mark:
    case ir::Kind::Residue:
      key.insert(key.end(), {value[n.a], n.b, n.c});
      break;
    case ir::Kind::ResidueDigit:
    case ir::Kind::ResidueLive:
      key.insert(key.end(), {n.a, n.b, n.c});
      break;
    case ir::Kind::Ref:
      key.push_back(cls[n.a]);
      break;
    case ir::Kind::Text: {
      key.insert(key.end(), {g.TextMaxChars(n), g.TextMaxTokens(n), n.b});
      for (uint32_t i = 0; i < n.b; ++i) {
        uint32_t len;
        const uint8_t* p = g.TextExclude(n, i, &len);
        key.push_back(len);
        key.insert(key.end(), p, p + len);
      }
      break;
    }
    case ir::Kind::Token:
    case ir::Kind::ExcludeToken:
    case ir::Kind::AnyTokens:
      // Ids only: the compiler resolves token texts before merging.
      key.insert(key.end(), {n.b, n.c});
      for (uint32_t i = 0; i < n.b; ++i) key.insert(key.end(), {g.TokenEntryTag(n, i), g.TokenId(n, i)});
      break;
  }
}

/// The ids a node points at without leaving its rule: children and items.
template <typename F>
void ForEachInner(const ir::Grammar& g, const ir::Node& n, F&& f) {
  switch (n.kind) {
    case ir::Kind::Seq:
    case ir::Kind::Choice:
      for (uint32_t i = 0; i < n.b; ++i) f(g.Children(n)[i]);
      break;
    case ir::Kind::Repeat:
    case ir::Kind::Counted:
    case ir::Kind::Unit:
    case ir::Kind::Marks:
    case ir::Kind::Mark:
    case ir::Kind::Residue:
      f(n.a);
      break;
    default:
      break;
  }
}

}  // namespace

void MergeEqualRules(ir::Grammar* grammar) {
  ir::Grammar& g = *grammar;
  const uint32_t rules = static_cast<uint32_t>(g.rules.size());
  if (rules < 2) return;
  const uint32_t nodes = static_cast<uint32_t>(g.nodes.size());

  // Each rule's nodes (its body's tree, references not followed), children before parents as
  // the buffer orders them, and for each rule the rules that refer to it.
  std::vector<uint32_t> nodeStart(rules + 1, 0), ruleNodes, seen(nodes, UINT32_MAX), stack;
  std::vector<std::vector<uint32_t>> callers(rules);
  for (uint32_t r = 0; r < rules; ++r) {
    const size_t first = ruleNodes.size();
    stack.assign({g.rules[r].body});
    seen[g.rules[r].body] = r;
    while (!stack.empty()) {
      const uint32_t id = stack.back();
      stack.pop_back();
      ruleNodes.push_back(id);
      const ir::Node& n = g.nodes[id];
      if (n.kind == ir::Kind::Ref && (callers[n.a].empty() || callers[n.a].back() != r)) callers[n.a].push_back(r);
      ForEachInner(g, n, [&](uint32_t child) {
        if (seen[child] != r) {
          seen[child] = r;
          stack.push_back(child);
        }
      });
    }
    std::sort(ruleNodes.begin() + static_cast<std::ptrdiff_t>(first), ruleNodes.end());
    nodeStart[r + 1] = static_cast<uint32_t>(ruleNodes.size());
  }

  // Partition refinement from "all rules equal": value-number the nodes with references read as
  // the class of their target, and split each class by the value of its rules' bodies until
  // nothing splits — the coarsest partition closed under the structure. Only rules whose
  // referenced classes changed are valued again, and a split keeps the class id for its largest
  // part, so a long chain of rules costs about its size, not its size times its length.
  std::vector<uint32_t> cls(rules, 0), bodyValue(rules, 0), value(nodes, 0);
  std::vector<std::vector<uint32_t>> members(1);
  members[0].resize(rules);
  for (uint32_t r = 0; r < rules; ++r) members[0][r] = r;
  SignatureTable numbers(nodes);
  std::vector<uint32_t> key, dirty(members[0]), touched, moved;
  std::vector<uint8_t> isDirty(rules, 1), isTouched(1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> parts;
  while (!dirty.empty()) {
    for (uint32_t r : dirty) {
      for (uint32_t i = nodeStart[r]; i < nodeStart[r + 1]; ++i) {
        const uint32_t id = ruleNodes[i];
        NodeKey(g, g.nodes[id], value, cls, &key);
        bool added;
        value[id] = numbers.Intern(key, &added);
      }
      bodyValue[r] = value[g.rules[r].body];
    }
    touched.clear();
    for (uint32_t r : dirty) {
      isDirty[r] = 0;
      if (!isTouched[cls[r]]) {
        isTouched[cls[r]] = 1;
        touched.push_back(cls[r]);
      }
    }
    moved.clear();
    for (uint32_t c : touched) {
      isTouched[c] = 0;
      parts.clear();
      for (uint32_t r : members[c]) parts.emplace_back(bodyValue[r], r);
      std::sort(parts.begin(), parts.end());
      if (parts.front().first == parts.back().first) continue;
      // Runs of equal body values; the longest keeps the id c.
      size_t bestBegin = 0, bestLen = 0;
      for (size_t i = 0; i < parts.size();) {
        size_t j = i;
        while (j < parts.size() && parts[j].first == parts[i].first) ++j;
        if (j - i > bestLen) {
          bestBegin = i;
          bestLen = j - i;
        }
        i = j;
      }
      members[c].clear();
      for (size_t i = 0; i < parts.size();) {
        size_t j = i;
        while (j < parts.size() && parts[j].first == parts[i].first) ++j;
        uint32_t target = c;
        if (i != bestBegin) {
          target = static_cast<uint32_t>(members.size());
          members.emplace_back();
          isTouched.push_back(0);
        }
        for (size_t k = i; k < j; ++k) {
          const uint32_t r = parts[k].second;
          members[target].push_back(r);
          if (target != c) {
            cls[r] = target;
            moved.push_back(r);
          }
        }
        i = j;
      }
      std::sort(members[c].begin(), members[c].end());
    }
    dirty.clear();
    for (uint32_t r : moved) {
      for (uint32_t caller : callers[r]) {
        if (!isDirty[caller]) {
          isDirty[caller] = 1;
          dirty.push_back(caller);
        }
      }
    }
  }
  const uint32_t classCount = static_cast<uint32_t>(members.size());
  std::vector<uint32_t> representative(classCount, UINT32_MAX);
  for (uint32_t r = 0; r < rules; ++r) {
    if (representative[cls[r]] == UINT32_MAX) representative[cls[r]] = r;
  }
  for (ir::Node& n : g.nodes) {
    if (n.kind == ir::Kind::Ref) n.a = representative[cls[n.a]];
  }
  g.root = representative[cls[g.root]];
}

}  // namespace tagmask
