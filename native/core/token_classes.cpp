#include "token_classes.h"

#include <algorithm>
#include <map>

#include "token_nodes.h"

namespace tagmask {

TokenClasses BuildTokenClasses(const ir::Grammar& g, const TokenizerInfo& tok) {
  TokenClasses out;
  // The distinct sets the nodes take: (negated, sorted ids), and which nodes take each.
  std::map<std::pair<bool, std::vector<uint32_t>>, uint32_t> setIndex;
  std::vector<std::pair<bool, std::vector<uint32_t>>> sets;
  std::vector<std::pair<uint32_t, uint32_t>> nodeSet;  // (node, set)
  for (uint32_t id = 0; id < g.nodes.size(); ++id) {
    const ir::Node& n = g.nodes[id];
    if (!IsTokenKindCode(static_cast<uint32_t>(n.kind))) continue;
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < n.b; ++i) ids.push_back(g.TokenId(n, i));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto key = std::make_pair(n.kind != ir::Kind::Token, std::move(ids));
    auto it = setIndex.find(key);
    if (it == setIndex.end()) {
      it = setIndex.emplace(key, static_cast<uint32_t>(sets.size())).first;
      sets.push_back(std::move(key));
    }
    nodeSet.emplace_back(id, it->second);
  }
  if (sets.empty()) return out;

  // Signatures: for each named id, which sets take it; ids with equal signatures share a class.
  std::vector<uint32_t> named;
  for (const auto& s : sets) named.insert(named.end(), s.second.begin(), s.second.end());
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  const auto takes = [&](const std::pair<bool, std::vector<uint32_t>>& s, uint32_t id) {
    const bool listed = std::binary_search(s.second.begin(), s.second.end(), id);
    return s.first ? (tok.IsEligible(id) && !listed) : listed;
  };
  std::map<std::vector<bool>, uint32_t> classOf;
  std::vector<std::vector<bool>> signatures;
  for (uint32_t id : named) {
    std::vector<bool> sig(sets.size());
    bool any = false;
    for (size_t k = 0; k < sets.size(); ++k) any = (sig[k] = takes(sets[k], id)) || any;
    if (!any) continue;  // no node takes it: it needs no column
    auto it = classOf.find(sig);
    if (it == classOf.end()) {
      it = classOf.emplace(sig, out.count++).first;
      out.ids.emplace_back();
      signatures.push_back(sig);
    }
    out.ids[it->second].push_back(id);
  }
  // The free tokens nobody names: taken by every negated set.
  std::vector<bool> otherSig(sets.size());
  bool anyNegated = false;
  for (size_t k = 0; k < sets.size(); ++k) anyNegated = (otherSig[k] = sets[k].first) || anyNegated;
  if (anyNegated) {
    out.other = out.count++;
    out.ids.emplace_back();
    signatures.push_back(otherSig);
    const uint32_t* eligible = tok.EligibleMask();
    out.otherMask.assign(eligible, eligible + tok.MaskWordCount());
    for (uint32_t id : named) out.otherMask[id >> 5] &= ~(1u << (id & 31));
  }
  for (const auto& [node, set] : nodeSet) {
    std::vector<uint32_t>& classes = out.ofNode[node];
    for (uint32_t c = 0; c < out.count; ++c) {
      if (signatures[c][set]) classes.push_back(c);
    }
  }
  return out;
}

}  // namespace tagmask
