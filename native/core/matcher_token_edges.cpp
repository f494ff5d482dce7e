// The matcher's token edges (docs/engine.md, "Token edges"): accepting a token through a token
// edge as well as through its bytes, and the tokens token edges add to a filled mask. Hooks in
// matcher.cpp call these only for grammars whose automaton has token edges.
#include <algorithm>
#include <string>

#include "tagmask/error.h"
#include "tagmask/matcher.h"
#include "matcher_arenas.h"
#include "token_step.h"

namespace tagmask {

bool Matcher::AdvanceToken(uint32_t id) {
  const TokenizerInfo& tok = grammar_->tokenizer();
  const TokenEdgeTable& te = a_->tokenEdges;
  const uint32_t frameMark = static_cast<uint32_t>(frames_.size());
  tokenNext_.clear();
  const uint32_t tokenClass = te.ClassOf(id);
  if (tokenClass != TokenEdgeTable::kNoClass) {
    const Step& step = steps_.back();
    RealArena arena(*this);
    TokenEdgeStepper<RealArena> stepper(*a_, arena);
    for (uint32_t i = 0; i < step.size; ++i) stepper.Step(stacks_[step.begin + i], tokenClass, &tokenNext_);
    if (depthExceeded_) {
      depthExceeded_ = false;
      TruncateFrames(frameMark);
      throw Error(ErrorCode::Internal, "the input nests deeper than maxStackDepth = " + std::to_string(options_.maxStackDepth) +
                                           " rule calls");
    }
  }
  // The token's bytes too: a token may be matched either way. Advance pushes its own step.
  const bool viaBytes = tok.IsEligible(id) && Advance(tok.TokenBytes(id), tok.TokenLength(id));
  if (tokenNext_.empty()) {
    if (!viaBytes) TruncateFrames(frameMark);
    return viaBytes;
  }
  for (Config& c : tokenNext_) {
    if (c.consumed && c.count < 0xFFFF) ++c.count;
    c.consumed = 0;
    c.exact = 1;
  }
  if (!viaBytes) {
    DedupeConfigs(&tokenNext_);
    PushStep(tokenNext_.data(), tokenNext_.size(), false);
    return true;
  }
  Step& top = steps_.back();
  stacks_.insert(stacks_.end(), tokenNext_.begin(), tokenNext_.end());
  DedupeConfigs(&stacks_, top.begin);
  top.size = static_cast<uint32_t>(stacks_.size()) - top.begin;
  top.frameCount = static_cast<uint32_t>(frames_.size());
  return true;
}

void Matcher::FillTokenEdges(uint32_t* row) const {
  const Step& step = steps_.back();
  OverlayArena arena(*this);
  TokenEdgeStepper<OverlayArena> stepper(*a_, arena);
  const TokenEdgeTable& te = a_->tokenEdges;
  for (uint32_t i = 0; i < step.size; ++i) {
    stepper.ForEachTokenState(stacks_[step.begin + i], [&](const Config& at) { te.SetTokens(at.state, row); });
  }
}

}  // namespace tagmask
