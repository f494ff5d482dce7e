// Token edges of the automaton (docs/engine.md, "Token edges"): transitions that take one whole
// token by its id, for the grammar IR's token nodes. Token ids are grouped into classes (the ids
// the grammar's token nodes tell apart); a state's token edges are (class, target) pairs. The
// matcher takes a token through them at a token boundary, besides stepping its bytes, and adds
// the tokens they take to the mask it fills (matcher_token_edges.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tagmask {

struct TokenEdge {
  uint32_t tokenClass;
  uint32_t target;
};

struct TokenEdgeTable {
  static constexpr uint32_t kNoClass = 0xFFFFFFFFu;
  uint32_t classCount = 0;
  /// Ids some token node names, ascending, and their classes.
  std::vector<uint32_t> ids;
  std::vector<uint32_t> idClass;
  /// Per class: its named ids, [classBegin[k], classBegin[k + 1]) into classIds.
  std::vector<uint32_t> classBegin;
  std::vector<uint32_t> classIds;
  /// The class of the free tokens no node names (kNoClass if none), and those tokens as a mask row.
  uint32_t other = kNoClass;
  std::vector<uint32_t> otherMask;
  /// Per state: its edges, [stateBegin[s], stateBegin[s + 1]) into edges. Empty without token edges.
  std::vector<uint32_t> stateBegin;
  std::vector<TokenEdge> edges;

  bool Active() const { return !stateBegin.empty(); }
  bool HasEdges(uint32_t state) const { return !stateBegin.empty() && stateBegin[state] != stateBegin[state + 1]; }
  /// The class of a token id, or kNoClass when no token edge can take it.
  uint32_t ClassOf(uint32_t id) const {
    const auto it = std::lower_bound(ids.begin(), ids.end(), id);
    if (it != ids.end() && *it == id) return idClass[static_cast<size_t>(it - ids.begin())];
    if (other != kNoClass && (id >> 5) < otherMask.size() && ((otherMask[id >> 5] >> (id & 31)) & 1u)) return other;
    return kNoClass;
  }
  /// The target of `state`'s edge for `tokenClass`, or 0 (dead).
  uint32_t Next(uint32_t state, uint32_t tokenClass) const {
    for (uint32_t e = stateBegin[state]; e < stateBegin[state + 1]; ++e) {
      if (edges[e].tokenClass == tokenClass) return edges[e].target;
    }
    return 0;
  }
  /// Sets in `row` every token a state's edges take.
  void SetTokens(uint32_t state, uint32_t* row) const {
    for (uint32_t e = stateBegin[state]; e < stateBegin[state + 1]; ++e) {
      const uint32_t k = edges[e].tokenClass;
      if (k == other) {
        for (size_t w = 0; w < otherMask.size(); ++w) row[w] |= otherMask[w];
      }
      for (uint32_t i = classBegin[k]; i < classBegin[k + 1]; ++i) row[classIds[i] >> 5] |= 1u << (classIds[i] & 31);
    }
  }
  size_t MemoryBytes() const {
    return (ids.capacity() + idClass.capacity() + classBegin.capacity() + classIds.capacity() + otherMask.capacity() +
            stateBegin.capacity()) * 4 + edges.capacity() * sizeof(TokenEdge);
  }
};

}  // namespace tagmask
