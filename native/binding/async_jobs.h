// Asynchronous work on the shared thread pool, settled back on the JS thread of the environment
// that queued it (one thread-safe function per environment).
//
// Lifetimes, which is what makes this safe while a worker thread is terminated or the process
// exits with work in flight:
//   - a job owns (or shares) everything Run() touches; nothing a JS finalizer frees. Node frees
//     external ArrayBuffers before any addon cleanup hook runs, so "the cleanup hook waits" is
//     not enough on its own;
//   - the environment's cleanup hook waits until every job it queued has finished Run() and
//     handed itself to the thread-safe function, so no pool thread touches the environment's
//     thread-safe function after the environment is gone;
//   - a job that can no longer be settled (its environment is closing) is Abandon()ed: its JS
//     references are dropped without touching JS;
//   - nothing thrown by Settle() escapes into Node (the promise then stays pending: the
//     environment is going away).
#pragma once

#include <napi.h>

#include <memory>

#include "tagmask/thread_pool.h"

namespace tagmask::binding {

class AsyncJob {
 public:
  virtual ~AsyncJob() = default;
  /// On a pool thread. Touches only memory the job owns or shares, never JS.
  virtual void Run() noexcept = 0;
  /// On the environment's JS thread, once Run() has returned: resolves or rejects the promise.
  virtual void Settle(Napi::Env env) = 0;
  /// The environment is gone: forget the JS references without touching JS (any thread).
  virtual void Abandon() noexcept = 0;
};

/// Queues `job` on `pool`; Settle() later runs on this environment's JS thread. While jobs are
/// pending the event loop stays alive.
void SubmitAsyncJob(Napi::Env env, ThreadPool& pool, std::unique_ptr<AsyncJob> job);

}  // namespace tagmask::binding
