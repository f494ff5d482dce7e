#include "tagmask/compiled_grammar.h"

#include <chrono>

#include "dfa_builder.h"
#include "mask_builder.h"
#include "nfa_builder.h"
#include "rule_merge.h"
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
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<CompiledGrammar> g(new CompiledGrammar());
  g->tokenizer_ = std::move(tokenizer);
  ir::Grammar grammar = ir::ReadGrammar(irData, size);
  ResolveTokenNodes(&grammar, *g->tokenizer_);
  MergeEqualRules(&grammar);
  g->stats_.readMs = MsSince(t0);

  const auto t1 = std::chrono::steady_clock::now();
  const CompileLimits limits;
  NfaProgram program = BuildNfa(grammar, limits);
  g->stats_.nfaStates = program.nfa.stateCount;
  const TokenClasses tokenClasses = BuildTokenClasses(grammar, *g->tokenizer_);
  g->automaton_ = BuildAutomaton(program, limits, tokenClasses.count > 0 ? &tokenClasses : nullptr);
  g->stats_.automatonMs = MsSince(t1);

  const auto t2 = std::chrono::steady_clock::now();
  uint32_t threads = options.threads == 0 ? static_cast<uint32_t>(SharedThreadPoolSize()) : options.threads;
  if (threads == 0) threads = 1;
  MaskBuildStats ms;
  BuildMasks(g->automaton_, *g->tokenizer_, threads, &g->masks_, &ms);
  g->stats_.masksMs = MsSince(t2);
  g->stats_.totalMs = MsSince(t0);

  CompileStats& st = g->stats_;
  st.rules = static_cast<uint32_t>(g->automaton_.rules.size());
  st.states = g->automaton_.StateCount();
  st.byteClasses = g->automaton_.classCount;
  st.trieNodesVisited = ms.trieNodesVisited;
  st.walkedStates = ms.walkedStates;
  st.distinctMasks = ms.distinctMasks;
  st.listMasks = ms.listMasks;
  st.complementMasks = ms.complementMasks;
  st.bitsetMasks = ms.bitsetMasks;
  st.uncertainTokens = ms.uncertainTokens;
  st.statesWithUncertain = ms.statesWithUncertain;
  st.residualTokens = ms.residualTokens;
  st.threads = threads;
  return g;
}

}  // namespace tagmask
