#include "count_regimes.h"

#include <algorithm>

#include "mask_builder.h"
#include "tagmask/bitmask.h"

namespace tagmask {

void PlaceTable::Clear() {
  if (key_.empty()) {
    key_.assign(64, 0);
    index_.assign(64, 0);
    stamp_.assign(64, 0);
  }
  if (++epoch_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0u);
    epoch_ = 1;
  }
  size_ = 0;
}

size_t PlaceTable::Find(uint32_t at) const {
  const size_t mask = key_.size() - 1;
  for (size_t h = (at * 0x9E3779B1u) & mask;; h = (h + 1) & mask) {
    if (stamp_[h] != epoch_ || key_[h] == at) return h;
  }
}

void PlaceTable::Add(uint32_t at, std::vector<uint32_t>* places) {
  size_t h = Find(at);
  if (stamp_[h] == epoch_) return;
  if (2 * (size_ + 1) > key_.size()) {
    const size_t grown = key_.size() * 2;
    key_.assign(grown, 0);
    index_.assign(grown, 0);
    stamp_.assign(grown, 0);
    epoch_ = 1;
    size_ = 0;
    for (uint32_t p : *places) {
      const size_t g = Find(p);
      stamp_[g] = epoch_;
      key_[g] = p;
      ++size_;
    }
    h = Find(at);
  }
  stamp_[h] = epoch_;
  key_[h] = at;
  ++size_;
  places->push_back(at);
}

RegimeBuilder::RegimeBuilder(const TokenizerInfo& tok, MaskStore* store, uint32_t listMax)
    : tok_(tok), store_(store), listMax_(listMax), base_(tok.MaskWordCount()), row_(tok.MaskWordCount()) {
  for (auto& d : depth_) d.assign(tok.TokenCount(), 0);
}

void RegimeBuilder::Add(const std::vector<std::pair<uint32_t, uint32_t>> accepted[2], const std::vector<CountSpan> given[2],
                        const std::vector<CountedCutSpan>& cuts, StateMask* sm, MaskBuildStats* stats) {
  const TokenTrie* tries[2] = {&tok_.PlainTrie(), &tok_.ImpureTrie()};
  // The counted cuts become spans here, in a buffer reused from state to state.
  const std::vector<CountSpan>* conditional[2] = {&given[0], &given[1]};
  if (!cuts.empty()) {
    spelled_.assign(given[0].begin(), given[0].end());
    const uint32_t* tb = tries[0]->TokenBeginData();
    const uint32_t* chars = tries[0]->CharsData();
    for (const CountedCutSpan& cut : cuts) {
      ExpandCountedCut(cut, tb, chars, [&](uint32_t a, uint32_t b, uint32_t lo, uint32_t hi) { spelled_.push_back({a, b, lo, hi}); });
    }
    conditional[0] = &spelled_;
  }
  std::fill(row_.begin(), row_.end(), 0u);
  rowHash_ = 0;
  rowCount_ = 0;
  for (int t = 0; t < 2; ++t) {
    const uint32_t* ids = tries[t]->TokenIds();
    for (const auto& [a, b] : accepted[t]) {
      for (uint32_t k = a; k < b; ++k) {
        if (!TestBit(row_.data(), ids[k])) Flip(ids[k]);
      }
    }
  }
  base_ = row_;
  // Where the regimes change: each span starts counting at lo and stops after hi. There are few
  // distinct places (near 0, min and max, one per length a token can exhaust), so events are
  // bucketed by place; spans can number as many as the tokens (a cut in a length-limited
  // string's loop gives each token its own limit), so places are found by a flat hash table.
  places_.clear();
  placeTable_.Clear();
  for (int t = 0; t < 2; ++t) {
    for (const CountSpan& sp : *conditional[t]) {
      if (sp.lo > sp.hi) continue;
      placeTable_.Add(sp.lo, &places_);
      if (sp.hi != kNoCountLimit) placeTable_.Add(sp.hi + 1, &places_);
    }
  }
  std::sort(places_.begin(), places_.end());
  for (uint32_t i = 0; i < places_.size(); ++i) placeTable_.SetIndex(places_[i], i);
  const auto placeOf = [&](uint32_t at) { return placeTable_.Index(at); };
  std::vector<uint32_t> begin(places_.size() + 1, 0);
  for (int t = 0; t < 2; ++t) {
    for (const CountSpan& sp : *conditional[t]) {
      if (sp.lo > sp.hi) continue;
      ++begin[placeOf(sp.lo) + 1];
      if (sp.hi != kNoCountLimit) ++begin[placeOf(sp.hi + 1) + 1];
    }
  }
  for (size_t i = 0; i < places_.size(); ++i) begin[i + 1] += begin[i];
  // Per event: trie in the top bit, start (1) or stop (0) in the next, the span's index below.
  std::vector<uint32_t> events(begin.back());
  {
    std::vector<uint32_t> at(begin.begin(), begin.end() - 1);
    for (uint32_t t = 0; t < 2; ++t) {
      for (uint32_t i = 0; i < conditional[t]->size(); ++i) {
        const CountSpan& sp = (*conditional[t])[i];
        if (sp.lo > sp.hi) continue;
        events[at[placeOf(sp.lo)]++] = (t << 31) | (1u << 30) | i;
        if (sp.hi != kNoCountLimit) events[at[placeOf(sp.hi + 1)]++] = (t << 31) | i;
      }
    }
  }
  sm->regimeBegin = static_cast<uint32_t>(store_->regimes.size());
  uint32_t previousMask = UINT32_MAX;
  // Regime p covers the counts from places_[p] on (and the counts below the first place).
  for (size_t p = 0; p <= places_.size(); ++p) {
    if (p > 0) {
      for (uint32_t e = begin[p - 1]; e < begin[p]; ++e) {
        const uint32_t t = events[e] >> 31;
        const CountSpan& sp = (*conditional[t])[events[e] & 0x3FFFFFFFu];
        const uint32_t* ids = tries[t]->TokenIds();
        uint16_t* depth = depth_[t].data();
        const bool start = (events[e] >> 30) & 1u;
        for (uint32_t k = sp.a; k < sp.b; ++k) {
          const uint32_t id = ids[k];
          if (TestBit(base_.data(), id)) continue;  // accepted for every count: set throughout
          if (start) {
            if (depth[k]++ == 0) Flip(id);
          } else if (--depth[k] == 0) {
            Flip(id);
          }
        }
      }
    }
    const uint32_t from = p == 0 ? 0 : places_[p - 1];
    if (p == 1 && from == 0) {
      // The first place is 0 itself: regime 0 is this one.
      store_->regimes.pop_back();
      previousMask = UINT32_MAX;
    }
    const uint32_t mask = Store(stats);
    if (mask != previousMask) {
      store_->regimes.push_back({from, mask});
      previousMask = mask;
    }
  }
  sm->regimeCount = static_cast<uint32_t>(store_->regimes.size()) - sm->regimeBegin;
  sm->mask = store_->regimes[sm->regimeBegin].mask;
  // Leave the per-token depths at zero for the next state.
  for (uint8_t t = 0; t < 2; ++t) {
    for (const CountSpan& sp : *conditional[t]) std::fill(depth_[t].begin() + sp.a, depth_[t].begin() + sp.b, uint16_t{0});
  }
}

