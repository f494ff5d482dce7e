#include "tagmask/token_trie.h"

#include <algorithm>
#include <cstring>

#include "tagmask/error.h"

namespace tagmask {
namespace {

// Bucket key of the first two bytes: a one-byte token sorts before every longer token with the
// same first byte, hence the +1 for a present second byte.
constexpr uint32_t kBuckets = 256 * 257;

uint32_t BucketOf(const uint8_t* p, uint32_t len) { return p[0] * 257u + (len > 1 ? p[1] + 1u : 0u); }

// TokenTrie::Chars of a node from its parent's and its byte: an ASCII or lead byte begins a
// character (and a lead says how many continuation bytes it lacks), a continuation byte
// supplies one of them.
uint32_t CharsAfter(uint32_t parent, uint8_t b) {
  if (b >= 0x80 && b < 0xC0) return (parent & ~3u) | ((parent & 3u) == 0 ? 0u : (parent & 3u) - 1);
  const uint32_t lacking = b < 0xC0 ? 0u : b < 0xE0 ? 1u : b < 0xF0 ? 2u : b < 0xF8 ? 3u : 0u;
  return ((parent >> 2) + 1) << 2 | lacking;
}

}  // namespace

void TokenTrie::Build(const std::vector<uint32_t>& ids, const uint8_t* bytes, const uint32_t* offsets) {
  const size_t n = ids.size();
  // Sort by bytes: counting sort on the first two bytes, then a comparison sort of each bucket
  // from the third byte on. Buckets are small, so this is a few times faster than one std::sort.
  std::vector<uint32_t> count(kBuckets + 1, 0);
  for (uint32_t id : ids) {
    const uint32_t len = offsets[id + 1] - offsets[id];
    TAGMASK_CHECK(len > 0, "empty tokens are not put in a trie");
    ++count[BucketOf(bytes + offsets[id], len) + 1];
  }
  for (uint32_t i = 0; i < kBuckets; ++i) count[i + 1] += count[i];
  ids_.assign(n, 0);
  {
    std::vector<uint32_t> next(count.begin(), count.end() - 1);
    for (uint32_t id : ids) ids_[next[BucketOf(bytes + offsets[id], offsets[id + 1] - offsets[id])]++] = id;
  }
  const auto less = [&](uint32_t x, uint32_t y) {
    const uint32_t lx = offsets[x + 1] - offsets[x], ly = offsets[y + 1] - offsets[y];
    const uint32_t common = std::min(lx, ly);
    if (common > 2) {
      const int c = std::memcmp(bytes + offsets[x] + 2, bytes + offsets[y] + 2, common - 2);
      if (c != 0) return c < 0;
    }
    if (lx != ly) return lx < ly;
    return x < y;  // equal strings: by id, so the order is deterministic
  };
  for (uint32_t b = 0; b < kBuckets; ++b) {
    if (count[b + 1] - count[b] > 1) std::sort(ids_.begin() + count[b], ids_.begin() + count[b + 1], less);
  }

  // Build nodes in pre-order. `path[d]` is the node at depth d of the previous token's path.
  labelEnd_.clear();
  tokenBegin_.clear();
  maxLength_.clear();
  chars_.clear();
  rootChild_.fill(0);
  labelEnd_.reserve(n * 2 + 1);
  tokenBegin_.reserve(n * 2 + 2);
  maxLength_.reserve(n * 2 + 1);
  chars_.reserve(n * 2 + 1);
  labelEnd_.push_back(0);
  tokenBegin_.push_back(0);
  maxLength_.push_back(0);
  chars_.push_back(0);
  std::vector<uint32_t> path{0};
  const auto close = [&](uint32_t node) {
    const uint32_t end = static_cast<uint32_t>(labelEnd_.size());
    labelEnd_[node] = (labelEnd_[node] & 0xFF000000u) | end;
  };
  const auto closeTo = [&](size_t depth) {
    while (path.size() > depth + 1) {
      const uint32_t node = path.back();
      close(node);
      path.pop_back();
      maxLength_[path.back()] = std::max(maxLength_[path.back()], maxLength_[node]);
    }
  };
  const uint8_t* prev = nullptr;
  uint32_t prevLen = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t id = ids_[k];
    const uint8_t* p = bytes + offsets[id];
    const uint32_t len = offsets[id + 1] - offsets[id];
    uint32_t lcp = 0;
    const uint32_t limit = std::min(len, prevLen);
    while (lcp < limit && p[lcp] == prev[lcp]) ++lcp;
    closeTo(lcp);
    for (uint32_t d = lcp; d < len; ++d) {
      const uint32_t node = static_cast<uint32_t>(labelEnd_.size());
      if (node >= kMaxNodes) {
        throw Error(ErrorCode::InvalidTokenizer, "the vocabulary is too large: its token trie exceeds " +
                                                     std::to_string(kMaxNodes) + " nodes");
      }
      labelEnd_.push_back(static_cast<uint32_t>(p[d]) << 24);
      tokenBegin_.push_back(k);
      maxLength_.push_back(0);
      chars_.push_back(CharsAfter(chars_[path.back()], p[d]));
      if (d == 0) rootChild_[p[0]] = node;
      path.push_back(node);
    }
    maxLength_[path.back()] = std::max<uint16_t>(maxLength_[path.back()], static_cast<uint16_t>(std::min<uint32_t>(len, 0xFFFF)));
    prev = p;
    prevLen = len;
  }
  closeTo(0);
  close(0);
  tokenBegin_.push_back(static_cast<uint32_t>(n));
  // The label index of the nodes with many children, for Child(): one pass over the nodes.
  indexed_.clear();
  indexBegin_.clear();
  child_.clear();
  childLabel_.clear();
  const uint32_t nodes = static_cast<uint32_t>(labelEnd_.size());
  for (uint32_t i = 0; i < nodes; ++i) {
    const uint32_t end = labelEnd_[i] & 0xFFFFFFu;
    uint32_t count = 0;
    for (uint32_t c = i + 1; c < end && count < kIndexedChildren; c = labelEnd_[c] & 0xFFFFFFu) ++count;
    if (count < kIndexedChildren) continue;
    indexed_.push_back(i);
    indexBegin_.push_back(static_cast<uint32_t>(child_.size()));
    for (uint32_t c = i + 1; c < end; c = labelEnd_[c] & 0xFFFFFFu) {
      child_.push_back(c);
      childLabel_.push_back(static_cast<uint8_t>(labelEnd_[c] >> 24));
    }
  }
  indexBegin_.push_back(static_cast<uint32_t>(child_.size()));
  indexed_.shrink_to_fit();
  indexBegin_.shrink_to_fit();
  child_.shrink_to_fit();
  childLabel_.shrink_to_fit();
  labelEnd_.shrink_to_fit();
  tokenBegin_.shrink_to_fit();
  maxLength_.shrink_to_fit();
  chars_.shrink_to_fit();
}

}  // namespace tagmask
