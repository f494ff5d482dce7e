// From the grammar IR to one byte-level NFA per kept rule.
//
// Rules are analysed first: the call graph, its strongly connected components, and the set of
// rules kept as real calls (the root, and enough rules of each recursive component to break
// every cycle). Every other reference is inlined, so most tool grammars become a single
// automaton and only true recursion stays a call. A `text` or `anyTokens` node with maxTokens
// becomes a rule of its own (one per occurrence), because the matcher counts tokens per
// occurrence of it. Token nodes become token edges (Nfa::Token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tagmask/ir.h"

namespace tagmask {

/// Size limits of a compilation; exceeding one is a GrammarError naming the rule.
struct CompileLimits {
  uint32_t maxNfaStates = 4u << 20;
  uint32_t maxDfaStates = 1u << 20;
  uint32_t maxTextStates = 1u << 16;
  uint32_t maxNestingDepth = 4000;
  /// NFA states after which the builder stops, keeps the rule whose copies take the most states
  /// as a call instead, and starts over.
  uint32_t inlineBudget = 1u << 19;
  /// A rule whose inlined copy takes at least this many NFA states is kept as a call once it is
  /// referenced a second time: its automaton (and its states' masks) are then built once.
  uint32_t sharedRuleStates = 4096;
};

struct Nfa {
  struct Range {
    uint32_t from;
    uint8_t lo, hi;
    uint32_t to;
  };
  struct Eps {
    uint32_t from, to;
  };
  struct Call {
    uint32_t from;
    uint32_t rule;  // index into NfaProgram::rules
    uint32_t to;
  };
  /// One whole token of the set an IR token node names (token_classes.h gives its classes).
  struct Token {
    uint32_t from;
    uint32_t node;  // the IR token node
    uint32_t to;
  };
  uint32_t stateCount = 0;
  std::vector<Range> ranges;
  std::vector<Eps> eps;
  std::vector<Call> calls;
  std::vector<Token> tokens;
};

struct NfaRule {
  std::string name;
  uint32_t start = 0;
  uint32_t final = 0;
  /// For a rule made of one `text` or `anyTokens` node with maxTokens: the limit; ir::kNone otherwise.
  uint32_t maxTokens = ir::kNone;
  bool nullable = false;
};

struct NfaProgram {
  Nfa nfa;
  std::vector<NfaRule> rules;
  uint32_t root = 0;  // index into rules
};

/// Builds the NFAs of the kept rules reachable from the root. Throws GrammarError when a limit
/// is exceeded.
NfaProgram BuildNfa(const ir::Grammar& grammar, const CompileLimits& limits);

}  // namespace tagmask
