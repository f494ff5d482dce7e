// A token trie: the byte strings of a set of tokens, sorted, with one node per distinct prefix,
// laid out in flat arrays in depth-first (pre-)order. docs/token-trie.md explains the layout and
// why it is walked the way it is.
//
// The trie knows nothing of grammars. Walkers (trie_walker.h) go through it node by node in
// index order, keeping their own per-depth state, and skip a whole subtree by jumping to its end.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tagmask {

class TokenTrie {
 public:
  /// The largest number of nodes a trie can hold (subtree ends are stored in 24 bits).
  static constexpr uint32_t kMaxNodes = (1u << 24) - 1;

  TokenTrie() = default;

  /// Builds the trie of the tokens `ids`, token t being bytes[offsets[t], offsets[t+1]).
  /// Tokens must be non-empty. Equal byte strings may repeat (they share a node).
  void Build(const std::vector<uint32_t>& ids, const uint8_t* bytes, const uint32_t* offsets);

  /// Number of nodes, the root (node 0, the empty prefix) included.
  uint32_t NodeCount() const { return static_cast<uint32_t>(tokenBegin_.size()) - 1; }
  /// Number of tokens in the trie.
  uint32_t TokenCount() const { return static_cast<uint32_t>(ids_.size()); }

  /// The byte on the edge into node i (i > 0).
  uint8_t Label(uint32_t i) const { return static_cast<uint8_t>(labelEnd_[i] >> 24); }
  /// One past the last node of i's subtree.
  uint32_t SubtreeEnd(uint32_t i) const { return labelEnd_[i] & 0xFFFFFFu; }
  /// Tokens ending at node i are TokenIds()[TokenBegin(i), TokenBegin(i + 1)); the tokens of
  /// i's subtree are [TokenBegin(i), TokenBegin(SubtreeEnd(i))).
  uint32_t TokenBegin(uint32_t i) const { return tokenBegin_[i]; }
  /// Token ids in trie order (sorted by bytes).
  const uint32_t* TokenIds() const { return ids_.data(); }
  /// The length in bytes of the longest token of i's subtree (saturated at 65535).
  uint16_t MaxLength(uint32_t i) const { return maxLength_[i]; }
  /// The characters of node i's bytes (UTF-8: the bytes that are not continuation bytes
  /// 0x80-0xBF), times 4, plus the continuation bytes its last character still lacks (0 when
  /// its bytes end on a character boundary). Lets a walker tell how many characters the tokens
  /// below a node add to it without walking them.
  uint32_t Chars(uint32_t i) const { return chars_[i]; }
  /// The node of the one-byte prefix `b`, or 0 when no token starts with b.
  uint32_t RootChild(uint8_t b) const { return rootChild_[b]; }
  /// The child of node i whose edge is labelled b, or 0 when there is none. Lets a walker in a
  /// state with one live byte go straight to the one child that can be live instead of trying
  /// every child. Children are in label order: a few are scanned, and a node with many (Llama 3's
  /// plain trie: 2,417 nodes with 8 or more, up to ~200) is looked up in a small label index.
  uint32_t Child(uint32_t i, uint8_t b) const {
    const uint32_t end = SubtreeEnd(i);
    uint32_t c = i + 1;
    for (uint32_t k = 0; k < kIndexedChildren && c < end; ++k, c = SubtreeEnd(c)) {
      const uint8_t label = Label(c);
      if (label >= b) return label == b ? c : 0;
    }
    if (c >= end) return 0;
    const size_t at = static_cast<size_t>(std::lower_bound(indexed_.begin(), indexed_.end(), i) - indexed_.begin());
    const uint32_t lo = indexBegin_[at];
    const void* hit = std::memchr(childLabel_.data() + lo, b, indexBegin_[at + 1] - lo);
    return hit == nullptr ? 0 : child_[static_cast<size_t>(static_cast<const uint8_t*>(hit) - childLabel_.data())];
  }

  /// Raw arrays for walkers.
  const uint32_t* LabelEndData() const { return labelEnd_.data(); }
  const uint32_t* TokenBeginData() const { return tokenBegin_.data(); }
  const uint16_t* MaxLengthData() const { return maxLength_.data(); }
  const uint32_t* CharsData() const { return chars_.data(); }

  size_t MemoryBytes() const {
    return labelEnd_.capacity() * 4 + tokenBegin_.capacity() * 4 + maxLength_.capacity() * 2 + chars_.capacity() * 4 + ids_.capacity() * 4 +
           indexed_.capacity() * 4 + indexBegin_.capacity() * 4 + child_.capacity() * 4 + childLabel_.capacity() + sizeof(rootChild_);
  }

 private:
  std::vector<uint32_t> labelEnd_;    // per node: label << 24 | subtree end
  std::vector<uint32_t> tokenBegin_;  // per node, plus one sentinel entry = token count
  std::vector<uint16_t> maxLength_;   // per node
  std::vector<uint32_t> chars_;       // per node (Chars)
  std::vector<uint32_t> ids_;         // token ids in trie order
  std::array<uint32_t, 256> rootChild_{};
  // The label index of the nodes with at least kIndexedChildren children (Child()).
  static constexpr uint32_t kIndexedChildren = 8;
  std::vector<uint32_t> indexed_;     // those nodes, ascending
  std::vector<uint32_t> indexBegin_;  // per indexed node, plus a sentinel: its children in child_ / childLabel_
  std::vector<uint32_t> child_;       // their children grouped by parent, each group in label order
  std::vector<uint8_t> childLabel_;   // and the children's labels
};

}  // namespace tagmask
