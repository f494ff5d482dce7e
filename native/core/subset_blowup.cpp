#include "subset_blowup.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <unordered_map>

namespace tagmask {
namespace {

// Steps one attempt may take (states and edges visited) before it gives up: a few milliseconds,
// spent only on rules whose construction has already done far more.
constexpr uint64_t kProofBudget = uint64_t{1} << 20;

// The longest chain worth proving: 2^62 subsets is past every bound.
constexpr uint32_t kMaxBits = 62;

bool Intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) return true;
    if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

SubsetBlowupProver::SubsetBlowupProver(const NfaIndex& index, const Nfa& nfa, const std::array<uint8_t, 256>& segOf, uint32_t segCount)
    : index_(index), nfa_(nfa), segOf_(segOf), segCount_(segCount) {}

void SubsetBlowupProver::BuildReverse() {
  if (built_) return;
  built_ = true;
  const uint32_t n = nfa_.stateCount;
  const auto to = [](const auto& edge) { return edge.to; };
  revRangeBegin_ = BucketBegins(n, nfa_.ranges, to);
  revRanges_ = FillBuckets(revRangeBegin_, nfa_.ranges, to, [](const Nfa::Range& r) { return r; });
  revEpsBegin_ = BucketBegins(n, nfa_.eps, to);
  revEps_ = FillBuckets(revEpsBegin_, nfa_.eps, to, [](const Nfa::Eps& e) { return e.from; });
  isRaw_.assign(n, 0);
  for (const auto& r : nfa_.ranges) isRaw_[r.to] = 1;
  for (const auto& c : nfa_.calls) isRaw_[c.to] = 1;
  for (const auto& t : nfa_.tokens) isRaw_[t.to] = 1;
  mark_.assign(n, 0);
  // A byte to name each segment by in messages, a letter or digit where it has one, then a
  // printable byte; the segments are tried as y in the order of how readable their byte is.
  const auto rank = [](int b) { return std::isalnum(b) ? 0 : (b > 0x20 && b < 0x7f) ? 1 : 2; };
  segByte_.assign(segCount_, 0);
  std::vector<int> best(segCount_, 3);
  for (int b = 0; b < 256; ++b) {
    if (rank(b) < best[segOf_[b]]) {
      best[segOf_[b]] = rank(b);
      segByte_[segOf_[b]] = static_cast<uint8_t>(b);
    }
  }
  segOrder_.resize(segCount_);
  for (uint32_t i = 0; i < segCount_; ++i) segOrder_[i] = i;
  std::stable_sort(segOrder_.begin(), segOrder_.end(), [&](uint32_t a, uint32_t b) { return best[a] < best[b]; });
}

void SubsetBlowupProver::Spend(uint64_t steps) {
  work_ += steps;
  if (work_ > kProofBudget) throw Fail{};
}

// Every state an epsilon path reaches from q, q included (in closure_, until the next call).
const std::vector<uint32_t>& SubsetBlowupProver::Closure(uint32_t q) {
  ++epoch_;
  closure_.assign(1, q);
  mark_[q] = epoch_;
  for (size_t i = 0; i < closure_.size(); ++i) {
    const uint32_t s = closure_[i];
    Spend(1 + index_.epsBegin[s + 1] - index_.epsBegin[s]);
    for (uint32_t e = index_.epsBegin[s]; e < index_.epsBegin[s + 1]; ++e) {
      const uint32_t t = index_.epsTo[e];
      if (mark_[t] == epoch_) continue;
      mark_[t] = epoch_;
      closure_.push_back(t);
    }
  }
  return closure_;
}

// The targets of segment `seg` from the closure of r, sorted: where the construction's next
// column goes from r.
void SubsetBlowupProver::Step(uint32_t r, uint32_t seg, std::vector<uint32_t>* out) {
  out->clear();
  for (uint32_t q : Closure(r)) {
    Spend(1 + index_.rangeBegin[q + 1] - index_.rangeBegin[q]);
    for (uint32_t i = index_.rangeBegin[q]; i < index_.rangeBegin[q + 1]; ++i) {
      const Nfa::Range& range = index_.ranges[i];
      if (segOf_[range.lo] <= seg && seg <= segOf_[range.hi]) out->push_back(range.to);
    }
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

// Every state from which an epsilon path reaches c, c included, sorted.
void SubsetBlowupProver::ReachingByEps(uint32_t c, std::vector<uint32_t>* out) {
  ++epoch_;
  out->assign(1, c);
  mark_[c] = epoch_;
  for (size_t i = 0; i < out->size(); ++i) {
    const uint32_t s = (*out)[i];
    Spend(1 + revEpsBegin_[s + 1] - revEpsBegin_[s]);
    for (uint32_t e = revEpsBegin_[s]; e < revEpsBegin_[s + 1]; ++e) {
      const uint32_t t = revEps_[e];
      if (mark_[t] == epoch_) continue;
      mark_[t] = epoch_;
      out->push_back(t);
    }
  }
  std::sort(out->begin(), out->end());
}

bool SubsetBlowupProver::Kept(uint32_t q) const {
  return q == ruleFinal_ || index_.rangeBegin[q] != index_.rangeBegin[q + 1] || index_.callBegin[q] != index_.callBegin[q + 1] ||
         index_.HasTokens(q);
}

// The states a subset holding q holds after segment `seg` because of q, sorted: the closures of
// the targets of q's own ranges, the states the construction keeps.
void SubsetBlowupProver::KeptStep(uint32_t q, uint32_t seg, std::vector<uint32_t>* out) {
  out->clear();
  Spend(1 + index_.rangeBegin[q + 1] - index_.rangeBegin[q]);
  for (uint32_t i = index_.rangeBegin[q]; i < index_.rangeBegin[q + 1]; ++i) {
    const Nfa::Range& range = index_.ranges[i];
    if (segOf_[range.lo] > seg || seg > segOf_[range.hi]) continue;
    for (uint32_t s : Closure(range.to)) {
      if (Kept(s)) out->push_back(s);
    }
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

// The states with a range on `seg` into `reaching` (sorted): the only ones whose presence in a
// subset can put the state those reach by epsilon paths into the next subset on that segment.
void SubsetBlowupProver::RangesInto(const std::vector<uint32_t>& reaching, uint32_t seg, std::vector<uint32_t>* out) {
  out->clear();
  for (uint32_t t : reaching) {
    Spend(1 + revRangeBegin_[t + 1] - revRangeBegin_[t]);
    for (uint32_t i = revRangeBegin_[t]; i < revRangeBegin_[t + 1]; ++i) {
      const Nfa::Range& range = revRanges_[i];
      if (segOf_[range.lo] <= seg && seg <= segOf_[range.hi]) out->push_back(range.from);
    }
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

// Whether p is the only state whose range on x or on y leads (by its target's closure) to c.
bool SubsetBlowupProver::OnlyPredecessor(uint32_t c, uint32_t p, uint32_t x, uint32_t y) {
  ReachingByEps(c, &scratch2_);
  for (uint32_t seg : {x, y}) {
    RangesInto(scratch2_, seg, &scratch_);
    if (scratch_.size() != 1 || scratch_[0] != p) return false;
  }
  return true;
}

// The most chain positions that can follow p, up to `cap` positions in all: each one a state
// the subset keeps, reached from its predecessor on x and on y and from no other state on either.
uint32_t SubsetBlowupProver::Chain(uint32_t p, uint32_t x, uint32_t y, uint32_t depth, uint32_t cap) {
  if (depth >= cap) return 0;
  std::vector<uint32_t> onX, onY, next;
  KeptStep(p, x, &onX);
  KeptStep(p, y, &onY);
  std::set_intersection(onX.begin(), onX.end(), onY.begin(), onY.end(), std::back_inserter(next));
  uint32_t best = 0;
  for (uint32_t c : next) {
    if (c == p || !OnlyPredecessor(c, p, x, y)) continue;
    best = std::max(best, 1 + Chain(c, x, y, depth + 1, cap));
    if (depth + best >= cap) break;
  }
  return best;
}

// How many bytes in a row (up to cap), each x or y in any order, keep a column target that starts
// the chain (one whose closure's x-targets reach its first position by an epsilon path: in
// `reachingFirst`) among the targets after one of `roots`: 0 when no root starts it.
// Counted per state, which only underestimates: a starting state, and for each of x and y a
// successor that keeps it up for one byte fewer. Only the states such steps reach from the roots
// within cap bytes are looked at (past them, none is taken to keep it up).
uint32_t SubsetBlowupProver::AliveSteps(const std::vector<uint32_t>& reachingFirst, uint32_t x, uint32_t y, const std::vector<uint32_t>& roots,
                                        uint32_t cap) {
  std::unordered_map<uint32_t, uint32_t> id;  // starting state -> node
  std::vector<uint32_t> node;
  std::vector<std::array<std::vector<uint32_t>, 2>> next;  // per node and letter, the successor nodes
  std::vector<uint8_t> expanded;
  std::vector<uint32_t> onX, onY, probe;
  const auto starts = [&](uint32_t r) {
    Step(r, x, &probe);
    for (uint32_t t : probe) {
      if (std::binary_search(reachingFirst.begin(), reachingFirst.end(), t)) return true;
    }
    return false;
  };
  std::vector<uint32_t> frontier;
  for (uint32_t r : roots) {
    if (id.count(r) == 0 && starts(r)) {
      id.emplace(r, static_cast<uint32_t>(node.size()));
      node.push_back(r);
      frontier.push_back(id[r]);
    }
  }
  const size_t rootNodes = node.size();
  if (rootNodes == 0) return 0;
  next.resize(node.size());
  expanded.assign(node.size(), 0);
  for (uint32_t level = 1; level < cap && !frontier.empty(); ++level) {
    std::vector<uint32_t> grown;
    for (uint32_t v : frontier) {
      const uint32_t r = node[v];
      Step(r, x, &onX);
      Step(r, y, &onY);
      for (int l = 0; l < 2; ++l) {
        for (uint32_t t : l == 0 ? onX : onY) {
          auto it = id.find(t);
          if (it == id.end()) {
            if (!starts(t)) continue;
            it = id.emplace(t, static_cast<uint32_t>(node.size())).first;
            node.push_back(t);
            next.emplace_back();
            expanded.push_back(0);
            grown.push_back(it->second);
          }
          next[v][l].push_back(it->second);
        }
      }
      expanded[v] = 1;
    }
    frontier.swap(grown);
  }
  // good: starts the chain, and after any bytes as many as the rounds done, still has a
  // starting state among its successors.
  const size_t n = node.size();
  std::vector<uint8_t> good(n, 1), nextGood(n);
  uint32_t steps = 1;
  while (steps < cap) {
    Spend(n);
    for (size_t i = 0; i < n; ++i) {
      bool ok = good[i] != 0 && expanded[i] != 0;
      for (int l = 0; ok && l < 2; ++l) {
        bool any = false;
        for (uint32_t j : next[i][l]) any = any || good[j] != 0;
        ok = any;
      }
      nextGood[i] = ok ? 1 : 0;
    }
    good.swap(nextGood);
    if (std::find(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(rootNodes), 1) == good.begin() + static_cast<std::ptrdiff_t>(rootNodes)) break;
    ++steps;
  }
  return steps;
}

SubsetBlowup SubsetBlowupProver::Find(uint32_t ruleStart, uint32_t ruleFinal, const std::vector<uint32_t>& raw, uint32_t wantBits) {
  SubsetBlowup found;
  if (wantBits == 0 || wantBits > kMaxBits) return found;
  BuildReverse();
  isRaw_[ruleStart] = 1;
  ruleFinal_ = ruleFinal;
  work_ = 0;
  try {
    std::vector<uint32_t> roots = raw;
    roots.push_back(ruleStart);
    // A chain's first position is a state the subsets after the roots hold.
    std::vector<uint32_t> candidates;
    for (uint32_t r : roots) {
      std::vector<uint32_t> members = Closure(r);
      for (uint32_t q : members) {
        Spend(1 + index_.rangeBegin[q + 1] - index_.rangeBegin[q]);
        for (uint32_t i = index_.rangeBegin[q]; i < index_.rangeBegin[q + 1]; ++i) {
          for (uint32_t s : Closure(index_.ranges[i].to)) {
            if (Kept(s)) candidates.push_back(s);
          }
        }
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    std::vector<std::vector<uint32_t>> own(segCount_);
    std::vector<uint8_t> into(segCount_);
    std::vector<uint32_t> reaching;
    for (uint32_t k1 : candidates) {
      // x: a segment some range into k1's epsilon predecessors takes; y: one no such range
      // takes (so nothing adds k1 on y), on which k1 advances as on x.
      ReachingByEps(k1, &reaching);
      std::fill(into.begin(), into.end(), 0);
      for (uint32_t t : reaching) {
        Spend(1 + revRangeBegin_[t + 1] - revRangeBegin_[t]);
        for (uint32_t i = revRangeBegin_[t]; i < revRangeBegin_[t + 1]; ++i) {
          for (uint32_t seg = segOf_[revRanges_[i].lo]; seg <= segOf_[revRanges_[i].hi]; ++seg) into[seg] = 1;
        }
      }
      if (std::find(into.begin(), into.end(), 0) == into.end()) continue;
      for (uint32_t seg = 0; seg < segCount_; ++seg) {
        own[seg].clear();
        if (index_.rangeBegin[k1] != index_.rangeBegin[k1 + 1]) KeptStep(k1, seg, &own[seg]);
      }
      for (uint32_t x = 0; x < segCount_; ++x) {
        if (into[x] == 0 || own[x].empty()) continue;
        for (uint32_t y : segOrder_) {
          if (into[y] != 0 || !Intersect(own[x], own[y])) continue;
          const uint32_t length = 1 + Chain(k1, x, y, 1, kMaxBits);
          if (length < wantBits) continue;
          const uint32_t bits = std::min(length, AliveSteps(reaching, x, y, roots, length));
          if (bits < wantBits) continue;
          found.bits = bits;
          found.startByte = segByte_[x];
          found.otherByte = segByte_[y];
          return found;
        }
      }
    }
  } catch (const Fail&) {
  }
  return found;
}

}  // namespace tagmask
