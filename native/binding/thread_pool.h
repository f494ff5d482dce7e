// JS access to the shared native thread pool: its size, and its shutdown when the last Node
// environment that loaded the addon goes away.
#pragma once

#include <napi.h>

namespace tagmask::binding {

/// setThreadPoolSize(threads): 0 = default (TAGMASK_THREADS or the CPUs this process may use).
Napi::Value SetThreadPoolSize(const Napi::CallbackInfo& info);

/// threadPoolSize(): the number of worker threads of the shared pool.
Napi::Value ThreadPoolSize(const Napi::CallbackInfo& info);

/// Counts `env` as a user of the shared pool; when the last such environment is cleaned up the
/// pool runs its queued work and joins its threads (a later load creates a new one).
void RegisterThreadPoolUser(Napi::Env env);

}  // namespace tagmask::binding
