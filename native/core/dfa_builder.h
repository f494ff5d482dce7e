// NFAs (nfa_builder.h) to the pushdown automaton (tagmask/automaton.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nfa_builder.h"
#include "tagmask/automaton.h"
#include "token_classes.h"

namespace tagmask {

/// Consecutive columns [lo, hi] (byte segments, then token classes) that lead to the same state.
struct SegmentRun {
  uint32_t lo, hi;
  uint32_t to;
};

/// The subset automaton of one rule, over byte segments and then token classes (one column
/// each), with sparse rows: state s's live transitions are runs[runBegin[s] .. runBegin[s + 1]),
/// sorted and disjoint, holding local id + 1 (columns in no run lead to the dead state). Most
/// states of a tool grammar have one live column (a byte of a literal), so a dense row per state
/// would be mostly dead entries. Call edges hold the callee's rule index and a local return state.
struct RuleDfa {
  std::vector<uint32_t> runBegin;  // states + 1
  std::vector<SegmentRun> runs;
  std::vector<uint8_t> final;
  std::vector<uint32_t> callBegin;  // states + 1
  std::vector<CallEdge> calls;
  /// Rules with counted repetition: per transition, and per state for its end, an index into
  /// the automaton's countOps (empty otherwise).
  std::vector<uint32_t> transOp;
  std::vector<uint32_t> finalOp;
  /// Per state: the counted node (NfaProgram::regions index + 1) it lies in, or 0.
  std::vector<uint32_t> region;
  /// States that are the subset of one NFA state with a single byte edge: left out of the state
  /// limit (CompileLimits::maxDfaStates), since the NFA's limit bounds them and each is small.
  uint32_t oneByteStates = 0;
};

/// Determinizes every rule and assembles the automaton. Throws GrammarError for grammars that
/// match nothing, left recursion, and size limits; CountConflict for an ambiguous counted repeat.
/// `tokens`: the classes of the grammar's token nodes, when it has any.
Automaton BuildAutomaton(const NfaProgram& program, const CompileLimits& limits, const TokenClasses* tokens = nullptr);

/// The index of `op` in `a->countOps`, appended when not there yet (the liveness passes: a few
/// distinct conditions per automaton, so a linear search).
inline uint32_t InternCountOp(Automaton* a, const CountOp& op) {
  for (uint32_t k = 1; k < a->countOps.size(); ++k) {
    if (a->countOps[k] == op) return k;
  }
  a->countOps.push_back(op);
  return static_cast<uint32_t>(a->countOps.size()) - 1;
}

/// The liveness conditions of the states of counted nodes (count_liveness.cpp). Throws
/// GrammarError when the numbers of units a node can still hold from some state are not an
/// interval (only those are supported).
void ComputeLiveness(const NfaProgram& program, const std::vector<uint32_t>& stateRegion, Automaton* a);

/// The liveness conditions of the states of rules with marks (mark_liveness.cpp), together with
/// those of counted nodes. Throws GrammarError when a state's condition is not one operation.
void ComputeMarkLiveness(Automaton* a);

/// Trims, minimizes, numbers and classifies the rule automata (automaton_assembly.cpp). The
/// last `tokens->count` of the `segCount` columns are token classes.
Automaton AssembleAutomaton(const NfaProgram& program, std::vector<RuleDfa> dfas, const std::array<uint8_t, 256>& segOf,
                            uint32_t segCount, std::vector<CountOp> countOps, const TokenClasses* tokens = nullptr);

}  // namespace tagmask
