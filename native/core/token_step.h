// Where a token edge can be taken from a configuration: the states reachable by calls and
// returns without consuming anything (the same closure PdaStepper walks before a byte) that
// have token edges, with the budget of a limited rule not used up. Shared by the matcher's
// accept (real stacks) and fill (real stacks plus scratch frames); see pda_step.h for Config
// and the arena policy.
#pragma once

#include <cstdint>
#include <vector>

#include "pda_step.h"
#include "tagmask/automaton.h"

namespace tagmask {

template <class Arena>
class TokenEdgeStepper {
 public:
  TokenEdgeStepper(const Automaton& a, Arena& arena) : a_(a), arena_(arena) {}

  /// Calls `fn(config)` for every configuration reachable from `c` without consuming whose
  /// state may take a token edge now.
  template <class Fn>
  void ForEachTokenState(const Config& c, Fn&& fn) {
    visited_.clear();
    Visit(c, fn);
  }

  /// Appends the configurations after taking a token of class `tokenClass` from `c`.
  void Step(const Config& c, uint32_t tokenClass, std::vector<Config>* out) {
    ForEachTokenState(c, [&](const Config& at) {
      const uint32_t t = a_.tokenEdges.Next(at.state, tokenClass);
      if (t == kDeadState) return;
      Config n = at;
      n.state = t;
      // A limited rule counts the token at its end (see Matcher::Advance).
      if (a_.flags[at.state] & kLimitedText) n.consumed = 1;
      out->push_back(n);
    });
  }

 private:
  template <class Fn>
  void Visit(const Config& c, Fn& fn) {
    for (const Config& v : visited_) {
      if (v.SameAs(c)) return;
    }
    visited_.push_back(c);
    const uint32_t s = c.state;
    const uint8_t f = a_.flags[s];
    if (a_.tokenEdges.HasEdges(s) && (!(f & kLimitedText) || c.count < a_.rules[a_.ruleOf[s]].maxTokens)) fn(c);
    if (f & kHasCalls) {
      for (uint32_t e = a_.callBegin[s]; e < a_.callBegin[s + 1]; ++e) {
        const CallEdge& call = a_.calls[e];
        Config caller = c;
        if (!ApplyCountOp(a_, call.op, &caller)) continue;  // counted repetition (pda_step.h)
        const uint32_t frame = arena_.Push(call.returnState, c.frame, caller);
        if (frame == kNoFrame) continue;
        Config n;
        n.state = a_.rules[call.rule].start;
        n.frame = frame;
        Visit(n, fn);
      }
    }
    if ((f & kFinal) && !arena_.IsBottom(c.frame)) {
      Config end = c;
      if ((f & kCounted) && !ApplyCountOp(a_, a_.FinalOp(s), &end)) return;
      Config n;
      n.state = arena_.Ret(c.frame);
      n.frame = arena_.Parent(c.frame);
      arena_.Restore(c.frame, &n);
      if ((a_.flags[n.state] & kCounted) && !ApplyCountOp(a_, a_.LiveOp(n.state), &n)) return;
      Visit(n, fn);
    }
  }

  const Automaton& a_;
  Arena& arena_;
  std::vector<Config> visited_;
};

}  // namespace tagmask
