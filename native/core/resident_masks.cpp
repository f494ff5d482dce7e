#include "tagmask/resident_masks.h"

#include <algorithm>
#include <unordered_map>

#include "pda_step.h"
#include "tagmask/automaton.h"
#include "tagmask/bitmask.h"
#include "tagmask/compiled_grammar.h"
#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

namespace {

// Configurations one walk may visit before the state is left without a row (its rows then come
// from the compact path). Left recursion is refused at compile time, so a closure without
// consuming is finite; this only bounds pathological grammars.
constexpr size_t kMaxClosure = 4096;

uint64_t HashRow(const uint32_t* row, uint32_t words) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ words;
  for (uint32_t i = 0; i < words; ++i) h = (h ^ row[i]) * 0x100000001B3ull + (h >> 29);
  return h;
}

// The token-edge tokens reachable from (state, unknown stack below) without consuming, the way
// TokenEdgeStepper visits them on a real stack, except that the bottom frame is never popped:
// what the stack below would add is exactly what ResidentMaskRef refuses to guess.
class LevelClosure {
 public:
  explicit LevelClosure(const Automaton& a) : a_(a) {}

  /// ORs the tokens into `row`; false when the closure is larger than kMaxClosure.
  bool Run(uint32_t state, uint32_t* row) {
    frames_.assign(1, Frame{0, 0, 0});
    visited_.clear();
    work_.clear();
    ends_ = false;
    depth_ = 0;
    Config start;
    start.state = state;
    work_.push_back(start);
    while (!work_.empty()) {
      const Config c = work_.back();
      work_.pop_back();
      if (Seen(c)) continue;
      if (visited_.size() >= kMaxClosure) return false;
      visited_.push_back(c);
      const uint32_t s = c.state;
      const uint8_t f = a_.flags[s];
      if (a_.tokenEdges.HasEdges(s) && (!(f & kLimitedText) || c.count < a_.rules[a_.ruleOf[s]].maxTokens)) {
        a_.tokenEdges.SetTokens(s, row);
      }
      if (f & kHasCalls) {
        for (uint32_t e = a_.callBegin[s]; e < a_.callBegin[s + 1]; ++e) {
          const uint32_t depth = frames_[c.frame].depth + 1;
          depth_ = std::max(depth_, depth);
          frames_.push_back(Frame{a_.calls[e].returnState, c.frame, depth});
          Config n;
          n.state = a_.rules[a_.calls[e].rule].start;
          n.frame = static_cast<uint32_t>(frames_.size()) - 1;
          work_.push_back(n);
        }
      }
      if (f & kFinal) {
        if (c.frame == 0) {
          ends_ = true;
        } else {
          Config n;
          n.state = frames_[c.frame].ret;
          n.frame = frames_[c.frame].parent;
          work_.push_back(n);
        }
      }
    }
    return true;
  }
  bool ends() const { return ends_; }
  uint32_t depth() const { return depth_; }

 private:
  struct Frame {
    uint32_t ret, parent, depth;
  };
  bool Seen(const Config& c) const {
    for (const Config& v : visited_) {
      if (v.SameAs(c)) return true;
    }
    return false;
  }

  const Automaton& a_;
  std::vector<Frame> frames_;
  std::vector<Config> visited_, work_;
  bool ends_ = false;
  uint32_t depth_ = 0;
};

}  // namespace

class ResidentMasksBuilder {
 public:
  ResidentMasksBuilder(ResidentMasks& out, uint32_t words) : out_(out), words_(words) {}

  /// The id of `row`, added if new; -1 once the rows would pass ResidentMasks::kMaxBytes.
  int32_t Intern(const uint32_t* row) {
    std::vector<int32_t>& bucket = byHash_[HashRow(row, words_)];
    for (int32_t id : bucket) {
      if (std::equal(row, row + words_, out_.Row(id))) return id;
    }
    if ((static_cast<uint64_t>(out_.count_) + 1) * words_ * sizeof(uint32_t) > ResidentMasks::kMaxBytes) return -1;
    const int32_t id = static_cast<int32_t>(out_.count_++);
    out_.rows_.insert(out_.rows_.end(), row, row + words_);
    bucket.push_back(id);
    return id;
  }

 private:
  ResidentMasks& out_;
  uint32_t words_;
  std::unordered_map<uint64_t, std::vector<int32_t>> byHash_;
};

