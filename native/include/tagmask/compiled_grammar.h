// A grammar compiled against a vocabulary: the pushdown automaton and its mask cache.
// Immutable once built; shared by every matcher created from it (on any thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "tagmask/automaton.h"
#include "tagmask/compile_control.h"
#include "tagmask/mask_store.h"
#include "tagmask/resident_masks.h"
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
  uint64_t maskWork = 0;        // steps counted against CompileLimits::maxMaskWork
  uint32_t walkedStates = 0;    // states the tries were walked from (token equivalence)
  uint32_t chainStates = 0;     // states filled along their chain at run time, neither walked nor stored
  uint32_t distinctMasks = 0, listMasks = 0, complementMasks = 0, bitsetMasks = 0;
  uint32_t uncertainTokens = 0, statesWithUncertain = 0, residualTokens = 0, residueTokens = 0;
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
  /// The masks as whole rows for masking with device-resident masks (resident_masks.h), built
  /// on first use (thread-safe). Throws Error(InvalidArgument) when they would be too large.
  const ResidentMasks& residentMasks() const;
  /// Bytes held by the automaton and the mask cache, and the resident rows once built (not the
  /// shared tokenizer).
  size_t MemoryBytes() const {
    const ResidentMasks* resident = residentReady_.load(std::memory_order_acquire);
    return automaton_.MemoryBytes() + masks_.MemoryBytes() + sizeof(*this) + (resident ? resident->MemoryBytes() : 0);
  }

 private:
  CompiledGrammar() = default;
  std::shared_ptr<const TokenizerInfo> tokenizer_;
  Automaton automaton_;
  MaskStore masks_;
  CompileStats stats_;
  mutable std::once_flag residentOnce_;
  mutable std::unique_ptr<const ResidentMasks> resident_;
  mutable std::atomic<const ResidentMasks*> residentReady_{nullptr};
};

}  // namespace tagmask
