// DeviceBitmask: bitmask rows in device memory, uploaded from an Int32Array (synchronously) or
// from a PinnedBitmask (asynchronously, on a stream).
#include "addon_data.h"
#include "cuda_binding.h"
#include "cuda_classes.h"
#include "errors.h"
#include "js_args.h"

namespace tagmask::binding {

DeviceBitmaskWrap::DeviceBitmaskWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceBitmaskWrap>(info) {
  Napi::Env env = info.Env();
  GuardedConstruct(env, [&]() {
    constexpr const char* what = "new DeviceBitmask(rows, vocabSize, options)";
    RequireCudaBuild(what);
    rows_ = ToSize(info[0], what, "rows", 1u << 24);
    vocab_ = ToSize(info[1], what, "vocabSize", 0x7FFFFFFFu);
    if (rows_ == 0 || vocab_ == 0) ThrowInvalidArgument(std::string(what) + ": rows and vocabSize must be positive");
    device_ = DeviceOption(info[2], what);
    stream_ = StreamOption(info[2], what, 0);
#ifdef TAGMASK_WITH_CUDA
    cuda::RequireDevice(device_);
    memory_ = cuda::DeviceMemory(rows_ * ((vocab_ + 31) / 32) * sizeof(int32_t), device_);
#endif
    TagInstance(info, WrappedClass::kDeviceBitmask);
  });
}

const int32_t* DeviceBitmaskWrap::Data(const char* what) const {
#ifdef TAGMASK_WITH_CUDA
  if (memory_.data() != nullptr) return static_cast<const int32_t*>(memory_.data());
#endif
  ThrowInvalidArgument(std::string(what) + ": the DeviceBitmask was freed");
}

Napi::Value DeviceBitmaskWrap::Upload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceBitmask.upload(source, options)";
    // Phase 1 (js_args.h): the options and the source's kind. options.rows: only the first rows
    // of the source (e.g. the compact rows of fillMaskRefs).
    const Napi::Value rows_option = info[1].IsObject() ? info[1].As<Napi::Object>().Get("rows") : Napi::Value();
    const bool some_rows = !rows_option.IsEmpty() && !rows_option.IsUndefined();
    const uint64_t first_rows = some_rows ? ToSize(rows_option, what, "options.rows", rows_) : 0;
    // Last: nothing read after it can destroy the stream it names.
    const uintptr_t stream = StreamOption(info[1], what, stream_);
    PinnedBitmaskWrap* pinned_source = nullptr;
    std::optional<TypedArrayArg> array;
    pinned_source = UnwrapTagged<PinnedBitmaskWrap>(info[0], WrappedClass::kPinnedBitmask);
    if (pinned_source == nullptr) {
      array = TypedArrayArg::Of(info[0], {napi_int32_array, napi_uint32_array});
      if (!array) {
        ThrowInvalidArgument(std::string(what) + ": source must be an Int32Array or a PinnedBitmask, got " +
                             DescribeValue(info[0]));
      }
    }
    // Phase 2: no JS runs from here on.
    int32_t* dst = const_cast<int32_t*>(Data(what));
    const uint64_t words = (vocab_ + 31) / 32;
    const uint64_t capacity = rows_ * words;
    const int32_t* src = nullptr;
    uint64_t length = 0;
    const bool pinned = pinned_source != nullptr;
    if (pinned) {
      if (pinned_source->vocab() != vocab_) {
        ThrowInvalidArgument(std::string(what) + ": the PinnedBitmask covers " + std::to_string(pinned_source->vocab()) +
                             " tokens, this DeviceBitmask " + std::to_string(vocab_));
      }
      src = pinned_source->Data(what);
      length = pinned_source->words();
    } else {
      const TypedSpan<const int32_t> span = array->Pin<const int32_t>(what, "source");
      src = span.data;
      length = span.length;
    }
    if (length % words != 0 || length > capacity) {
      ThrowInvalidArgument(std::string(what) + ": source has " + std::to_string(length) +
                           " words; expected a whole number of rows of ceil(" + std::to_string(vocab_) + "/32) = " +
                           std::to_string(words) + " words, at most " + std::to_string(rows_) + " rows (" +
                           std::to_string(capacity) + " words)");
    }
    if (some_rows) {
      if (first_rows * words > length) {
        ThrowInvalidArgument(std::string(what) + ": options.rows is " + std::to_string(first_rows) + " but the source holds " +
                             std::to_string(length / words) + " rows");
      }
      length = first_rows * words;
    }
#ifdef TAGMASK_WITH_CUDA
    // From pinned memory the copy is queued and returns at once (do not refill the pinned rows
    // until the stream has passed it); from an ordinary Int32Array CUDA stages the bytes before
    // returning, so the array may be reused immediately.
    cuda::CopyHostToDevice(dst, src, length * sizeof(int32_t), stream, device_);
#else
    (void)dst;
    (void)src;
    (void)stream;
#endif
    return Napi::Boolean::New(env, pinned);
  });
}

Napi::Value DeviceBitmaskWrap::Download(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceBitmask.download()";
    const int32_t* src = Data(what);
    const uint64_t words = rows_ * ((vocab_ + 31) / 32);
    Napi::Int32Array out = Napi::Int32Array::New(env, words);
#ifdef TAGMASK_WITH_CUDA
    cuda::CopyDeviceToHost(out.Data(), src, words * sizeof(int32_t), stream_, device_);
    cuda::SynchronizeStream(stream_, device_);
#else
    (void)src;
#endif
    return out;
  });
}

Napi::Value DeviceBitmaskWrap::Free(const Napi::CallbackInfo& info) {
#ifdef TAGMASK_WITH_CUDA
  memory_.Reset();
#endif
  return info.Env().Undefined();
}

Napi::Value DeviceBitmaskWrap::Pointer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(Data("DeviceBitmask.pointer"))));
  });
}

Napi::Value DeviceBitmaskWrap::Rows(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(rows_));
}

Napi::Value DeviceBitmaskWrap::VocabSize(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(vocab_));
}

void InitDeviceBitmask(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DeviceBitmaskWrap::DefineClass(
      env, "DeviceBitmask",
      {DeviceBitmaskWrap::InstanceMethod<&DeviceBitmaskWrap::Upload>("upload"),
       DeviceBitmaskWrap::InstanceMethod<&DeviceBitmaskWrap::Download>("download"),
       DeviceBitmaskWrap::InstanceMethod<&DeviceBitmaskWrap::Free>("free"),
       DeviceBitmaskWrap::InstanceAccessor<&DeviceBitmaskWrap::Pointer>("pointer"),
       DeviceBitmaskWrap::InstanceAccessor<&DeviceBitmaskWrap::Rows>("rows"),
       DeviceBitmaskWrap::InstanceAccessor<&DeviceBitmaskWrap::VocabSize>("vocabSize")});
  AddonData::Of(env).constructors["DeviceBitmask"] = Napi::Persistent(ctor);
  exports.Set("DeviceBitmask", ctor);
}

}  // namespace tagmask::binding
