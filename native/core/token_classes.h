// Token classes: the token ids a grammar's token nodes (token_nodes.h) tell apart. Every token
// node matches a union of classes, and the automaton gets one extra column per class, beside the
// byte classes, so determinization, trimming and minimization treat "this token" like a byte.
//
// Class ids are listed explicitly (ids some node names, grouped by which nodes take them); the
// free tokens no node names form one more class, `other`, when some node takes free tokens.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tagmask/ir.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

struct TokenClasses {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t count = 0;
  /// Per class: the ids in it (empty for `other`).
  std::vector<std::vector<uint32_t>> ids;
  /// The class of the free tokens no node names, or kNone.
  uint32_t other = kNone;
  /// Those tokens as a mask row (TokenizerInfo::MaskWordCount words); empty when other is kNone.
  std::vector<uint32_t> otherMask;
  /// Per token node id (IR): the classes it takes, ascending.
  std::unordered_map<uint32_t, std::vector<uint32_t>> ofNode;
};

/// The classes of a grammar whose token texts are resolved (ResolveTokenNodes). A free token is
/// one the vocabulary may emit as text (TokenizerInfo::IsEligible): not a control or stop token.
TokenClasses BuildTokenClasses(const ir::Grammar& grammar, const TokenizerInfo& tokenizer);

}  // namespace tagmask
