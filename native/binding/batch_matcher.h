// BatchMatcher: many GrammarMatchers stepped together on the shared thread pool.
#pragma once

#include <napi.h>

namespace tagmask::binding {

/// Registers the BatchMatcher class: new BatchMatcher(matcherHandles, { parallel }), with
/// fill / fillAsync / accept / acceptAsync / rollback / rollbackAsync.
void InitBatchMatcher(Napi::Env env, Napi::Object exports);

}  // namespace tagmask::binding
