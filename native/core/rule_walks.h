// Rule walks kept per vocabulary (docs/engine.md, "Rule walks kept per vocabulary"): a kept rule
// that many schemas share (the any-value rule above all) has the same trie walks in every
// compile except where the walk leaves the rule at the unknown bottom of the stack. Those walks
// are done once against the rule's closure with a stand-in caller that takes every byte, so a
// token is accepted exactly as in any grammar holding the rule, and uncertain candidates are a
// superset; each compile then resolves the candidates per return state (WalkTokens), which gives
// the same uncertain tokens and pairs as walking the state in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tagmask/automaton.h"
#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"
#include "trie_walker.h"

namespace tagmask {

/// One state's walk in the rule's closure.
struct StateWalk {
  /// False when the candidates are too many to pay (a state where the rule may end takes every
  /// token): such a state is walked in place by each compile.
  bool kept = false;
  Ranges accepted[2];  // trie positions, per trie (plain, impure)
  std::vector<uint32_t> candidates;  // token ids, sorted by bytes (WalkTokens' order)
  uint64_t visited = 0;  // trie nodes visited, reported in the stats of each compile that uses it
  uint64_t work = 0;     // charged to the work budget of each compile that uses it
};

struct RuleWalks {
  std::vector<StateWalk> states;  // per state of the rule, from its first state on
  size_t Bytes() const;
};

/// The rule's closure (itself, then the rules it calls, breadth first) and its canonical text,
/// which names states by their place in the closure and transitions by byte, so that equal rules
/// of different grammars get equal keys. False when the rule cannot be kept: the root, a rule
/// with one return state (its end is exact), counted repetition, marks, token edges, limited
/// text, or a closure over `maxStates` states.
bool RuleClosureKey(const Automaton& a, uint32_t rule, uint32_t maxStates, std::vector<uint32_t>* closure, std::string* key);

/// The automaton of the closure alone: state 0 dead, the closure's rules' states in closure
/// order, then one escape state that loops on every byte and that every rule returns to (the
/// escape rule is the root). The first rule's first state is state 1.
Automaton ClosureAutomaton(const Automaton& a, const std::vector<uint32_t>& closure);

}  // namespace tagmask
