#include "rule_merge.h"

#include <map>
#include <vector>

namespace tagmask {

void MergeEqualRules(ir::Grammar* grammar) {
  ir::Grammar& g = *grammar;
  const uint32_t rules = static_cast<uint32_t>(g.rules.size());
  if (rules < 2) return;
  const uint32_t nodes = static_cast<uint32_t>(g.nodes.size());
  // Partition refinement from "all rules equal": value-number every node with references read
  // as the class of their target, then split rules by (class, value number of the body) until
  // nothing splits. The result is the coarsest partition closed under the structure.
  std::vector<uint32_t> cls(rules, 0), value(nodes, 0);
  std::map<std::vector<uint32_t>, uint32_t> numbers;
  std::vector<uint32_t> key;
  uint32_t classCount = 1;
  for (;;) {
    numbers.clear();
    for (uint32_t id = 0; id < nodes; ++id) {
      const ir::Node& n = g.nodes[id];
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
          key.insert(key.end(), {value[n.a], n.b, n.c});
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
      value[id] = numbers.emplace(key, static_cast<uint32_t>(numbers.size())).first->second;
    }
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> split;
    std::vector<uint32_t> next(rules);
    for (uint32_t r = 0; r < rules; ++r) {
      next[r] = split.emplace(std::make_pair(cls[r], value[g.rules[r].body]), static_cast<uint32_t>(split.size())).first->second;
    }
    cls.swap(next);
    if (split.size() == classCount) break;
    classCount = static_cast<uint32_t>(split.size());
  }
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
