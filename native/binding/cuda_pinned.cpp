// PinnedBitmask: a bitmask in page-locked host memory, seen from JS as an Int32Array that the
// matchers fill directly; DeviceBitmask.upload copies it to the device asynchronously.
#include <memory>

#include "addon_data.h"
#include "cuda_binding.h"
#include "cuda_classes.h"
#include "errors.h"

#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_device.h"
#endif

namespace tagmask::binding {

PinnedBitmaskWrap::PinnedBitmaskWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PinnedBitmaskWrap>(info) {
  Napi::Env env = info.Env();
  GuardedConstruct(env, [&]() {
    constexpr const char* what = "new PinnedBitmask(rows, vocabSize)";
    RequireCudaBuild(what);
    rows_ = ToSize(info[0], what, "rows", 1u << 24);
    vocab_ = ToSize(info[1], what, "vocabSize", 0x7FFFFFFFu);
    if (rows_ == 0 || vocab_ == 0) ThrowInvalidArgument(std::string(what) + ": rows and vocabSize must be positive");
#ifdef TAGMASK_WITH_CUDA
    cuda::RequireDevice(0);  // page-locking goes through the driver: say clearly when there is none
    const size_t words = rows_ * ((vocab_ + 31) / 32);
    // The memory belongs to the ArrayBuffer: its deleter frees it once JS and free() both let go.
    auto memory = std::make_unique<cuda::PinnedMemory>(words * sizeof(int32_t));
    void* data = memory->data();
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(
        env, data, words * sizeof(int32_t),
        [](Napi::Env, void*, cuda::PinnedMemory* owned) { std::unique_ptr<cuda::PinnedMemory> drop(owned); },
        memory.get());
    memory.release();
    array_ = Napi::Persistent(Napi::Int32Array::New(env, words, buffer, 0));
    data_ = static_cast<int32_t*>(data);
    words_ = words;
#endif
    TagInstance(info, WrappedClass::kPinnedBitmask);
  });
}

Napi::Value PinnedBitmaskWrap::Array(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (array_.IsEmpty()) return env.Undefined();
  return array_.Value();
}

Napi::Value PinnedBitmaskWrap::Rows(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(rows_));
}

Napi::Value PinnedBitmaskWrap::VocabSize(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(vocab_));
}

Napi::Value PinnedBitmaskWrap::Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (!array_.IsEmpty()) {
      // Detaching empties every view of the buffer; the deleter then frees the pinned memory.
      Napi::ArrayBuffer buffer = array_.Value().ArrayBuffer();
      if (!buffer.IsDetached()) buffer.Detach();
      array_.Reset();
    }
    data_ = nullptr;
    words_ = 0;
    return env.Undefined();
  });
}

const int32_t* PinnedBitmaskWrap::Data(const char* what) const {
  if (data_ == nullptr || array_.IsEmpty() || array_.Value().ArrayBuffer().IsDetached()) {
    ThrowInvalidArgument(std::string(what) + ": the PinnedBitmask was freed");
  }
  return data_;
}

void InitPinnedBitmask(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = PinnedBitmaskWrap::DefineClass(
      env, "PinnedBitmask",
      {PinnedBitmaskWrap::InstanceAccessor<&PinnedBitmaskWrap::Array>("array"),
       PinnedBitmaskWrap::InstanceAccessor<&PinnedBitmaskWrap::Rows>("rows"),
       PinnedBitmaskWrap::InstanceAccessor<&PinnedBitmaskWrap::VocabSize>("vocabSize"),
       PinnedBitmaskWrap::InstanceMethod<&PinnedBitmaskWrap::Free>("free")});
  AddonData::Of(env).constructors["PinnedBitmask"] = Napi::Persistent(ctor);
  exports.Set("PinnedBitmask", ctor);
}

}  // namespace tagmask::binding
