#include "thread_pool.h"

#include <mutex>
#include <string>

#include "errors.h"
#include "tagmask/thread_pool.h"

namespace tagmask::binding {
namespace {

// Environments (main thread, worker_threads) that loaded the addon and are not cleaned up yet.
std::mutex g_users_mutex;
size_t g_users = 0;

// An environment cleanup hook: nothing may escape it into Node.
void ReleaseUser(void* /*unused*/) noexcept {
  try {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(g_users_mutex);
      last = --g_users == 0;
    }
    if (last) ShutdownSharedThreadPool();
  } catch (...) {
  }
}

constexpr double kMaxThreads = 1024;

}  // namespace

Napi::Value SetThreadPoolSize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() != 1 || !info[0].IsNumber()) {
      ThrowInvalidArgument("setThreadPoolSize(threads): threads must be an integer from 0 (default) to 1024");
    }
    const double threads = info[0].As<Napi::Number>().DoubleValue();
    if (!(threads >= 0 && threads <= kMaxThreads) || threads != static_cast<double>(static_cast<size_t>(threads))) {
      ThrowInvalidArgument("setThreadPoolSize(threads): threads must be an integer from 0 (default) to 1024, got " +
                           info[0].ToString().Utf8Value());
    }
    SetSharedThreadPoolSize(static_cast<size_t>(threads));
    return Napi::Number::New(env, static_cast<double>(SharedThreadPoolSize()));
  });
}

Napi::Value ThreadPoolSize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    return Napi::Number::New(env, static_cast<double>(SharedThreadPoolSize()));
  });
}

void RegisterThreadPoolUser(Napi::Env env) {
  {
    std::lock_guard<std::mutex> lock(g_users_mutex);
    ++g_users;
  }
  napi_status status = napi_add_env_cleanup_hook(env, ReleaseUser, nullptr);
  if (status != napi_ok) {
    std::lock_guard<std::mutex> lock(g_users_mutex);
    --g_users;
  }
}

}  // namespace tagmask::binding
