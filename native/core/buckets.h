// Compressed rows ("buckets"): items grouped by a small integer key, as one array of the rows'
// starts and one of the values, each row in the items' order (a stable counting sort).
#pragma once

#include <cstdint>
#include <vector>

namespace tagmask {

/// Where each of the `n` rows starts when `items` are grouped by `key(item)` (< n); n + 1 entries.
template <class Item, class Key>
std::vector<uint32_t> BucketBegins(uint32_t n, const std::vector<Item>& items, Key key) {
  std::vector<uint32_t> begin(n + 1, 0);
  for (const Item& item : items) ++begin[key(item) + 1];
  for (uint32_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  return begin;
}

/// `value(item)` of every item, in the rows `begin` (from BucketBegins with the same key) gives.
template <class Item, class Key, class Value>
auto FillBuckets(const std::vector<uint32_t>& begin, const std::vector<Item>& items, Key key, Value value) {
  std::vector<decltype(value(items.front()))> out(items.size());
  std::vector<uint32_t> at(begin.begin(), begin.end() - 1);
  for (const Item& item : items) out[at[key(item)]++] = value(item);
  return out;
}

}  // namespace tagmask
