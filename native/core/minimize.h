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
  /// Counted repetition: per transition and per state's end, the counter operation (null when
  /// the grammar has none). States only merge when their operations agree.
  const std::vector<uint32_t>* transOp = nullptr;
  const std::vector<uint32_t>* finalOp = nullptr;
  /// The counted node each state lies in (null: none); states of different ones never merge.
  const std::vector<uint32_t>* region = nullptr;
};

/// For each state: the smallest state equivalent to it (itself when nothing merges), or 0 for
/// states that do not take part. Acyclic automata without calls or counters take
/// MinimizeAcyclic; the others partition refinement.
std::vector<uint32_t> MinimizeStates(const MinimizeInput& in);

/// The same result as partition refinement for an automaton whose live graph has no cycle, no
/// live call and no counter operation, in time linear in its transitions (minimize_acyclic.cpp);
/// false, leaving `rep` untouched, for any other automaton.
bool MinimizeAcyclic(const MinimizeInput& in, std::vector<uint32_t>* rep);

}  // namespace tagmask
