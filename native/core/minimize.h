// DFA minimization of the rule automata (Hopcroft's partition refinement), with call edges as
// extra symbols, so that states of one rule with the same future merge.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dfa_builder.h"
#include "tagmask/automaton.h"

namespace tagmask {

struct MinimizeInput {
  uint32_t stateCount = 0;   // including the dead state 0
  uint32_t symbolCount = 0;  // byte segments
  const std::vector<uint8_t>* keep = nullptr;  // states taking part; the others count as dead
  /// Live transitions of state s: runs[runBegin[s] .. runBegin[s + 1]) (global target ids).
  const std::vector<uint32_t>* runBegin = nullptr;
  const std::vector<SegmentRun>* runs = nullptr;
  const std::vector<uint8_t>* final = nullptr;
  const std::vector<uint32_t>* ruleOf = nullptr;
  const std::vector<uint32_t>* callBegin = nullptr;
  const std::vector<CallEdge>* calls = nullptr;
  std::function<bool(const CallEdge&)> liveCall;
};

/// For each state: the smallest state equivalent to it (itself when nothing merges), or 0 for
/// states that do not take part.
std::vector<uint32_t> MinimizeStates(const MinimizeInput& in);

}  // namespace tagmask
