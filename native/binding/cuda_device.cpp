#include <string>

#include "cuda_binding.h"
#include "js_args.h"
#include "js_integer.h"
#include "errors.h"

#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_device.h"
#include "tagmask/cuda_runtime_info.h"
#endif

namespace tagmask::binding {

void RequireCudaBuild(const char* what) {
#ifdef TAGMASK_WITH_CUDA
  (void)what;
#else
  throw Error(ErrorCode::Device, std::string(what) +
                                     ": this build of tagmask has no CUDA kernels (no CUDA compiler was found when it "
                                     "was built, or TAGMASK_CPU_ONLY was set); install the CUDA toolkit so that nvcc "
                                     "is on PATH and run `npm rebuild tagmask`");
#endif
}

uint64_t ToSize(const Napi::Value& v, const std::string& what, const std::string& name, uint64_t max) {
  if (const std::optional<uint64_t> size = IntegerIn<uint64_t>(v, 0, static_cast<double>(max))) return *size;
  ThrowInvalidArgument(what + ": " + name + " must be an integer from 0 to " + std::to_string(max) + ", got " +
                       DescribeValue(v));
}

uintptr_t ToHandle(const Napi::Value& v, const std::string& what, const std::string& name) {
  if (v.IsBigInt()) {
    bool lossless = false;
    const uint64_t value = v.As<Napi::BigInt>().Uint64Value(&lossless);
    if (lossless) return static_cast<uintptr_t>(value);
  } else if (const std::optional<uintptr_t> handle = IntegerIn<uintptr_t>(v, 0, kMaxSafeInteger)) {
    return *handle;
  }
  ThrowInvalidArgument(what + ": " + name + " must be a non-negative bigint (a CUDA pointer or stream handle), got " +
                       DescribeValue(v));
}

int DeviceOption(const Napi::Value& options, const std::string& what) {
  if (!options.IsObject()) return 0;
  Napi::Value v = options.As<Napi::Object>().Get("device");
  if (v.IsUndefined()) return 0;
  return static_cast<int>(ToSize(v, what, "options.device", 1023));
}

uintptr_t StreamOption(const Napi::Value& options, const std::string& what, uintptr_t fallback) {
  if (!options.IsObject()) return fallback;
  Napi::Value v = options.As<Napi::Object>().Get("stream");
  if (v.IsUndefined() || v.IsNull()) return fallback;
  if (v.IsObject() && !v.IsBigInt()) v = v.As<Napi::Object>().Get("handle");  // a CudaStream
  return ToHandle(v, what, "options.stream");
}

Napi::Value CudaAvailable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
#ifdef TAGMASK_WITH_CUDA
  return Napi::Boolean::New(env, tagmask::cuda::DeviceCount() > 0);
#else
  return Napi::Boolean::New(env, false);
#endif
}

Napi::Value CudaDeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    RequireCudaBuild("cudaDeviceInfo");
    const int device = info.Length() > 0 && !info[0].IsUndefined()
                           ? static_cast<int>(ToSize(info[0], "cudaDeviceInfo", "device", 1023))
                           : 0;
    Napi::Object out = Napi::Object::New(env);
#ifdef TAGMASK_WITH_CUDA
    const cuda::DeviceProperties p = cuda::GetDeviceProperties(device);
    out.Set("device", device);
    out.Set("name", p.name);
    out.Set("computeCapability", std::to_string(p.major) + "." + std::to_string(p.minor));
    out.Set("multiprocessors", p.multiprocessors);
    out.Set("totalMemory", static_cast<double>(p.total_memory));
    out.Set("memoryBandwidth", p.memory_bandwidth);
#else
    (void)device;
#endif
    return out;
  });
}

}  // namespace tagmask::binding
