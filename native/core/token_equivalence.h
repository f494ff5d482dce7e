// States that no token can tell apart, so that the mask builder walks the tries from one of them
// only (docs/engine.md, "The mask cache"). A state's mask depends on what the automaton does on
// byte strings no longer than the longest token; states that agree on all of those (and on what
// the walk reads from the state itself: rule, flags, absorbing profile) get equal masks even
// when their automaton states differ further on. The case that matters is a string with a
// length limit: its states differ by how many characters remain, which no token can see while
// more remain than a token holds (`maxLength: 255` is ~250 positions of ~15 states each).
#pragma once

#include <cstdint>
#include <vector>

#include "tagmask/automaton.h"
#include "tagmask/token_trie.h"

namespace tagmask {

/// Per state, a class id: states of one class agree on every byte string of at most `depth`
/// bytes (which prefixes lead where, up to class), are in the same rule, and have the same flags
/// and `profileOf` entry. States with call edges are classes of their own; so is the dead state
/// (class 0). Class ids are dense, in order of first appearance. With `tries` (plain and impure),
/// classes that only strings no token holds tell apart are merged too (a bounded search); with
/// `plainDepth` (PlainDepth in cut_tables.cpp), states no plain text can kill are not tested.
std::vector<uint32_t> TokenEquivalenceClasses(const Automaton& a, const std::vector<uint32_t>& profileOf, uint32_t depth,
                                              const TokenTrie* const* tries = nullptr, const uint16_t* plainDepth = nullptr);

}  // namespace tagmask
