// The token nodes of the grammar IR (docs/ir.md, "Token nodes"): reading and checking them
// (ir_reader.cpp calls CheckTokenNode for kind codes 16-23), and resolving the token texts they
// name against a vocabulary, which the compiler does first thing.
#pragma once

#include <cstdint>

#include "tagmask/ir.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

/// Whether a node kind code is a token node's (16-18; 19-23 are reserved for token nodes).
bool IsTokenKindCode(uint32_t code);

/// Checks the fields of token node `id`; throws Error(InvalidGrammar) naming the node. `g.extra`
/// and `g.bytes` must be filled already.
void CheckTokenNode(const ir::Grammar& g, uint32_t id, uint32_t code, uint32_t a, uint32_t b, uint32_t c);

/// Replaces every token text of every token node by the id of the token whose bytes are exactly
/// that text (a special token first, then the lowest id), and checks every id against the
/// vocabulary: an id a token node matches must be a real token and not a stop token; an excluded
/// id must be below the vocabulary size. Throws Error(InvalidGrammar) naming the token.
void ResolveTokenNodes(ir::Grammar* grammar, const TokenizerInfo& tokenizer);

}  // namespace tagmask
