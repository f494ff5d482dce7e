#include "cut_tables.h"

#include <algorithm>
#include <array>

#include "trie_walker.h"

namespace tagmask {

// Groups the absorbing states by the ASCII bytes that loop on them, and gets for each group the
// impure-trie node maxima of CutRule (cached by the tokenizer).
void BuildProfiles(const Automaton& a, const TokenizerInfo& tok, std::vector<uint32_t>* profileOf,
                   std::vector<std::shared_ptr<const std::vector<uint16_t>>>* nodeMax) {
  const uint32_t count = a.StateCount();
  profileOf->assign(count, CutRule::kNoProfile);
  std::vector<std::array<bool, 128>> sets;
  for (uint32_t s = 1; s < count; ++s) {
    if (!a.Is(s, kAbsorbing)) continue;
    std::array<bool, 128> loops{};
    for (int b = 0; b < 128; ++b) loops[b] = a.Next(s, static_cast<uint8_t>(b)) == s;
    uint32_t p = 0;
    while (p < sets.size() && sets[p] != loops) ++p;
    if (p == sets.size()) sets.push_back(loops);
    (*profileOf)[s] = p;
  }
  nodeMax->clear();
  for (const auto& set : sets) nodeMax->push_back(tok.ImpureNodeMaxima(set));
}

// Per state: the largest k such that every sequence of at most k bytes of plain characters
// (tokenizer_info.h; a last character may be cut off) keeps the state alive; 0xFFFF when no such
// sequence can kill it (absorbing states, and states that reach only such). A shortest-path
// problem over characters: plain ASCII bytes weigh 1, a multi-byte character its length, a
// character that dies after j of its bytes bounds k by j - 1.
std::vector<uint16_t> PlainDepth(const Automaton& a, uint32_t maxTokenLength) {
  constexpr uint32_t kInfinite = 0xFFFF;
  // Depths past the longest token change nothing: they count as infinite.
  const uint32_t cap = std::min<uint32_t>(kInfinite, maxTokenLength + 1);
  const uint32_t count = a.StateCount();
  std::vector<uint16_t> depth(count, kInfinite);
  // Classes holding a plain ASCII byte.
  std::vector<uint32_t> asciiClasses;
  for (int b = 0; b < 0x80; ++b) {
    if (IsPlainAscii(static_cast<uint8_t>(b))) asciiClasses.push_back(a.byteClass[b]);
  }
  std::sort(asciiClasses.begin(), asciiClasses.end());
  asciiClasses.erase(std::unique(asciiClasses.begin(), asciiClasses.end()), asciiClasses.end());
  struct LeadType {
    uint8_t leadLo, leadHi, lo, hi;
    int continuations;
  };
  static constexpr LeadType kLeads[] = {
      {0xC2, 0xDF, 0x80, 0xBF, 1}, {0xE0, 0xE0, 0xA0, 0xBF, 2}, {0xE1, 0xEC, 0x80, 0xBF, 2}, {0xED, 0xED, 0x80, 0x9F, 2},
      {0xEE, 0xEF, 0x80, 0xBF, 2}, {0xF0, 0xF0, 0x90, 0xBF, 3}, {0xF1, 0xF3, 0x80, 0xBF, 3}, {0xF4, 0xF4, 0x80, 0x8F, 3},
  };
  const auto classesIn = [&](uint8_t lo, uint8_t hi) {
    std::vector<uint32_t> out;
    for (int b = lo; b <= hi; ++b) out.push_back(a.byteClass[b]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  std::vector<std::vector<uint32_t>> leadClasses, firstClasses;
  for (const LeadType& lt : kLeads) {
    leadClasses.push_back(classesIn(lt.leadLo, lt.leadHi));
    firstClasses.push_back(classesIn(lt.lo, lt.hi));
  }
  const std::vector<uint32_t> contClasses = classesIn(0x80, 0xBF);
  // Character edges s -> t with their byte weight, kept in reverse for the propagation.
  std::vector<std::vector<std::pair<uint32_t, uint8_t>>> reverse(count);
  std::vector<uint32_t> level, next;
  std::vector<std::pair<uint32_t, uint8_t>> edges;  // one state's character edges
  for (uint32_t s = 1; s < count; ++s) {
    // At most one live byte (a literal's or an enum's next byte): some plain ASCII byte kills the
    // state, so its depth is 0.
    if (a.singleByte[s] != -2 && asciiClasses.size() > 1) {
      depth[s] = 0;
      continue;
    }
    uint32_t bound = kInfinite;  // from characters that die
    edges.clear();
    const auto edge = [&](uint32_t t, uint32_t weight) {
      if (t == kDeadState) {
        bound = std::min(bound, weight - 1);
      } else if (t != s) {
        edges.push_back({t, static_cast<uint8_t>(weight)});
      }
    };
    for (uint32_t c : asciiClasses) edge(a.NextByClass(s, c), 1);
    if (bound > 0) {
      for (size_t t = 0; t < sizeof(kLeads) / sizeof(kLeads[0]) && bound > 0; ++t) {
        level.clear();
        for (uint32_t c : leadClasses[t]) level.push_back(a.NextByClass(s, c));
        for (int k = 0; k <= kLeads[t].continuations && bound > 0; ++k) {
          std::sort(level.begin(), level.end());
          level.erase(std::unique(level.begin(), level.end()), level.end());
          if (level.front() == kDeadState) {
            bound = std::min<uint32_t>(bound, static_cast<uint32_t>(k));  // died on byte k + 1
            break;
          }
          if (k == kLeads[t].continuations) {
            for (uint32_t x : level) edge(x, static_cast<uint32_t>(k) + 1);
            break;
          }
          next.clear();
          for (uint32_t x : level) {
            for (uint32_t c : (k == 0 ? firstClasses[t] : contClasses)) next.push_back(a.NextByClass(x, c));
          }
          level.swap(next);
        }
      }
    }
    depth[s] = static_cast<uint16_t>(bound);
    // A state some plain byte kills has depth 0 whatever follows: its edges would never lower
    // it (most states of literals and enums; this keeps the reverse lists small).
    if (bound == 0) continue;
    for (const auto& [t, weight] : edges) reverse[t].push_back({s, weight});
  }
  depth[kDeadState] = 0;
  // Shortest paths to death: a bucket queue over depth values.
  std::vector<std::vector<uint32_t>> buckets(cap);
  for (uint32_t s = 1; s < count; ++s) {
    if (depth[s] < cap) buckets[depth[s]].push_back(s);
  }
  for (uint32_t d = 0; d < cap; ++d) {
    for (size_t i = 0; i < buckets[d].size(); ++i) {
      const uint32_t t = buckets[d][i];
      if (depth[t] != d) continue;  // a shorter path was found after it was queued
      for (const auto& [s, w] : reverse[t]) {
        const uint32_t candidate = d + w;
        if (candidate < depth[s] && candidate < cap) {
          depth[s] = static_cast<uint16_t>(candidate);
          buckets[candidate].push_back(s);
        }
      }
    }
  }
  for (uint16_t& d : depth) {
    if (d >= cap) d = kInfinite;
  }
  return depth;
}

// Per state: CutRule::midChar. A state qualifies for L = 1 when every continuation byte (0x80-0xBF)
// leads to a state of unlimited plain depth, for L > 1 when every one leads to a state of L - 1.
// The continuations a plain token can have are a subset of those bytes, so its walk cannot die
// inside the character nor after it. Without this, every state inside a free string walked each
// multi-byte lead byte's subtree down to its characters' ends (~4,500 nodes of Llama 3's plain
// trie per state).
std::vector<uint8_t> MidCharLength(const Automaton& a, const std::vector<uint16_t>& plainDepth) {
  const uint32_t count = a.StateCount();
  std::vector<uint8_t> mid(count, 0);
  std::vector<uint32_t> contClasses;
  for (int b = 0x80; b < 0xC0; ++b) contClasses.push_back(a.byteClass[b]);
  std::sort(contClasses.begin(), contClasses.end());
  contClasses.erase(std::unique(contClasses.begin(), contClasses.end()), contClasses.end());
  for (uint8_t len = 1; len <= 3; ++len) {
    for (uint32_t s = 1; s < count; ++s) {
      if (mid[s] != 0 || a.singleByte[s] != -2) continue;  // one live byte cannot take 64
      bool ok = true;
      for (uint32_t c : contClasses) {
        const uint32_t t = a.NextByClass(s, c);
        if (t == kDeadState || (len == 1 ? plainDepth[t] != 0xFFFF : mid[t] != len - 1)) {
          ok = false;
          break;
        }
      }
      if (ok) mid[s] = len;
    }
  }
  return mid;
}

}  // namespace tagmask