std::unique_ptr<const ResidentMasks> ResidentMasks::Build(const Automaton& a, const MaskStore& store,
                                                          const TokenizerInfo& tok) {
  std::unique_ptr<ResidentMasks> out(new ResidentMasks());
  const uint32_t words = tok.MaskWordCount();
  const uint32_t states = a.StateCount();
  out->words_ = words;
  out->open_.assign(states, -1);
  out->ending_.assign(states, -1);
  out->pairOpen_.assign(store.pairs.size(), -1);
  out->pairEnding_.assign(store.pairs.size(), -1);
  ResidentMasksBuilder builder(*out, words);
  const uint32_t* eligible = tok.EligibleMask();
  const uint32_t* stop = tok.StopMask();
  out->terminated_ = builder.Intern(stop);  // first, so that it always has a row
  std::vector<uint32_t> base(words), row(words), edges(words);
  // States without token edges in reach share their stored mask's rows.
  std::vector<int32_t> openOf(store.masks.size(), -2), endingOf(store.masks.size(), -2);
  const auto intern = [&](const std::vector<uint32_t>& r, bool withStops) {
    if (!withStops) return builder.Intern(r.data());
    for (uint32_t w = 0; w < words; ++w) row[w] = r[w] | stop[w];
    return builder.Intern(row.data());
  };
  const bool tokenEdges = a.tokenEdges.Active();
  if (tokenEdges) {
    out->levelEnds_.assign(states, 0);
    out->pushDepth_.assign(states, 0);
  }
  LevelClosure closure(a);
  // The rows of single stacks whose frame below adds nothing, state by state.
  std::vector<uint8_t> ownRow(states, 0);
  for (uint32_t s = 0; s < states; ++s) {
    if (s == kDeadState) continue;  // no stack ever stands there
    const uint32_t m = store.states[s].mask;
    if (m == kChainMask) continue;  // filled along its chain (ResidentMaskRef answers -1)
    const bool final = (a.flags[s] & kFinal) != 0;
    if (tokenEdges) {
      std::fill(edges.begin(), edges.end(), 0u);
      if (!closure.Run(s, edges.data())) continue;  // left to compact rows
      out->levelEnds_[s] = closure.ends() ? 1 : 0;
      out->pushDepth_[s] = closure.depth();
      ownRow[s] = std::any_of(edges.begin(), edges.end(), [](uint32_t w) { return w != 0; }) ? 1 : 0;
    }
    if (ownRow[s]) {
      store.Write(m, eligible, base.data());
      for (uint32_t w = 0; w < words; ++w) base[w] |= edges[w];
      out->open_[s] = intern(base, false);
      if (final) out->ending_[s] = intern(base, true);
      continue;
    }
    if (openOf[m] == -2) {
      store.Write(m, eligible, base.data());
      openOf[m] = intern(base, false);
    }
    out->open_[s] = openOf[m];
    if (final) {
      if (endingOf[m] == -2) {
        store.Write(m, eligible, base.data());
        endingOf[m] = intern(base, true);
      }
      out->ending_[s] = endingOf[m];
    }
  }
  // Then, while the budget lasts, the rows of states with uncertain tokens per return state of
  // the frame below: in a grammar whose values nest, most steps inside a nested value.
  for (uint32_t s = 1; s < states; ++s) {
    const StateMask& sm = store.states[s];
    if (sm.uncertainCount == 0 || out->open_[s] < 0) continue;
    const bool final = (a.flags[s] & kFinal) != 0;
    const uint32_t returns = static_cast<uint32_t>(a.rules[a.ruleOf[s]].returnStates.size());
    for (uint32_t i = 0; i < returns; ++i) {
      const uint32_t k = sm.pairBegin + i;
      const PairMask& pm = store.pairs[k];
      const uint32_t* open = out->Row(out->open_[s]);
      std::copy(open, open + words, base.begin());
      for (uint32_t j = 0; j < pm.acceptedCount; ++j) SetBit(base.data(), store.uncertain[pm.acceptedOffset + j]);
      out->pairOpen_[k] = intern(base, false);
      if (final) out->pairEnding_[k] = intern(base, true);
    }
  }
  out->rows_.shrink_to_fit();
  return out;
}

const ResidentMasks& CompiledGrammar::residentMasks() const {
  // Built once, on first use: most users never mask on a device, and the rows are ceil(V/32)
  // words per distinct mask. A failed build (out of memory) is tried again on the next call.
  std::call_once(residentOnce_, [this]() {
    resident_ = ResidentMasks::Build(automaton_, masks_, *tokenizer_);
    residentReady_.store(resident_.get(), std::memory_order_release);
  });
  return *resident_;
}

}  // namespace tagmask
