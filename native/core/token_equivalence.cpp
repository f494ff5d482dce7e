#include "token_equivalence.h"

#include <algorithm>

namespace tagmask {
namespace {

// A state's transition row as runs of equal target over the byte classes: (first class, target).
// Rows have a few distinct targets (the next position, the string's end, an escape, the UTF-8
// lead bytes, dead), so a refinement round costs a few entries per state instead of one per class.
struct Runs {
  std::vector<uint32_t> begin;  // per state into `runs`; size StateCount() + 1
  std::vector<std::pair<uint32_t, uint32_t>> runs;
};

Runs CompressRows(const Automaton& a) {
  Runs out;
  const uint32_t count = a.StateCount();
  out.begin.assign(count + 1, 0);
  for (uint32_t s = 0; s < count; ++s) {
    out.begin[s] = static_cast<uint32_t>(out.runs.size());
    const uint32_t* row = a.trans.data() + static_cast<size_t>(s) * a.classCount;
    for (uint32_t c = 0; c < a.classCount; ++c) {
      if (c == 0 || row[c] != row[c - 1]) out.runs.emplace_back(c, row[c]);
    }
  }
  out.begin[count] = static_cast<uint32_t>(out.runs.size());
  return out;
}

uint64_t HashKey(const std::vector<uint32_t>& key) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (uint32_t x : key) h = (h ^ x) * 0x100000001B3ull;
  return h ^ key.size();
}

// Keys to class ids, open addressing; Clear() costs only what was inserted since the last one.
class KeyTable {
 public:
  explicit KeyTable(uint32_t states) {
    size_t n = 16;
    while (n < 2 * static_cast<size_t>(states) + 2) n *= 2;
    slot_.assign(n, kEmpty);
  }
  /// The class of `key`, or `missing`.
  uint32_t Find(const std::vector<uint32_t>& key, uint32_t missing) const {
    for (size_t i = HashKey(key) & (slot_.size() - 1);; i = (i + 1) & (slot_.size() - 1)) {
      if (slot_[i] == kEmpty) return missing;
      if (entries_[slot_[i]].first == key) return entries_[slot_[i]].second;
    }
  }
  void Insert(const std::vector<uint32_t>& key, uint32_t id) {
    size_t i = HashKey(key) & (slot_.size() - 1);
    while (slot_[i] != kEmpty) i = (i + 1) & (slot_.size() - 1);
    slot_[i] = static_cast<uint32_t>(entries_.size());
    used_.push_back(i);
    entries_.emplace_back(key, id);
  }
  size_t Size() const { return entries_.size(); }
  void Clear() {
    for (size_t i : used_) slot_[i] = kEmpty;
    used_.clear();
    entries_.clear();
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> slot_;
  std::vector<size_t> used_;
  std::vector<std::pair<std::vector<uint32_t>, uint32_t>> entries_;
};

}  // namespace

std::vector<uint32_t> TokenEquivalenceClasses(const Automaton& a, const std::vector<uint32_t>& profileOf, uint32_t depth) {
  const uint32_t count = a.StateCount();
  std::vector<uint32_t> cls(count, 0);
  KeyTable table(count);

  // Round 0: what the walk reads from the state itself.
  std::vector<uint32_t> key;
  for (uint32_t s = 1; s < count; ++s) {
    key.assign({a.ruleOf[s], a.flags[s], profileOf[s], a.Is(s, kHasCalls) ? s : UINT32_MAX});
    cls[s] = table.Find(key, static_cast<uint32_t>(table.Size() + 1));
    if (cls[s] == table.Size() + 1) table.Insert(key, cls[s]);
  }
  uint32_t classes = static_cast<uint32_t>(table.Size()) + 1;  // class 0: the dead state

  // Rounds 1..depth, Moore's refinement done incrementally: a state's key is the class it leads
  // to on each byte class (as runs), and it can only change when a successor changed class in the
  // round before. Each class keeps the key its members had when it was made (`classKey`, unset
  // for the classes of round 0 until their first member is looked at in round 1): members whose
  // successors did not move still have it, so only the states that lead into moved states are
  // looked at again. The looked-at states of a class are grouped by key; the group with the
  // class's key stays, the others become new classes (moved), and when every member was looked
  // at and none has the old key, the largest group keeps the id and gives it its key (a renaming
  // would only make more states look again). All keys of a round are read before any state
  // moves, so that after round k the classes are exactly "equal on every string of at most k
  // bytes".
  const Runs rows = CompressRows(a);
  std::vector<uint32_t> predBegin(count + 1, 0), preds;
  {
    std::vector<uint32_t> last(count, UINT32_MAX), degree(count + 1, 0);
    for (uint32_t s = 1; s < count; ++s) {
      for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
        const uint32_t t = rows.runs[i].second;
        if (t != kDeadState && last[t] != s) {
          last[t] = s;
          ++degree[t];
        }
      }
    }
    for (uint32_t t = 0; t < count; ++t) predBegin[t + 1] = predBegin[t] + degree[t];
    preds.resize(predBegin[count]);
    std::vector<uint32_t> fill(predBegin.begin(), predBegin.end() - 1);
    std::fill(last.begin(), last.end(), UINT32_MAX);
    for (uint32_t s = 1; s < count; ++s) {
      for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
        const uint32_t t = rows.runs[i].second;
        if (t != kDeadState && last[t] != s) {
          last[t] = s;
          preds[fill[t]++] = s;
        }
      }
    }
  }
  const auto successorKey = [&](uint32_t s, std::vector<uint32_t>* out) {
    uint32_t prev = UINT32_MAX;
    for (uint32_t i = rows.begin[s]; i < rows.begin[s + 1]; ++i) {
      const auto& [c, t] = rows.runs[i];
      if (cls[t] == prev) continue;  // adjacent runs into one class read as one
      prev = cls[t];
      out->push_back(c);
      out->push_back(prev);
    }
  };

  std::vector<std::vector<uint32_t>> classKey(classes);
  std::vector<uint8_t> classKeySet(classes, 0);
  std::vector<uint32_t> size(classes, 0);
  for (uint32_t s = 1; s < count; ++s) ++size[cls[s]];
  std::vector<uint32_t> dirty, changed, keys, keyBegin, order, groupOf;
  std::vector<uint8_t> isDirty(count, 0);
  struct Group {
    uint32_t key;  // index into `dirty` of its first member (for its key)
    uint32_t members = 0;
  };
  std::vector<Group> groups;
  for (uint32_t s = 1; s < count; ++s) dirty.push_back(s);
  for (uint32_t round = 0; round < depth && !dirty.empty(); ++round) {
    keys.clear();
    keyBegin.assign(1, 0);
    for (uint32_t s : dirty) {
      successorKey(s, &keys);
      keyBegin.push_back(static_cast<uint32_t>(keys.size()));
    }
    const auto keyOf = [&](size_t k) { return std::vector<uint32_t>(keys.begin() + keyBegin[k], keys.begin() + keyBegin[k + 1]); };
    // The dirty states class by class, and within a class grouped by key.
    order.resize(dirty.size());
    for (size_t k = 0; k < dirty.size(); ++k) order[k] = static_cast<uint32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return cls[dirty[x]] < cls[dirty[y]]; });
    groupOf.assign(dirty.size(), 0);
    changed.clear();
    for (size_t i = 0; i < order.size();) {
      const uint32_t x = cls[dirty[order[i]]];
      size_t j = i;
      table.Clear();
      groups.clear();
      for (; j < order.size() && cls[dirty[order[j]]] == x; ++j) {
        const uint32_t k = order[j];
        key = keyOf(k);
        uint32_t g = table.Find(key, static_cast<uint32_t>(groups.size()));
        if (g == groups.size()) {
          table.Insert(key, g);
          groups.push_back({k});
        }
        ++groups[g].members;
        groupOf[k] = g;
      }
      // Which group keeps the id x: the one whose key the class has (its other members, not
      // looked at, have that key too); with no such members, the largest group, whose key the
      // class takes. Every other group becomes a new class, and its members have moved.
      const uint32_t looked = static_cast<uint32_t>(j - i);
      uint32_t keep = UINT32_MAX;
      if (classKeySet[x]) {
        for (uint32_t g = 0; g < groups.size(); ++g) {
          if (keyOf(groups[g].key) == classKey[x]) keep = g;
        }
      }
      if (keep == UINT32_MAX && (!classKeySet[x] || looked == size[x])) {
        keep = 0;
        for (uint32_t g = 1; g < groups.size(); ++g) {
          if (groups[g].members > groups[keep].members) keep = g;
        }
        classKey[x] = keyOf(groups[keep].key);
        classKeySet[x] = 1;
      }
      std::vector<uint32_t> idOf(groups.size(), x);
      for (uint32_t g = 0; g < groups.size(); ++g) {
        if (g == keep) continue;
        idOf[g] = classes++;
        classKey.push_back(keyOf(groups[g].key));
        classKeySet.push_back(1);
        size.push_back(groups[g].members);
        size[x] -= groups[g].members;
      }
      for (size_t m = i; m < j; ++m) {
        const uint32_t k = order[m];
        const uint32_t z = idOf[groupOf[k]];
        if (z != x) {
          cls[dirty[k]] = z;
          changed.push_back(dirty[k]);
        }
      }
      i = j;
    }
    for (uint32_t s : dirty) isDirty[s] = 0;
    dirty.clear();
    for (uint32_t t : changed) {
      for (uint32_t i = predBegin[t]; i < predBegin[t + 1]; ++i) {
        const uint32_t p = preds[i];
        if (!isDirty[p]) {
          isDirty[p] = 1;
          dirty.push_back(p);
        }
      }
    }
  }
  // Dense ids in order of first appearance.
  std::vector<uint32_t> dense(classes, UINT32_MAX);
  uint32_t next = 1;
  dense[0] = 0;
  for (uint32_t s = 1; s < count; ++s) {
    uint32_t& d = dense[cls[s]];
    if (d == UINT32_MAX) d = next++;
    cls[s] = d;
  }
  return cls;
}

}  // namespace tagmask
