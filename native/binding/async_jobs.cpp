#include "async_jobs.h"

#include <condition_variable>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "errors.h"

namespace tagmask::binding {
namespace {

struct EnvState;
void SettleJob(Napi::Env env, Napi::Function, EnvState* state, AsyncJob* job);
using Tsfn = Napi::TypedThreadSafeFunction<EnvState, AsyncJob, SettleJob>;

// Per environment: the thread-safe function that carries finished jobs back, and counts of jobs
// in flight. `running` (jobs queued or running on the pool) is what the environment cleanup
// waits for; `pending` (jobs not yet settled; JS thread only) keeps the event loop alive while
// non-zero.
struct EnvState {
  Tsfn tsfn;
  std::mutex mutex;
  std::condition_variable idle;
  size_t running = 0;
  size_t pending = 0;
};

// The states by environment. Deliberately never freed: process.exit() runs no environment
// cleanup, and static destructors would otherwise free states that pool threads still use.
struct Envs {
  std::mutex mutex;
  std::unordered_map<napi_env, std::unique_ptr<EnvState>> states;
};

Envs& AllEnvs() {
  static Envs* envs = new Envs();
  return *envs;
}

// The environment cleanup hook (it runs before the thread-safe function's own hook, which was
// registered earlier). Nothing may escape it into Node.
void CleanupEnv(void* arg) noexcept {
  try {
    napi_env env = static_cast<napi_env>(arg);
    EnvState* state = nullptr;
    {
      Envs& envs = AllEnvs();
      std::lock_guard<std::mutex> lock(envs.mutex);
      auto it = envs.states.find(env);
      if (it == envs.states.end()) return;
      state = it->second.get();
    }
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      state->idle.wait(lock, [state]() { return state->running == 0; });
    }
    // The state itself stays until the thread-safe function's finalizer (it is its context).
    state->tsfn.Release();
  } catch (...) {
  }
}

EnvState& StateOf(Napi::Env env) {
  Envs& envs = AllEnvs();
  std::lock_guard<std::mutex> lock(envs.mutex);
  auto it = envs.states.find(env);
  if (it != envs.states.end()) return *it->second;
  auto state = std::make_unique<EnvState>();
  EnvState* raw = state.get();
  raw->tsfn = Tsfn::New(env, "tagmask async job", 0, 1, raw, [](Napi::Env finalize_env, void*, EnvState* ctx) {
    Envs& all = AllEnvs();
    std::lock_guard<std::mutex> guard(all.mutex);
    auto found = all.states.find(finalize_env);
    if (found != all.states.end() && found->second.get() == ctx) all.states.erase(found);
  });
  raw->tsfn.Unref(env);  // idle: does not keep the process alive
  if (napi_add_env_cleanup_hook(env, CleanupEnv, env) != napi_ok) {
    raw->tsfn.Release();
    throw Error(ErrorCode::Internal, "could not register the environment cleanup of asynchronous jobs");
  }
  envs.states.emplace(env, std::move(state));
  return *raw;
}

void SettleJob(Napi::Env env, Napi::Function, EnvState* state, AsyncJob* job) {
  std::unique_ptr<AsyncJob> owned(job);
  if (env == nullptr) {
    // The thread-safe function is being finalized with this job still queued; `state` may be
    // gone already.
    owned->Abandon();
    return;
  }
  // Nothing may escape a thread-safe function callback. While a worker thread is being
  // terminated JS cannot run and every N-API call fails: the promise then stays unsettled.
  try {
    owned->Settle(env);
  } catch (...) {
  }
  try {
    if (--state->pending == 0) state->tsfn.Unref(env);
  } catch (...) {
  }
}

}  // namespace

void SubmitAsyncJob(Napi::Env env, ThreadPool& pool, std::unique_ptr<AsyncJob> job) {
  EnvState& state = StateOf(env);
  if (state.pending == 0) state.tsfn.Ref(env);
  ++state.pending;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    ++state.running;
  }
  AsyncJob* raw = job.release();  // owned by the task until SettleJob takes it back
  EnvState* st = &state;
  auto task = [raw, st]() noexcept {
    raw->Run();
    // Queue the settlement first, then report "not running": once running is 0 the
    // environment may be torn down, so nothing here may touch it afterwards.
    if (st->tsfn.BlockingCall(raw) != napi_ok) {
      raw->Abandon();
      delete raw;
    }
    std::lock_guard<std::mutex> lock(st->mutex);
    if (--st->running == 0) st->idle.notify_all();
  };
  try {
    pool.Submit(std::move(task));
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      --state.running;
    }
    if (--state.pending == 0) state.tsfn.Unref(env);
    job.reset(raw);
    throw;
  }
}

}  // namespace tagmask::binding
