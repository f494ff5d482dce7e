// Interning of state signatures (sequences of words) into dense class ids for the minimizers.
// Whole sequences are compared: a hash collision costs a probe, never merges two signatures nor
// splits one (a grouping that trusts a hash, or adjacency in a hash order, does the latter).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tagmask {

class SignatureTable {
 public:
  /// `expected`: about how many distinct signatures will be interned (the table grows past it).
  explicit SignatureTable(size_t expected) {
    size_t slots = 16;
    while (slots < 2 * expected) slots *= 2;
    slots_.assign(slots, 0);
  }

  /// The class of `sig`: 0, 1, ... in order of first appearance; `*added` says it is new.
  uint32_t Intern(const std::vector<uint32_t>& sig, bool* added) {
    size_t slot = Probe(sig, Hash(sig.data(), sig.size()));
    if (slots_[slot] != 0) {
      *added = false;
      return slots_[slot] - 1;
    }
    *added = true;
    pool_.insert(pool_.end(), sig.begin(), sig.end());
    begin_.push_back(static_cast<uint32_t>(pool_.size()));
    const uint32_t id = Size() - 1;
    slots_[slot] = id + 1;
    if (2 * static_cast<size_t>(Size()) > slots_.size()) Grow();
    return id;
  }

  uint32_t Size() const { return static_cast<uint32_t>(begin_.size() - 1); }

 private:
  static uint64_t Hash(const uint32_t* w, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 0; i < n; ++i) h = (h ^ w[i]) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
  }

  // The slot holding `sig`, or the empty slot where it belongs.
  size_t Probe(const std::vector<uint32_t>& sig, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    size_t slot = h & mask;
    for (; slots_[slot] != 0; slot = (slot + 1) & mask) {
      const uint32_t b = begin_[slots_[slot] - 1], e = begin_[slots_[slot]];
      if (e - b == sig.size() && std::equal(sig.begin(), sig.end(), pool_.begin() + b)) break;
    }
    return slot;
  }

  void Grow() {
    std::vector<uint32_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (uint32_t id = 0; id < Size(); ++id) {
      size_t slot = Hash(pool_.data() + begin_[id], begin_[id + 1] - begin_[id]) & mask;
      while (slots_[slot] != 0) slot = (slot + 1) & mask;
      slots_[slot] = id + 1;
    }
  }

  std::vector<uint32_t> slots_;       // class + 1 per slot, 0 empty; at most half full
  std::vector<uint32_t> begin_{0};    // per class, into pool_
  std::vector<uint32_t> pool_;
};

}  // namespace tagmask
