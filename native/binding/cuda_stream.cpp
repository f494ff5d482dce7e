// CudaStream: a non-blocking CUDA stream owned by tagmask (or the legacy default stream, 0,
// which is what every device call uses when no stream is given).
#include <memory>

#include "addon_data.h"
#include "cuda_binding.h"
#include "errors.h"

#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_device.h"
#endif

namespace tagmask::binding {
namespace {

class CudaStreamWrap : public Napi::ObjectWrap<CudaStreamWrap> {
 public:
  CudaStreamWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CudaStreamWrap>(info) {
    Napi::Env env = info.Env();
    GuardedConstruct(env, [&]() {
      RequireCudaBuild("new CudaStream()");
      const int device = info.Length() > 0 && !info[0].IsUndefined()
                             ? static_cast<int>(ToSize(info[0], "new CudaStream(device)", "device", 1023))
                             : 0;
#ifdef TAGMASK_WITH_CUDA
      cuda::RequireDevice(device);
      stream_ = std::make_unique<cuda::Stream>(device);
#else
      (void)device;
#endif
      TagInstance(info, WrappedClass::kCudaStream);
    });
  }

 private:
  friend void tagmask::binding::InitCudaStream(Napi::Env env, Napi::Object exports);

  Napi::Value Handle(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guarded(env, [&]() -> Napi::Value {
#ifdef TAGMASK_WITH_CUDA
      if (!stream_) ThrowInvalidArgument("CudaStream.handle: the stream was destroyed");
      return Napi::BigInt::New(env, static_cast<uint64_t>(stream_->handle()));
#else
      return Napi::BigInt::New(env, static_cast<uint64_t>(0));
#endif
    });
  }

  Napi::Value Synchronize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guarded(env, [&]() -> Napi::Value {
#ifdef TAGMASK_WITH_CUDA
      if (!stream_) ThrowInvalidArgument("CudaStream.synchronize: the stream was destroyed");
      cuda::SynchronizeStream(stream_->handle(), stream_->device());
#endif
      return env.Undefined();
    });
  }

  Napi::Value Destroy(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guarded(env, [&]() -> Napi::Value {
#ifdef TAGMASK_WITH_CUDA
      stream_.reset();
#endif
      return env.Undefined();
    });
  }

#ifdef TAGMASK_WITH_CUDA
  std::unique_ptr<cuda::Stream> stream_;
#endif
};

}  // namespace

void InitCudaStream(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = CudaStreamWrap::DefineClass(
      env, "CudaStream",
      {CudaStreamWrap::InstanceAccessor<&CudaStreamWrap::Handle>("handle"),
       CudaStreamWrap::InstanceMethod<&CudaStreamWrap::Synchronize>("synchronize"),
       CudaStreamWrap::InstanceMethod<&CudaStreamWrap::Destroy>("destroy")});
  AddonData::Of(env).constructors["CudaStream"] = Napi::Persistent(ctor);
  exports.Set("CudaStream", ctor);
}

}  // namespace tagmask::binding
