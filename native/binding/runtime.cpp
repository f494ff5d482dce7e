#include "runtime.h"

#include "errors.h"

#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_runtime_info.h"
#endif

namespace tagmask::binding {

Napi::Value Runtime(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    Napi::Object out = Napi::Object::New(env);
    out.Set("version", TAGMASK_VERSION);
    Napi::Object cuda = Napi::Object::New(env);
#ifdef TAGMASK_WITH_CUDA
    const int devices = tagmask::cuda::DeviceCount();
    cuda.Set("compiled", true);
    cuda.Set("runtimeVersion", tagmask::cuda::RuntimeVersion());
    cuda.Set("deviceCount", devices);
    cuda.Set("status", devices > 0 ? std::string("ok") : tagmask::cuda::DeviceStatus());
#else
    cuda.Set("compiled", false);
    cuda.Set("runtimeVersion", env.Null());
    cuda.Set("deviceCount", 0);
    cuda.Set("status", "built without CUDA (no CUDA compiler was found, or TAGMASK_CPU_ONLY was set)");
#endif
    out.Set("cuda", cuda);
    return out;
  });
}

}  // namespace tagmask::binding
