// One byte step of the pushdown automaton for one configuration, shared by the mask builder
// (stacks whose bottom is unknown), the matcher (real stacks) and the matcher's checks of
// uncertain tokens (real stacks plus scratch frames).
//
// A configuration is a top state and a frame index; frames hold (return state, parent frame) in
// an arena owned by the caller. Stepping a byte from a configuration follows, without consuming:
// call edges (push a frame, enter the callee's start) and the end of the rule (pop), then takes
// the byte transition. A `visited` list stops the closure from looping (a nullable callee can
// return to where it was called).
#pragma once

#include <cstdint>
#include <vector>

#include "tagmask/automaton.h"

namespace tagmask {

struct Config {
  uint32_t state = 0;
  uint32_t frame = 0;
  /// Tokens the current occurrence of a limited `text` rule has consumed (0 elsewhere).
  uint16_t count = 0;
  /// Mask builder: no uncertain escape was taken on the way here.
  uint8_t exact = 1;
  /// During one token: a byte of the current limited text occurrence was consumed.
  uint8_t consumed = 0;

  bool SameAs(const Config& o) const {
    return state == o.state && frame == o.frame && count == o.count && consumed == o.consumed;
  }
};

/// Arena policy (see MaskBuilder and Matcher):
///   uint32_t Push(uint32_t ret, uint32_t parent)   -> frame, or kNoFrame to drop the path
///   bool IsBottom(uint32_t frame)                  -> no frame of ours below
///   uint32_t Ret(uint32_t frame), Parent(uint32_t frame)
///   template <class Fn> void Escape(const Automaton&, const Config&, Fn&& expand)
///       what ending the rule at the bottom means (compile time: continue in each return state)
constexpr uint32_t kNoFrame = 0xFFFFFFFFu;

template <class Arena>
class PdaStepper {
 public:
  PdaStepper(const Automaton& a, Arena& arena) : a_(a), arena_(arena) {}

  /// Appends to `out` the configurations reachable from `c` by consuming `byte`.
  void Step(const Config& c, uint8_t byte, std::vector<Config>* out) {
    visited_.clear();
    Expand(c, byte, out);
  }
  /// Same, keeping the visited list across calls (call ClearVisited() per byte).
  void StepMore(const Config& c, uint8_t byte, std::vector<Config>* out) { Expand(c, byte, out); }
  void ClearVisited() { visited_.clear(); }

 private:
  void Expand(const Config& c, uint8_t byte, std::vector<Config>* out) {
    for (const Config& v : visited_) {
      if (v.SameAs(c) && v.exact >= c.exact) return;
    }
    visited_.push_back(c);
    const uint32_t s = c.state;
    const uint8_t f = a_.flags[s];
    if (!(f & kLimitedText) || c.count < a_.rules[a_.ruleOf[s]].maxTokens) {
      const uint32_t t = a_.Next(s, byte);
      if (t != kDeadState) {
        Config n = c;
        n.state = t;
        if (f & kLimitedText) n.consumed = 1;
        out->push_back(n);
      }
    }
    if (f & kHasCalls) {
      for (uint32_t e = a_.callBegin[s]; e < a_.callBegin[s + 1]; ++e) {
        const CallEdge& call = a_.calls[e];
        const uint32_t frame = arena_.Push(call.returnState, c.frame);
        if (frame == kNoFrame) continue;
        Config n;
        n.state = a_.rules[call.rule].start;
        n.frame = frame;
        n.exact = c.exact;
        Expand(n, byte, out);
      }
    }
    if (f & kFinal) {
      if (!arena_.IsBottom(c.frame)) {
        Config n;
        n.state = arena_.Ret(c.frame);
        n.frame = arena_.Parent(c.frame);
        n.exact = c.exact;
        Expand(n, byte, out);
      } else {
        arena_.Escape(a_, c, [&](const Config& n) { Expand(n, byte, out); });
      }
    }
  }

  const Automaton& a_;
  Arena& arena_;
  std::vector<Config> visited_;
};

/// Sorts out duplicates (same state, frame, count, consumed), keeping the most exact.
inline void DedupeConfigs(std::vector<Config>* configs, size_t from = 0) {
  std::vector<Config>& v = *configs;
  size_t end = from;
  for (size_t i = from; i < v.size(); ++i) {
    bool merged = false;
    for (size_t j = from; j < end; ++j) {
      if (v[j].SameAs(v[i])) {
        if (v[i].exact > v[j].exact) v[j].exact = v[i].exact;
        merged = true;
        break;
      }
    }
    if (!merged) v[end++] = v[i];
  }
  v.resize(end);
}

}  // namespace tagmask
