#include "tagmask/matcher.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "chain_masks.h"
#include "matcher_arenas.h"
#include "pda_step.h"
#include "residue_tokens.h"
#include "tagmask/bitmask.h"
#include "tagmask/error.h"

namespace tagmask {

namespace {

constexpr uint8_t kSlowFlags = kHasCalls | kLimitedText | kCounted;
constexpr size_t kMaxJumpForward = 4096;

uint32_t HashFrame(uint32_t ret, uint32_t parent, uint32_t count, uint32_t marks) {
  uint64_t h = (static_cast<uint64_t>(ret) << 32 | parent) * 0x9E3779B97F4A7C15ull;
  h = (h ^ count ^ (static_cast<uint64_t>(marks) << 32)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<uint32_t>(h >> 32);
}

}  // namespace

Matcher::Matcher(std::shared_ptr<const CompiledGrammar> grammar, const MatcherOptions& options)
    : grammar_(std::move(grammar)), a_(nullptr), options_(options) {
  TAGMASK_CHECK(grammar_ != nullptr, "a compiled grammar is required");
  a_ = &grammar_->automaton();
  if (options_.maxStackDepth == 0) options_.maxStackDepth = 1;
  stacks_.reserve(256);
  steps_.reserve(256);
  cur_.reserve(16);
  next_.reserve(16);
  scratchRow_.assign(grammar_->tokenizer().MaskWordCount(), 0);
  Reset();
}

Matcher::Matcher(const Matcher& other) = default;
Matcher& Matcher::operator=(const Matcher& other) = default;
Matcher::~Matcher() = default;

void Matcher::Reset() {
  frames_.assign(1, Frame{0, 0, 0, 0, 0});
  frameNext_.assign(1, 0);
  bucketHead_.assign(64, 0);
  stacks_.clear();
  steps_.clear();
  error_.clear();
  depthExceeded_ = false;
  Config start;
  start.state = a_->rules[a_->rootRule].start;
  start.frame = 0;
  stacks_.push_back(start);
  steps_.push_back(Step{0, 1, 1, 0});
}

size_t Matcher::MemoryBytes() const {
  return sizeof(*this) + frames_.capacity() * sizeof(Frame) + frameNext_.capacity() * 4 + bucketHead_.capacity() * 4 +
         stacks_.capacity() * sizeof(Config) + steps_.capacity() * sizeof(Step) + scratchRow_.capacity() * 4 +
         (cur_.capacity() + next_.capacity() + simA_.capacity() + simB_.capacity()) * sizeof(Config) +
         overlay_.capacity() * sizeof(Frame);
}

void Matcher::ThrowIfError() const {
  if (!error_.empty()) {
    throw Error(ErrorCode::MatcherState,
                "the matcher is in its error state after an earlier failure (" + error_ +
                    "); call reset() or create a new matcher");
  }
}

template <class Fn>
auto Matcher::Guard(const char* operation, Fn&& fn) -> decltype(fn()) {
  ThrowIfError();
  try {
    return fn();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::InvalidArgument) throw;  // the caller's mistake; nothing changed
    error_ = std::string(operation) + ": " + e.what();
  } catch (const std::bad_alloc&) {
    error_ = std::string(operation) + ": out of memory";
  } catch (const std::exception& e) {
    error_ = std::string(operation) + ": " + e.what();
  }
  throw Error(ErrorCode::MatcherState, "the matcher failed and is now in its error state: " + error_);
}

// ---- the frame arena -------------------------------------------------------------------------

uint32_t Matcher::InternFrame(uint32_t ret, uint32_t parent, uint32_t count, uint32_t marks) {
  const uint32_t mask = static_cast<uint32_t>(bucketHead_.size()) - 1;
  const uint32_t bucket = HashFrame(ret, parent, count, marks) & mask;
  for (uint32_t f = bucketHead_[bucket]; f != 0; f = frameNext_[f]) {
    if (frames_[f].ret == ret && frames_[f].parent == parent && frames_[f].count == count && frames_[f].marks == marks) return f;
  }
  const uint32_t id = static_cast<uint32_t>(frames_.size());
  frames_.push_back(Frame{ret, parent, frames_[parent].depth + 1, count, marks});
  frameNext_.push_back(bucketHead_[bucket]);
  bucketHead_[bucket] = id;
  if (frames_.size() > bucketHead_.size()) Rehash(bucketHead_.size() * 2);
  return id;
}

void Matcher::Rehash(size_t buckets) {
  bucketHead_.assign(buckets, 0);
  const uint32_t mask = static_cast<uint32_t>(buckets) - 1;
  // In creation order, so that every chain stays newest-first (truncation relies on it).
  for (uint32_t f = 1; f < frames_.size(); ++f) {
    const uint32_t bucket = HashFrame(frames_[f].ret, frames_[f].parent, frames_[f].count, frames_[f].marks) & mask;
    frameNext_[f] = bucketHead_[bucket];
    bucketHead_[bucket] = f;
  }
}

void Matcher::RestoreLevel(const Frame& frame, Config* c) {
  c->count = frame.count;
  c->marks = frame.marks;
  c->markMode = kMarksKnown;
}

void Matcher::TruncateFrames(uint32_t count) {
  const uint32_t mask = static_cast<uint32_t>(bucketHead_.size()) - 1;
  // Frames go in reverse creation order, so each is the head of its chain when removed.
  while (frames_.size() > count) {
    const uint32_t f = static_cast<uint32_t>(frames_.size()) - 1;
    const uint32_t bucket = HashFrame(frames_[f].ret, frames_[f].parent, frames_[f].count, frames_[f].marks) & mask;
    TAGMASK_CHECK(bucketHead_[bucket] == f, "frame arena chains out of order");
    bucketHead_[bucket] = frameNext_[f];
    frames_.pop_back();
    frameNext_.pop_back();
  }
}

// ---- accepting -------------------------------------------------------------------------------

void Matcher::PushStep(const Config* configs, size_t count, bool terminated) {
  const uint32_t begin = static_cast<uint32_t>(stacks_.size());
  stacks_.insert(stacks_.end(), configs, configs + count);
  steps_.push_back(Step{begin, static_cast<uint32_t>(count), static_cast<uint32_t>(frames_.size()), terminated ? uint8_t{1} : uint8_t{0}});
}

bool Matcher::Advance(const uint8_t* bytes, size_t length) {
  const Step& step = steps_.back();
  cur_.assign(stacks_.begin() + step.begin, stacks_.begin() + step.begin + step.size);
  const uint32_t frameMark = static_cast<uint32_t>(frames_.size());
  const Automaton& a = *a_;
  size_t i = 0;
  // Fast path: one stack whose states neither call nor return nor count tokens.
  if (cur_.size() == 1) {
    Config& c = cur_[0];
    for (; i < length; ++i) {
      const uint8_t f = a.flags[c.state];
      if ((f & kSlowFlags) || ((f & kFinal) && c.frame != 0)) break;
      const uint32_t t = a.Next(c.state, bytes[i]);
      if (t == kDeadState) return false;
      c.state = t;
      // Entering a counted node's state: its count must still be able to end the node.
      if ((a.flags[t] & kCounted) && !ApplyCountOp(a, a.LiveOp(t), &c)) return false;
    }
  }
  if (i < length) {
    RealArena arena(*this);
    PdaStepper<RealArena> stepper(a, arena);
    ConfigTable table;  // allocates only when a step has many stacks
    for (; i < length; ++i) {
      next_.clear();
      stepper.ClearVisited();
      for (const Config& c : cur_) stepper.StepMore(c, bytes[i], &next_);
      if (depthExceeded_) {
        depthExceeded_ = false;
        TruncateFrames(frameMark);
        throw Error(ErrorCode::Internal, "the input nests deeper than maxStackDepth = " + std::to_string(options_.maxStackDepth) +
                                             " rule calls");
      }
      if (next_.empty()) {
        TruncateFrames(frameMark);
        return false;
      }
      DedupeConfigs(&next_, 0, &table);
      if (next_.size() > options_.maxStacks) {
        TruncateFrames(frameMark);
        throw Error(ErrorCode::Internal, "the grammar is ambiguous here: more than maxStacks = " + std::to_string(options_.maxStacks) +
                                             " parses of the output are alive at once (docs/engine.md, \"Limits\")");
      }
      cur_.swap(next_);
    }
  }
  // The token is complete: limited texts count it if it consumed a byte of theirs.
  for (Config& c : cur_) {
    if (c.consumed && c.count < 0xFFFF) ++c.count;
    c.consumed = 0;
    c.exact = 1;
  }
  DedupeConfigs(&cur_);
  PushStep(cur_.data(), cur_.size(), false);
  return true;
}

bool Matcher::AcceptToken(uint32_t id) {
  const TokenizerInfo& tok = grammar_->tokenizer();
  ThrowIfError();
  if (id >= tok.VocabSize()) {
    throw Error(ErrorCode::InvalidArgument, "token id " + std::to_string(id) + " is out of range: the vocabulary has " +
                                                std::to_string(tok.VocabSize()) + " ids (0.." +
                                                std::to_string(tok.VocabSize() - 1) + ")");
  }
  return Guard("acceptToken", [&]() -> bool {
    if (IsTerminated()) return false;
    if (tok.IsStop(id)) {
      if (!CanTerminate()) return false;
      const Step& step = steps_.back();
      cur_.assign(stacks_.begin() + step.begin, stacks_.begin() + step.begin + step.size);
      PushStep(cur_.data(), cur_.size(), true);
      return true;
    }
    if (a_->tokenEdges.Active()) return AdvanceToken(id);  // matcher_token_edges.cpp
    if (!tok.IsEligible(id)) return false;  // control tokens, padding, empty tokens
    return Advance(tok.TokenBytes(id), tok.TokenLength(id));
  });
}

bool Matcher::AcceptBytes(const uint8_t* bytes, size_t length) {
  return Guard("acceptString", [&]() -> bool {
    if (IsTerminated()) return false;
    return Advance(bytes, length);
  });
}

void Matcher::Rollback(uint32_t n) {
  ThrowIfError();
  if (n > StepCount()) {
    throw Error(ErrorCode::InvalidArgument, "cannot roll back " + std::to_string(n) + " steps: only " +
                                                std::to_string(StepCount()) + " were accepted since the start or the last reset");
  }
  if (n == 0) return;
  steps_.resize(steps_.size() - n);
  const Step& step = steps_.back();
  stacks_.resize(step.begin + step.size);
  TruncateFrames(step.frameCount);
}

// ---- queries ---------------------------------------------------------------------------------

bool Matcher::IsTerminated() const { return steps_.back().terminated != 0; }

bool Matcher::CanEnd(const Config& stack) const {
  // Ending pops frames without consuming; every state on the way must be final (and its
  // counter must allow the end).
  uint32_t state = stack.state, frame = stack.frame, count = stack.count, marks = stack.marks;
  for (;;) {
    const uint8_t f = a_->flags[state];
    if (!(f & kFinal)) return false;
    if (f & kCounted) {
      const uint32_t op = a_->FinalOp(state);
      if (op != kNoCountOp && !a_->countOps[op].Apply(&count, &marks)) return false;
    }
    if (frame == 0) return true;
    state = frames_[frame].ret;
    count = frames_[frame].count;
    marks = frames_[frame].marks;
    frame = frames_[frame].parent;
  }
}

bool Matcher::CanTerminate() const {
  ThrowIfError();
  const Step& step = steps_.back();
  if (step.terminated) return true;
  for (uint32_t i = 0; i < step.size; ++i) {
    if (CanEnd(stacks_[step.begin + i])) return true;
  }
  return false;
}

bool Matcher::CheckToken(const Config& stack, uint32_t id) const {
  const TokenizerInfo& tok = grammar_->tokenizer();
  const uint8_t* p = tok.TokenBytes(id);
  const uint32_t len = tok.TokenLength(id);
  OverlayArena arena(*this);
  PdaStepper<OverlayArena> stepper(*a_, arena);
  simA_.assign(1, stack);
  for (uint32_t i = 0; i < len; ++i) {
    simB_.clear();
    stepper.ClearVisited();
    for (const Config& c : simA_) stepper.StepMore(c, p[i], &simB_);
    if (simB_.empty()) return false;
    DedupeConfigs(&simB_);
    simA_.swap(simB_);
  }
  return true;
}

void Matcher::FillStack(const Config& stack, uint32_t* row, bool* first) const {
  const Automaton& a = *a_;
  const MaskStore& store = grammar_->masks();
  const uint32_t* eligible = grammar_->tokenizer().EligibleMask();
  const uint8_t f = a.flags[stack.state];
  if ((f & kLimitedText) && stack.count >= a.rules[a.ruleOf[stack.state]].maxTokens) {
    // The text used up its tokens: only tokens that leave it right here.
    if ((f & kFinal) && stack.frame != 0) {
      Config popped;
      popped.state = frames_[stack.frame].ret;
      popped.frame = frames_[stack.frame].parent;
      RestoreLevel(frames_[stack.frame], &popped);
      FillStack(popped, row, first);
    }
    return;
  }
  const StateMask& sm = store.states[stack.state];
  if (sm.mask == kChainMask) {
    // Every token ends on the forced string ahead (chain_masks.h): nothing below matters.
    if (*first) {
      std::fill(row, row + store.wordCount, 0u);
      *first = false;
    }
    ForEachChainToken(a, grammar_->tokenizer(), stack.state, [row](uint32_t id) { SetBit(row, id); });
    return;
  }
  const uint32_t mask = sm.regimeCount == 0 ? sm.mask : store.RegimeMask(sm, stack.count);
  if (*first) {
    store.Write(mask, eligible, row);
    *first = false;
  } else {
    store.OrInto(mask, eligible, row, scratchRow_.data());
  }
  if (sm.markedCount != 0) FillMarked(sm, stack, row);
  if (sm.uncertainCount == 0 || stack.frame == 0) return;  // at the bottom, leaving the rule ends the grammar
  // The frame below decides most uncertain tokens (precomputed per return state); the residual
  // ones are checked against the whole stack.
  const std::vector<uint32_t>& returns = a.rules[a.ruleOf[stack.state]].returnStates;
  const uint32_t ret = frames_[stack.frame].ret;
  const auto it = std::lower_bound(returns.begin(), returns.end(), ret);
  TAGMASK_CHECK(it != returns.end() && *it == ret, "a frame returns to a state that is not a return state of its rule");
  const PairMask& pm = store.pairs[sm.pairBegin + static_cast<uint32_t>(it - returns.begin())];
  const uint32_t* acc = store.uncertain.data() + pm.acceptedOffset;
  for (uint32_t i = 0; i < pm.acceptedCount; ++i) SetBit(row, acc[i]);
  if (pm.countedCount != 0) {
    const uint32_t count = frames_[stack.frame].count;
    const CountedToken* ct = store.countedTokens.data() + pm.countedOffset;
    for (uint32_t i = 0; i < pm.countedCount; ++i) {
      if (ct[i].lo <= count && count <= ct[i].hi) SetBit(row, ct[i].id);
    }
  }
  if (pm.residueCount != 0) {
    ForEachResidueToken(store.residueTokens.data() + pm.residueOffset, pm.residueCount, stack.count, [row](uint32_t id) {
      SetBit(row, id);
      return true;
    });
  }
  const uint32_t* residual = store.uncertain.data() + pm.residualOffset;
  for (uint32_t i = 0; i < pm.residualCount; ++i) {
    if (!TestBit(row, residual[i]) && CheckToken(stack, residual[i])) SetBit(row, residual[i]);
  }
}

// Tokens the state accepts for some marks of its level (docs/engine.md, "Marks").
void Matcher::FillMarked(const StateMask& sm, const Config& stack, uint32_t* row) const {
  const MaskStore& store = grammar_->masks();
  const MarkedTokens* groups = store.marked.data() + sm.markedBegin;
  for (uint32_t g = 0; g < sm.markedCount; ++g) {
    if (!groups[g].Holds(stack.count, stack.marks)) continue;
    const uint32_t* ids = store.markedIds.data() + groups[g].offset;
    for (uint32_t i = 0; i < groups[g].size; ++i) SetBit(row, ids[i]);
  }
}

void Matcher::FillNextTokenBitmask(uint32_t* row) const {
  ThrowIfError();
  const TokenizerInfo& tok = grammar_->tokenizer();
  const uint32_t words = tok.MaskWordCount();
  const uint32_t* stop = tok.StopMask();
  const Step& step = steps_.back();
  if (step.terminated) {
    std::copy(stop, stop + words, row);
    return;
  }
  bool first = true;
  for (uint32_t i = 0; i < step.size; ++i) FillStack(stacks_[step.begin + i], row, &first);
  if (first) std::fill(row, row + words, 0u);
  if (a_->tokenEdges.Active()) FillTokenEdges(row);  // matcher_token_edges.cpp
  if (CanTerminate()) {
    for (uint32_t id : tok.StopIds()) SetBit(row, id);
  }
}

std::string Matcher::FindJumpForwardString() const {
  ThrowIfError();
  std::string out;
  if (IsTerminated()) return out;
  const Automaton& a = *a_;
  const Step& step = steps_.back();
  OverlayArena arena(*this);
  PdaStepper<OverlayArena> stepper(a, arena);
  simA_.assign(stacks_.begin() + step.begin, stacks_.begin() + step.begin + step.size);
  // Which bytes can come next from a set of configurations: the byte transitions of every state
  // reachable by calls and returns without consuming.
  std::vector<Config> closure;
  const auto nextBytes = [&](uint8_t bytes[32], bool* canEnd) {
    std::memset(bytes, 0, 32);
    *canEnd = false;
    closure.assign(simA_.begin(), simA_.end());
    for (size_t k = 0; k < closure.size(); ++k) {
      const Config c = closure[k];
      const uint8_t f = a.flags[c.state];
      if (a.tokenEdges.HasEdges(c.state)) *canEnd = true;  // a token edge is another way on: force nothing
      const bool mayConsume = !(f & kLimitedText) || c.count < a.rules[a.ruleOf[c.state]].maxTokens;
      if (mayConsume && (f & kCounted)) {
        // The counter may forbid some of the bytes.
        for (int b = 0; b < 256; ++b) {
          Config n = c;
          if (a.Next(c.state, static_cast<uint8_t>(b)) != kDeadState && ApplyCountOp(a, a.TransOp(c.state, static_cast<uint8_t>(b)), &n)) {
            bytes[b >> 3] |= static_cast<uint8_t>(1u << (b & 7));
          }
        }
      } else if (mayConsume) {
        const int single = a.singleByte[c.state];
        if (single >= 0) {
          bytes[single >> 3] |= static_cast<uint8_t>(1u << (single & 7));
        } else if (single == -2) {
          for (int b = 0; b < 256; ++b) {
            if (a.Next(c.state, static_cast<uint8_t>(b)) != kDeadState) bytes[b >> 3] |= static_cast<uint8_t>(1u << (b & 7));
          }
        }
      }
      const auto add = [&](const Config& n) {
        for (const Config& x : closure) {
          if (x.SameAs(n)) return;
        }
        closure.push_back(n);
      };
      if (f & kHasCalls) {
        for (uint32_t e = a.callBegin[c.state]; e < a.callBegin[c.state + 1]; ++e) {
          Config caller = c;
          if (!ApplyCountOp(a, a.calls[e].op, &caller)) continue;
          const uint32_t frame = arena.Push(a.calls[e].returnState, c.frame, caller);
          if (frame == kNoFrame) continue;
          Config n;
          n.state = a.rules[a.calls[e].rule].start;
          n.frame = frame;
          add(n);
        }
      }
      if (f & kFinal) {
        Config e = c;
        if ((f & kCounted) && !ApplyCountOp(a, a.FinalOp(c.state), &e)) continue;
        if (c.frame == 0) {
          *canEnd = true;
        } else {
          Config n;
          n.state = arena.Ret(c.frame);
          n.frame = arena.Parent(c.frame);
          arena.Restore(c.frame, &n);
          if ((a.flags[n.state] & kCounted) && !ApplyCountOp(a, a.LiveOp(n.state), &n)) continue;
          add(n);
        }
      }
    }
  };
  uint8_t bytes[32];
  while (out.size() < kMaxJumpForward) {
    bool canEnd = false;
    nextBytes(bytes, &canEnd);
    if (canEnd) break;
    int only = -1, count = 0;
    for (int b = 0; b < 256 && count < 2; ++b) {
      if (bytes[b >> 3] & (1u << (b & 7))) {
        only = b;
        ++count;
      }
    }
    if (count != 1) break;
    simB_.clear();
    stepper.ClearVisited();
    for (const Config& c : simA_) stepper.StepMore(c, static_cast<uint8_t>(only), &simB_);
    if (simB_.empty()) break;
    DedupeConfigs(&simB_);
    simA_.swap(simB_);
    out.push_back(static_cast<char>(only));
  }
  // Whole characters only: nothing when the matcher is inside a character, and no partial
  // character at the end.
  if (!out.empty() && (static_cast<uint8_t>(out[0]) & 0xC0) == 0x80) return std::string();
  size_t end = out.size();
  size_t k = end;
  while (k > 0 && (static_cast<uint8_t>(out[k - 1]) & 0xC0) == 0x80) --k;
  if (k > 0) {
    const uint8_t lead = static_cast<uint8_t>(out[k - 1]);
    const size_t need = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (end - (k - 1) < need) end = k - 1;
  }
  out.resize(end);
  return out;
}

}  // namespace tagmask
