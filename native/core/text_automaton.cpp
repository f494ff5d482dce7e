#include "text_automaton.h"

#include <deque>
#include <unordered_map>

#include "tagmask/error.h"
#include "tagmask/ir.h"

namespace tagmask {
namespace {

// UTF-8 decoder states: 0 at a character boundary, 1..7 inside a character (see kDecoder).
struct DecoderState {
  uint8_t lo, hi;  // allowed range of the next byte
  uint8_t next;    // decoder state after it (0: the character is complete)
};
constexpr DecoderState kDecoder[8] = {
    {0, 0, 0},                                              // 0: boundary (leads handled apart)
    {0x80, 0xBF, 0}, {0x80, 0xBF, 1}, {0x80, 0xBF, 2},      // 1..3: need 1, 2, 3 more bytes
    {0xA0, 0xBF, 1}, {0x80, 0x9F, 1},                       // 4: after E0, 5: after ED
    {0x90, 0xBF, 2}, {0x80, 0x8F, 2},                       // 6: after F0, 7: after F4
};

// Decoder state after a lead byte at a boundary; 0 for ASCII (complete); -1 if invalid.
int AfterLead(uint8_t b) {
  if (b < 0x80) return 0;
  if (b >= 0xC2 && b <= 0xDF) return 1;
  if (b == 0xE0) return 4;
  if (b == 0xED) return 5;
  if (b >= 0xE1 && b <= 0xEF) return 2;
  if (b == 0xF0) return 6;
  if (b >= 0xF1 && b <= 0xF3) return 3;
  if (b == 0xF4) return 7;
  return -1;
}

// Aho-Corasick automaton over the excluded strings, with a dense transition table and a flag for
// nodes whose string (or one of its suffixes) is excluded.
struct AhoCorasick {
  std::vector<int32_t> next;  // node * 256 + byte
  std::vector<uint8_t> hit;

  explicit AhoCorasick(const std::vector<std::string>& patterns) {
    AddNode();
    for (const std::string& p : patterns) {
      int32_t node = 0;
      for (unsigned char c : p) {
        int32_t& slot = next[static_cast<size_t>(node) * 256 + c];
        if (slot < 0) {
          const int32_t fresh = AddNode();
          next[static_cast<size_t>(node) * 256 + c] = fresh;
          node = fresh;
        } else {
          node = slot;
        }
      }
      hit[node] = 1;
    }
    // Breadth-first: fill missing transitions from the failure node's, propagate hits.
    std::vector<int32_t> fail(hit.size(), 0);
    std::deque<int32_t> queue;
    for (int c = 0; c < 256; ++c) {
      int32_t& child = next[c];
      if (child < 0) {
        child = 0;
      } else {
        fail[child] = 0;
        queue.push_back(child);
      }
    }
    while (!queue.empty()) {
      const int32_t node = queue.front();
      queue.pop_front();
      hit[node] |= hit[fail[node]];
      for (int c = 0; c < 256; ++c) {
        const size_t at = static_cast<size_t>(node) * 256 + c;
        const int32_t child = next[at];
        const int32_t viaFail = next[static_cast<size_t>(fail[node]) * 256 + c];
        if (child < 0) {
          next[at] = viaFail;
        } else {
          fail[child] = viaFail;
          queue.push_back(child);
        }
      }
    }
  }

  int32_t AddNode() {
    next.resize(next.size() + 256, -1);
    hit.push_back(0);
    return static_cast<int32_t>(hit.size()) - 1;
  }
};

}  // namespace

TextDfa BuildTextDfa(const std::vector<std::string>& excludes, uint32_t maxChars, uint32_t stateLimit,
                     const std::string& where) {
  const AhoCorasick ac(excludes);
  struct Key {
    uint32_t ac;
    uint8_t dec;
    uint32_t chars;
  };
  const auto pack = [](const Key& k) {
    return (static_cast<uint64_t>(k.ac) << 36) | (static_cast<uint64_t>(k.dec) << 32) | k.chars;
  };
  std::unordered_map<uint64_t, int32_t> ids;
  std::vector<Key> keys;
  TextDfa dfa;
  const auto intern = [&](const Key& k) -> int32_t {
    const auto [it, fresh] = ids.emplace(pack(k), static_cast<int32_t>(keys.size()));
    if (fresh) {
      if (keys.size() >= stateLimit) {
        throw Error(ErrorCode::InvalidGrammar, where + ": the text automaton needs more than " +
                                                   std::to_string(stateLimit) +
                                                   " states (too many or too long excluded strings, or max_chars too large)");
      }
      keys.push_back(k);
    }
    return it->second;
  };
  intern(Key{0, 0, 0});
  for (size_t s = 0; s < keys.size(); ++s) {
    const Key k = keys[s];
    dfa.next.resize((s + 1) * 256, -1);
    dfa.accepting.push_back(k.dec == 0 ? 1 : 0);
    for (int b = 0; b < 256; ++b) {
      const uint8_t byte = static_cast<uint8_t>(b);
      Key to{0, 0, k.chars};
      if (k.dec == 0) {
        if (maxChars != ir::kNone && k.chars >= maxChars) continue;  // no room for another character
        const int dec = AfterLead(byte);
        if (dec < 0) continue;
        to.dec = static_cast<uint8_t>(dec);
        if (dec == 0) ++to.chars;
      } else {
        const DecoderState& d = kDecoder[k.dec];
        if (byte < d.lo || byte > d.hi) continue;
        to.dec = d.next;
        if (d.next == 0) ++to.chars;
      }
      const int32_t acNext = ac.next[static_cast<size_t>(k.ac) * 256 + byte];
      if (ac.hit[acNext]) continue;
      to.ac = static_cast<uint32_t>(acNext);
      if (maxChars == ir::kNone) to.chars = 0;
      dfa.next[s * 256 + b] = intern(to);
    }
  }
  return dfa;
}

}  // namespace tagmask
