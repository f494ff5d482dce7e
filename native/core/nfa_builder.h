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
#include <unordered_set>
#include <vector>

#include "tagmask/count_op.h"
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
  /// A repeat whose unrolling would copy its item more than this many times is counted instead
  /// (docs/engine.md, "Counted repetition"); smaller ones are unrolled.
  uint32_t countedRepeatFrom = 32;
  /// Work of the mask cache: trie nodes visited plus parser configurations made by its walks
  /// (docs/engine.md, "Limits"). The largest JSONSchemaBench grammars take about 2^27.
  uint64_t maxMaskWork = uint64_t{1} << 29;
};

/// Repeat nodes (IR node ids) that must be unrolled rather than counted: their counted loop was
/// ambiguous (CountConflict).
using UnrollSet = std::unordered_set<uint32_t>;

/// Counted and marks nodes (IR node ids) to build as rules of their own (a call, so a level with
/// its own counter and marks): inline, their operations overlapped another path's on one byte
/// (CountConflict), e.g. two alternatives of an object that start alike, one counting its
/// members and the other not. A node whose item holds units or marks of an enclosing node stays
/// inline, since a call would count them on the wrong level.
using OwnRuleSet = std::unordered_set<uint32_t>;

/// Thrown by the subset construction when a counted repeat's loop is ambiguous: one byte would
/// both continue an item and start the next (`("a"+){0,100}`), so the count cannot follow the
/// bytes, or when counted or marks nodes overlap another path. The compiler unrolls those repeats,
/// builds those nodes as rules of their own, and tries again.
struct CountConflict {
  std::vector<uint32_t> nodes;  // the repeat, counted and marks nodes involved
};

struct Nfa {
  struct Range {
    uint32_t from;
    uint8_t lo, hi;
    uint32_t to;
  };
  struct Eps {
    uint32_t from, to;
    uint32_t op;  // 0, or an index into `ops`: what taking the edge does to the rule's counter
  };
  struct CountStep {
    CountPrimitive kind;
    uint32_t value;   // max for Inc, min for Check
    uint32_t node;    // the repeat node it comes from
    uint32_t region;  // the counted node (NfaProgram::regions index + 1) it belongs to, or 0
    uint32_t modulus = 0;  // the remainder primitives (ResReset, ResFold, ResLive): m
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
  std::vector<CountStep> ops{CountStep{CountPrimitive::Reset, 0, 0, 0}};  // [0] unused
  std::vector<Token> tokens;
};

struct NfaRule {
  std::string name;
  uint32_t start = 0;
  uint32_t final = 0;
  /// For a rule made of one `text` or `anyTokens` node with maxTokens: the limit; ir::kNone otherwise.
  uint32_t maxTokens = ir::kNone;
  bool nullable = false;
  /// The rule's body has counted repetition (epsilon edges with counter operations).
  bool hasOps = false;
};

struct NfaProgram {
  Nfa nfa;
  std::vector<NfaRule> rules;
  uint32_t root = 0;  // index into rules
  /// Counted nodes built inline: bounds, and per NFA state the region + 1 it lies in (0: none;
  /// the vector may be shorter than the state count).
  struct Region {
    uint32_t min, max;
    uint32_t node;  // the IR counted node
  };
  std::vector<Region> regions;
  std::vector<uint32_t> stateRegion;
};

/// Builds the NFAs of the kept rules reachable from the root. Throws GrammarError when a limit
/// is exceeded. Repeats in `unroll` are unrolled even when large; nodes in `ownRules` are built as
/// rules of their own where that keeps their meaning.
NfaProgram BuildNfa(const ir::Grammar& grammar, const CompileLimits& limits, const UnrollSet& unroll = {},
                    const OwnRuleSet& ownRules = {});

}  // namespace tagmask
