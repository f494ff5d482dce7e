// NFAs (nfa_builder.h) to the pushdown automaton (tagmask/automaton.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nfa_builder.h"
#include "tagmask/automaton.h"
#include "token_classes.h"

namespace tagmask {

/// The subset automaton of one rule, over byte segments and then token classes (one column
/// each). Transitions hold local id + 1 (0 is dead); call edges hold the callee's rule index and a
/// local return state.
struct RuleDfa {
  std::vector<uint32_t> trans;  // states x segments
  std::vector<uint8_t> final;
  std::vector<uint32_t> callBegin;  // states + 1
  std::vector<CallEdge> calls;
};

/// Determinizes every rule and assembles the automaton. Throws GrammarError for grammars that
/// match nothing, left recursion, and size limits. `tokens`: the classes of the grammar's token
/// nodes, when it has any.
Automaton BuildAutomaton(const NfaProgram& program, const CompileLimits& limits, const TokenClasses* tokens = nullptr);

/// Trims, minimizes, numbers and classifies the rule automata (automaton_assembly.cpp). The
/// last `tokens->count` of the `segCount` columns are token classes.
Automaton AssembleAutomaton(const NfaProgram& program, std::vector<RuleDfa> dfas, const std::array<uint8_t, 256>& segOf,
                            uint32_t segCount, const TokenClasses* tokens = nullptr);

}  // namespace tagmask
