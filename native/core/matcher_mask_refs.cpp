// Which resident row (resident_masks.h) a matcher's next mask is, if any. It mirrors
// FillNextTokenBitmask: a row is one resident row exactly when the matcher has one stack and
// nothing deeper than the frame below its top state adds a token; every other case answers -1
// and the caller fills the row densely. Masks that depend on the level's count or marks (counted
// repetition, docs/engine.md) are not resident rows: such a state is filled densely too.
#include <algorithm>

#include "pda_step.h"
#include "residue_tokens.h"
#include "tagmask/bitmask.h"
#include "tagmask/error.h"
#include "tagmask/matcher.h"
#include "tagmask/resident_masks.h"

namespace tagmask {

int32_t Matcher::ResidentMaskRef() const {
  ThrowIfError();
  const ResidentMasks& resident = grammar_->residentMasks();
  const Step& step = steps_.back();
  if (step.terminated) return resident.Terminated();
  if (step.size != 1) return -1;  // the union of several stacks' masks
  const Config& c = stacks_[step.begin];
  const Automaton& a = *a_;
  const uint8_t f = a.flags[c.state];
  // A limited text out of tokens allows only what leaves it: decided by the frame below.
  if ((f & kLimitedText) && c.count >= a.rules[a.ruleOf[c.state]].maxTokens) return -1;
  const StateMask& sm = grammar_->masks().states[c.state];
  if (sm.regimeCount != 0 || sm.markedCount != 0) return -1;  // the row depends on the count or marks
  if (sm.mask == kChainMask) return -1;  // filled along its chain, no stored mask (chain_masks.h)
  if (a.tokenEdges.Active()) {
    // The level closure behind the rows' token edges does not follow counter operations.
    if (a.HasCounters()) return -1;
    // The resident rows hold the token edges reachable without leaving the rule; with a frame
    // below, ending the rule would reach more, and a nesting limit could cut calls short.
    if (c.frame != 0 && resident.LevelEnds(c.state)) return -1;
    if (frames_[c.frame].depth + resident.PushDepth(c.state) > options_.maxStackDepth) return -1;
  }
  const bool ending = CanEnd(c);
  if (sm.uncertainCount == 0 || c.frame == 0) return ending ? resident.Ending(c.state) : resident.Open(c.state);
  // The frame below decides most uncertain tokens: the row of this (state, return state) pair
  // holds those it accepts. Its residual tokens depend on the stack further down and are checked
  // as FillNextTokenBitmask checks them: the row stands only if none of them is added.
  const std::vector<uint32_t>& returns = a.rules[a.ruleOf[c.state]].returnStates;
  const uint32_t ret = frames_[c.frame].ret;
  const auto it = std::lower_bound(returns.begin(), returns.end(), ret);
  TAGMASK_CHECK(it != returns.end() && *it == ret, "a frame returns to a state that is not a return state of its rule");
  const uint32_t pair = sm.pairBegin + static_cast<uint32_t>(it - returns.begin());
  const int32_t id = ending ? resident.PairEnding(pair) : resident.PairOpen(pair);
  if (id < 0) return -1;
  const PairMask& pm = grammar_->masks().pairs[pair];
  if (pm.countedCount != 0) return -1;  // tokens decided by the frame's saved count
  const uint32_t* row = resident.Row(id);
  bool added = false;
  ForEachResidueToken(grammar_->masks().residueTokens.data() + pm.residueOffset, pm.residueCount, c.count, [&](uint32_t tokenId) {
    added = !TestBit(row, tokenId);
    return !added;
  });
  if (added) return -1;
  const uint32_t* residual = grammar_->masks().uncertain.data() + pm.residualOffset;
  for (uint32_t i = 0; i < pm.residualCount; ++i) {
    if (!TestBit(row, residual[i]) && CheckToken(c, residual[i])) return -1;
  }
  return id;
}

}  // namespace tagmask
