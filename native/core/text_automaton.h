// The automaton of a `text` node: valid UTF-8 in which no excluded byte string occurs, of at
// most maxChars code points. An Aho-Corasick automaton over the excluded strings, crossed with a
// UTF-8 decoder and (when maxChars is set) a character counter, explored from its start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tagmask {

struct TextDfa {
  /// next[s * 256 + b]: the state after byte b, or -1 (dead).
  std::vector<int32_t> next;
  /// Whether the text may end in state s (at a character boundary).
  std::vector<uint8_t> accepting;
  uint32_t StateCount() const { return static_cast<uint32_t>(accepting.size()); }
};

/// Builds the automaton; state 0 is the start. `maxChars` is ir::kNone when unlimited. Throws a
/// GrammarError naming `where` when it would exceed `stateLimit` states.
TextDfa BuildTextDfa(const std::vector<std::string>& excludes, uint32_t maxChars, uint32_t stateLimit,
                     const std::string& where);

}  // namespace tagmask
