#include "tagmask/compiled_grammar.h"

#include <chrono>

#include "dfa_builder.h"
#include "mask_builder.h"
#include "nfa_builder.h"
#include "rule_merge.h"
#include "tagmask/compile_control.h"
#include "tagmask/error.h"
#include "tagmask/ir.h"
#include "tagmask/thread_pool.h"
#include "token_classes.h"
#include "token_nodes.h"

namespace tagmask {
namespace {

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::shared_ptr<const CompiledGrammar> CompiledGrammar::Compile(const uint8_t* irData, size_t size,
                                                                std::shared_ptr<const TokenizerInfo> tokenizer,
                                                                const CompileOptions& options) {
  TAGMASK_CHECK(tokenizer != nullptr, "a tokenizer is required");
  CompileControl* control = options.control.get();
  const CompileControl::Scope scope(control);
  const auto report = [&](CompilePhase phase) {
    if (control != nullptr) control->Report(phase, 0, 0);
    CompileCheckpoint();
  };
  report(CompilePhase::Read);
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<CompiledGrammar> g(new CompiledGrammar());
  g->tokenizer_ = std::move(tokenizer);
  ir::Grammar grammar = ir::ReadGrammar(irData, size);
  ResolveTokenNodes(&grammar, *g->tokenizer_);
  MergeEqualRules(&grammar);
  g->stats_.readMs = MsSince(t0);

  report(CompilePhase::Automaton);
  const auto t1 = std::chrono::steady_clock::now();
  const CompileLimits limits;
  const TokenClasses tokenClasses = BuildTokenClasses(grammar, *g->tokenizer_);
  // A counted repeat whose loop turns out ambiguous is unrolled instead, a counted or marks node
  // whose operations overlap another path's becomes a rule of its own, and the automaton is built
  // again (docs/engine.md, "Counted repetition").
  UnrollSet unroll;
  OwnRuleSet ownRules;
  for (;;) {
    NfaProgram program = BuildNfa(grammar, limits, unroll, ownRules);
    g->stats_.nfaStates = program.nfa.stateCount;
    try {
      g->automaton_ = BuildAutomaton(program, limits, tokenClasses.count > 0 ? &tokenClasses : nullptr);
      break;
    } catch (const CountConflict& conflict) {
      const size_t before = unroll.size() + ownRules.size();
      for (uint32_t node : conflict.nodes) {
        if (node >= grammar.nodes.size()) continue;
        const ir::Kind kind = grammar.nodes[node].kind;
        if (kind == ir::Kind::Repeat) unroll.insert(node);
        if (kind == ir::Kind::Counted || kind == ir::Kind::Marks) ownRules.insert(node);
      }
      if (unroll.size() + ownRules.size() == before) {
        throw Error(ErrorCode::InvalidGrammar, "a counted node's units or a marks node's marks cannot be told apart from the bytes (one "
                                               "byte could both start a unit or mark and continue another, or end the node); make them "
                                               "start unambiguously");
      }
    }
  }
  g->stats_.automatonMs = MsSince(t1);
  report(CompilePhase::Masks);  // BuildMasks reports its states as it walks them

  const auto t2 = std::chrono::steady_clock::now();
  uint32_t threads = options.threads == 0 ? static_cast<uint32_t>(SharedThreadPoolSize()) : options.threads;
  if (threads == 0) threads = 1;
  MaskBuildStats ms;
  BuildMasks(g->automaton_, *g->tokenizer_, threads, limits.maxMaskWork, &g->masks_, &ms);
  g->stats_.masksMs = MsSince(t2);
  g->stats_.totalMs = MsSince(t0);

  CompileStats& st = g->stats_;
  st.rules = static_cast<uint32_t>(g->automaton_.rules.size());
  st.states = g->automaton_.StateCount();
  st.byteClasses = g->automaton_.classCount;
  st.trieNodesVisited = ms.trieNodesVisited;
  st.maskWork = ms.work;
  st.walkedStates = ms.walkedStates;
  st.chainStates = ms.chainStates;
  st.distinctMasks = ms.distinctMasks;
  st.listMasks = ms.listMasks;
  st.complementMasks = ms.complementMasks;
  st.bitsetMasks = ms.bitsetMasks;
  st.uncertainTokens = ms.uncertainTokens;
  st.statesWithUncertain = ms.statesWithUncertain;
  st.residualTokens = ms.residualTokens;
  st.residueTokens = ms.residueTokens;
  st.threads = threads;
  // Done keeps the mask walk's total, so a waiter that polled too seldom to see the walk can still
  // report the phase as complete.
  if (control != nullptr) control->Report(CompilePhase::Done, control->total(), control->total());
  return g;
}

}  // namespace tagmask
