// A grammar compiled against a vocabulary: the pushdown automaton and its mask cache.
// Immutable once built; shared by every matcher created from it (on any thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tagmask/automaton.h"
#include "tagmask/compile_control.h"
#include "tagmask/mask_store.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {

struct CompileOptions {
  /// Threads for the mask cache: 1 = on the calling thread only, 0 = the shared pool's size.
  uint32_t threads = 0;
  /// Cancellation and progress (optional): checked and updated while compiling.
  std::shared_ptr<CompileControl> control;
};

struct CompileStats {
  double readMs = 0, automatonMs = 0, masksMs = 0, totalMs = 0;
  uint32_t rules = 0;           // kept rules (calls remain only between these)
  uint32_t states = 0;          // automaton states, the dead state included
  uint32_t byteClasses = 0;
  uint32_t nfaStates = 0;
  uint64_t trieNodesVisited = 0;
  uint32_t walkedStates = 0;    // states the tries were walked from (token equivalence)
  uint32_t distinctMasks = 0, listMasks = 0, complementMasks = 0, bitsetMasks = 0;
  uint32_t uncertainTokens = 0, statesWithUncertain = 0, residualTokens = 0;
  uint32_t threads = 1;
};

class CompiledGrammar {
 public:
  /// Reads the IR buffer (docs/ir.md) and compiles it. Throws Error(InvalidGrammar).
  static std::shared_ptr<const CompiledGrammar> Compile(const uint8_t* ir, size_t size,
                                                        std::shared_ptr<const TokenizerInfo> tokenizer,
                                                        const CompileOptions& options);

  const Automaton& automaton() const { return automaton_; }
  const MaskStore& masks() const { return masks_; }
  const TokenizerInfo& tokenizer() const { return *tokenizer_; }
  const std::shared_ptr<const TokenizerInfo>& tokenizerPtr() const { return tokenizer_; }
  const CompileStats& stats() const { return stats_; }
  /// Bytes held by the automaton and the mask cache (not the shared tokenizer).
  size_t MemoryBytes() const { return automaton_.MemoryBytes() + masks_.MemoryBytes() + sizeof(*this); }

 private:
  CompiledGrammar() = default;
  std::shared_ptr<const TokenizerInfo> tokenizer_;
  Automaton automaton_;
  MaskStore masks_;
  CompileStats stats_;
};

}  // namespace tagmask
