// A matcher: the parser state of one sequence against a compiled grammar. It accepts tokens,
// fills the bitmask of the tokens allowed next, rolls back, forks, and finds forced strings.
//
// The state is a small set of stacks (the grammar may be ambiguous). A stack is a top automaton
// state plus the index of its parent frame in an append-only, hash-consed frame arena (frame =
// return state + parent index), so equal stacks are equal integers and a fork is a plain copy.
// Every accepted token records its stack set and the arena size, so a rollback restores them
// exactly (docs/engine.md).
//
// Threads: a matcher is used by one thread at a time. Different matchers, even of the same
// compiled grammar, may be used concurrently (the compiled grammar is immutable). Fill and the
// other const methods use per-matcher scratch buffers, so they are not reentrant on one matcher.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tagmask/compiled_grammar.h"

namespace tagmask {

struct Config;
struct StateMask;

struct MatcherOptions {
  /// Deepest nesting of rule calls (frames on one stack) before the matcher gives up with an
  /// error state; it bounds runaway recursion such as tens of thousands of nested brackets.
  uint32_t maxStackDepth = 10000;
  /// Most parses (stacks) alive at once: an ambiguous grammar keeps several, and one whose parses
  /// multiply with the input (`s ::= "a" s "b" | "a" t "c" | ""`, `t ::= ...`) would take time
  /// exponential in it. Past this the matcher enters its error state (docs/engine.md, "Limits").
  uint32_t maxStacks = 1024;
};

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<const CompiledGrammar> grammar, const MatcherOptions& options = {});
  Matcher(const Matcher& other);
  Matcher& operator=(const Matcher& other);
  ~Matcher();

  /// Accepts a token: true if allowed (the state advances), false if not (the state is
  /// unchanged). A stop token is allowed iff the grammar can end here; it terminates the matcher.
  /// Throws InvalidArgument for an id outside the vocabulary.
  bool AcceptToken(uint32_t id);
  /// Accepts raw bytes (e.g. a forced string) as one step; false leaves the state unchanged.
  bool AcceptBytes(const uint8_t* bytes, size_t length);
  /// Writes the mask of tokens allowed next into `row` (MaskWordCount() words). After
  /// termination only the stop tokens are allowed.
  void FillNextTokenBitmask(uint32_t* row) const;
  /// The id of the resident row (CompiledGrammar::residentMasks()) equal to the row
  /// FillNextTokenBitmask would write now, or -1 when that row is none of them: several live
  /// stacks, tokens that depend on the stack deeper than the frame below the top state, a
  /// limited text that used up its tokens (matcher_mask_refs.cpp). Allocation-free.
  int32_t ResidentMaskRef() const;
  /// Whether the grammar can end here (a stop token would be accepted).
  bool CanTerminate() const;
  /// Whether a stop token was accepted.
  bool IsTerminated() const;
  /// Undoes the last `n` steps (tokens or accepted byte strings). Throws InvalidArgument when
  /// fewer were accepted.
  void Rollback(uint32_t n);
  /// Back to the initial state; also clears the error state.
  void Reset();
  /// The longest byte string every continuation must start with, cut to whole UTF-8 characters
  /// (empty when the grammar can end here or several bytes are possible).
  std::string FindJumpForwardString() const;

  /// Steps accepted since the start (what Rollback can undo).
  uint32_t StepCount() const { return static_cast<uint32_t>(steps_.size()) - 1; }
  /// Stacks in the current state (1 for unambiguous grammars).
  uint32_t StackCount() const { return steps_.back().size; }
  uint32_t MaskWordCount() const { return grammar_->tokenizer().MaskWordCount(); }
  bool InError() const { return !error_.empty(); }
  const std::string& ErrorMessage() const { return error_; }
  const CompiledGrammar& grammar() const { return *grammar_; }
  const std::shared_ptr<const CompiledGrammar>& grammarPtr() const { return grammar_; }
  size_t MemoryBytes() const;

 private:
  struct Frame {
    uint32_t ret;
    uint32_t parent;
    uint32_t depth;
    uint32_t count;  // the caller's counter, restored when the callee ends
    uint32_t marks;  // the caller's marks (docs/engine.md, "Marks"), restored likewise
  };
  struct Step {
    uint32_t begin;       // into stacks_
    uint32_t size;        // stacks in the set
    uint32_t frameCount;  // arena size after the step
    uint8_t terminated;
  };
  class RealArena;
  class OverlayArena;

  void ThrowIfError() const;
  template <class Fn>
  auto Guard(const char* operation, Fn&& fn) -> decltype(fn());
  bool Advance(const uint8_t* bytes, size_t length);
  void PushStep(const Config* configs, size_t count, bool terminated);
  uint32_t InternFrame(uint32_t ret, uint32_t parent, uint32_t count, uint32_t marks);
  static void RestoreLevel(const Frame& frame, Config* c);
  void TruncateFrames(uint32_t count);
  void Rehash(size_t buckets);
  bool CanEnd(const Config& stack) const;
  void FillStack(const Config& stack, uint32_t* row, bool* first) const;
  void FillMarked(const StateMask& sm, const Config& stack, uint32_t* row) const;
  bool CheckToken(const Config& stack, uint32_t id) const;
  // Token edges (matcher_token_edges.cpp): accepting a token through them and its bytes, and
  // adding what they take to a filled mask. Used only when the automaton has token edges.
  bool AdvanceToken(uint32_t id);
  void FillTokenEdges(uint32_t* row) const;

  std::shared_ptr<const CompiledGrammar> grammar_;
  const Automaton* a_;
  MatcherOptions options_;
  std::vector<Frame> frames_;           // frame 0: no frame (the bottom of every stack)
  std::vector<uint32_t> frameNext_;     // hash chain per frame
  std::vector<uint32_t> bucketHead_;    // hash buckets (power of two)
  std::vector<Config> stacks_;          // stack sets of all steps, appended
  std::vector<Step> steps_;             // steps_[0]: the initial state
  std::string error_;
  bool depthExceeded_ = false;
  // Scratch, reused so that accept and fill do not allocate once warm.
  std::vector<Config> cur_, next_, tokenNext_;
  mutable std::vector<Config> simA_, simB_;
  mutable std::vector<Frame> overlay_;
  mutable std::vector<uint32_t> scratchRow_;
};

}  // namespace tagmask