// Whether stored mask m holds exactly the tokens of row_ (m.accepted == rowCount_ checked first):
// a list's ids all set, a complement's all clear (with equal counts the rest follows, row_ lying
// within the eligible tokens), a bitset equal word for word.
bool RegimeBuilder::SameAsRow(const StoredMask& m) const {
  if (m.accepted != rowCount_) return false;
  if (m.form == MaskForm::Bitset) return std::equal(row_.begin(), row_.end(), store_->words.begin() + m.offset);
  const uint32_t* ids = store_->ids.data() + m.offset;
  const bool want = m.form == MaskForm::List;
  for (uint32_t i = 0; i < m.size; ++i) {
    if (TestBit(row_.data(), ids[i]) != want) return false;
  }
  return true;
}

// The stored mask equal to row_ (a new one when no regime mask so far has that content).
uint32_t RegimeBuilder::Store(MaskBuildStats* stats) {
  const uint32_t words = tok_.MaskWordCount();
  const uint32_t count = rowCount_;
  if (count == 0) return 0;  // the empty mask
  auto& candidates = known_[rowHash_];
  for (uint32_t m : candidates) {
    if (SameAsRow(store_->masks[m])) return m;
  }
  StoredMask m;
  m.accepted = count;
  const uint32_t notAccepted = tok_.EligibleCount() - count;
  std::vector<uint32_t>* pool = &store_->ids;
  m.offset = static_cast<uint32_t>(pool->size());
  // The ids of the set bits of each word of `bits(w)`, in order.
  const auto listIds = [&](auto&& bits) {
    for (uint32_t w = 0; w < words; ++w) {
      for (uint32_t x = bits(w); x != 0; x &= x - 1) pool->push_back(w * 32 + static_cast<uint32_t>(__builtin_ctz(x)));
    }
  };
  if (count <= listMax_) {
    m.form = MaskForm::List;
    listIds([&](uint32_t w) { return row_[w]; });
    ++stats->listMasks;
  } else if (notAccepted <= listMax_) {
    m.form = MaskForm::Complement;
    const uint32_t* eligible = tok_.EligibleMask();
    listIds([&](uint32_t w) { return eligible[w] & ~row_[w]; });
    ++stats->complementMasks;
  } else {
    m.form = MaskForm::Bitset;
    pool = &store_->words;
    m.offset = static_cast<uint32_t>(pool->size());
    pool->insert(pool->end(), row_.begin(), row_.end());
    ++stats->bitsetMasks;
  }
  m.size = m.form == MaskForm::Bitset ? count : static_cast<uint32_t>(pool->size()) - m.offset;
  const uint32_t id = static_cast<uint32_t>(store_->masks.size());
  store_->masks.push_back(m);
  candidates.push_back(id);
  return id;
}

}  // namespace tagmask
