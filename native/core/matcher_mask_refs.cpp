// Which resident row (resident_masks.h) a matcher's next mask is, if any. It mirrors
// FillNextTokenBitmask: a row is one resident row exactly when the matcher has one stack and
// nothing below its top state adds or removes a token; every other case answers -1 and the
// caller fills the row densely.
#include <algorithm>

#include "pda_step.h"
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
  if (sm.uncertainCount != 0 && c.frame != 0) {
    // The frame below decides the uncertain tokens; the row is the stored one only when it
    // accepts none of them and leaves none to check against the rest of the stack.
    const std::vector<uint32_t>& returns = a.rules[a.ruleOf[c.state]].returnStates;
    const uint32_t ret = frames_[c.frame].ret;
    const auto it = std::lower_bound(returns.begin(), returns.end(), ret);
    TAGMASK_CHECK(it != returns.end() && *it == ret, "a frame returns to a state that is not a return state of its rule");
    const PairMask& pm = grammar_->masks().pairs[sm.pairBegin + static_cast<uint32_t>(it - returns.begin())];
    if (pm.acceptedCount != 0 || pm.residualCount != 0) return -1;
  }
  if (a.tokenEdges.Active()) {
    // The resident row holds the token edges reachable without leaving the rule; with a frame
    // below, ending the rule would reach more, and a nesting limit could cut calls short.
    if (c.frame != 0 && resident.LevelEnds(c.state)) return -1;
    if (frames_[c.frame].depth + resident.PushDepth(c.state) > options_.maxStackDepth) return -1;
  }
  return CanEnd(c.state, c.frame) ? resident.Ending(c.state) : resident.Open(c.state);
}

}  // namespace tagmask
