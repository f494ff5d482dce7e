// The compiled form of a grammar's language: one deterministic automaton per kept rule over
// bytes (through byte classes), with call edges into other rules. Together they form a pushdown
// automaton: a parser state is a stack of rule frames (docs/engine.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tagmask/count_op.h"
#include "tagmask/token_edges.h"

namespace tagmask {

/// The dead state: every transition out of it leads back to it.
constexpr uint32_t kDeadState = 0;

enum StateFlag : uint8_t {
  /// The state's rule may end here.
  kFinal = 1,
  /// The state has call edges.
  kHasCalls = 2,
  /// Every plain character (tokenizer_info.h) leads from the state back to itself.
  kAbsorbing = 4,
  /// The state belongs to a `text` rule with maxTokens.
  kLimitedText = 8,
  /// Some transition, call edge or the end of the rule here changes or checks the counter of
  /// the rule level (counted repetition; Automaton::countOps).
  kCounted = 16,
};

/// No operation on the counter (index 0 of Automaton::countOps).
constexpr uint32_t kNoCountOp = 0;

struct CallEdge {
  uint32_t rule;         // the callee
  uint32_t returnState;  // where the caller continues after the callee ends
  uint32_t op = kNoCountOp;  // applied to the caller's counter before the call
};

struct AutomatonRule {
  std::string name;
  uint32_t start = 0;
  /// States [firstState, endState) belong to this rule.
  uint32_t firstState = 0;
  uint32_t endState = 0;
  bool isRoot = false;
  bool nullable = false;
  /// maxTokens of a `text` rule, or 0xFFFFFFFF.
  uint32_t maxTokens = 0xFFFFFFFFu;
  /// Distinct states callers return to after this rule ends.
  std::vector<uint32_t> returnStates;
  /// Whether, with the stack below a frame of this rule unknown, the state after the rule ends is
  /// still known for sure: the rule is not the root and has exactly one return state.
  bool exactEscape = false;
  /// Whether the rule has counted repetition: its frames' counts matter (kCounted states).
  bool counted = false;
};

struct Automaton {
  uint32_t classCount = 0;
  std::array<uint8_t, 256> byteClass{};
  /// Dense rows of the states that have them: the row of state s starts at trans[rowAt[s]].
  std::vector<uint32_t> trans;
  /// Per state: the offset of its row in `trans`, or kOneByteRow | target for a state with at
  /// most one live byte (singleByte, or none: target kDeadState), which keeps no row. Most states
  /// of a string enum are such, and a row of ~66 classes each made its table most of its memory.
  std::vector<uint32_t> rowAt;
  static constexpr uint32_t kOneByteRow = 0x80000000u;
  std::vector<uint8_t> flags;
  std::vector<uint32_t> ruleOf;
  /// Call edges of state s: calls[callBegin[s] .. callBegin[s + 1]).
  std::vector<uint32_t> callBegin;
  std::vector<CallEdge> calls;
  /// The only byte that leads out of a state to a live state; -1 when none does, -2 when several.
  std::vector<int16_t> singleByte;
  std::vector<AutomatonRule> rules;
  uint32_t rootRule = 0;
  /// Edges that take a whole token by id (the IR's token nodes); inactive for most grammars.
  TokenEdgeTable tokenEdges;
  /// Counter operations (count_op.h); [0] is kNoCountOp. Only kCounted states refer to others:
  /// per such state a row of one op index per byte class (opRow[s] is its offset in transOps,
  /// kNoOpRow for the other states), and the op applied when its rule ends there (finalOps, empty
  /// when the grammar has no counted repetition).
  std::vector<CountOp> countOps;
  std::vector<uint32_t> opRow;
  std::vector<uint32_t> transOps;
  std::vector<uint32_t> finalOps;
  /// Counted nodes (IR `counted`): per state, the op whose condition says which counts can still
  /// end the node within its bounds (liveness, count_liveness.cpp); kNoCountOp outside them.
  std::vector<uint32_t> liveOps;
  static constexpr uint32_t kNoOpRow = 0xFFFFFFFFu;

  uint32_t StateCount() const { return static_cast<uint32_t>(flags.size()); }
  uint32_t Next(uint32_t state, uint8_t byte) const {
    const uint32_t r = rowAt[state];
    if ((r & kOneByteRow) != 0) return singleByte[state] == byte ? r & ~kOneByteRow : kDeadState;
    return trans[r + byteClass[byte]];
  }
  /// The transition of `state` on byte class `c` (token-class columns included).
  uint32_t NextByClass(uint32_t state, uint32_t c) const {
    const uint32_t r = rowAt[state];
    if ((r & kOneByteRow) == 0) return trans[r + c];
    const int16_t b = singleByte[state];
    return b >= 0 && byteClass[static_cast<uint8_t>(b)] == c ? r & ~kOneByteRow : kDeadState;
  }
  bool HasCounters() const { return countOps.size() > 1; }
  /// The counter operation of the transition of `state` on `byte` (kNoCountOp for most).
  uint32_t TransOp(uint32_t state, uint8_t byte) const {
    return opRow.empty() || opRow[state] == kNoOpRow ? kNoCountOp : transOps[opRow[state] + byteClass[byte]];
  }
  /// The counter operation applied when the state's rule ends there.
  uint32_t FinalOp(uint32_t state) const { return finalOps.empty() ? kNoCountOp : finalOps[state]; }
  /// The liveness condition of a state (see liveOps).
  uint32_t LiveOp(uint32_t state) const { return liveOps.empty() ? kNoCountOp : liveOps[state]; }
  bool Is(uint32_t state, StateFlag flag) const { return (flags[state] & flag) != 0; }
  size_t MemoryBytes() const;
};

}  // namespace tagmask
