// DeviceLogits: a batch of logits in device memory (allocated here, or an external pointer
// wrapped with its shape, dtype and stream), with the masking kernels as methods. Kernel
// launches are queued on the stream; argmax and sample wait for their few bytes of result.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "addon_data.h"
#include "cuda_binding.h"
#include "cuda_classes.h"
#include "errors.h"
#include "mask_cpu.h"
#include "tagmask/apply_mask.h"

namespace tagmask::binding {
namespace {

constexpr uint64_t kMaxDim = 0x7FFFFFFFu;

[[maybe_unused]] uint64_t Align8(uint64_t x) { return (x + 7) & ~uint64_t{7}; }

class DeviceLogitsWrap : public Napi::ObjectWrap<DeviceLogitsWrap> {
 public:
  explicit DeviceLogitsWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceLogitsWrap>(info) {
    Napi::Env env = info.Env();
    GuardedConstruct(env, [&]() {
      Construct(info);
      TagInstance(info, WrappedClass::kDeviceLogits);
    });
  }

  Napi::Value Upload(const Napi::CallbackInfo& info);
  Napi::Value Download(const Napi::CallbackInfo& info);
  Napi::Value ApplyBitmask(const Napi::CallbackInfo& info);
  Napi::Value Argmax(const Napi::CallbackInfo& info);
  Napi::Value Sample(const Napi::CallbackInfo& info);
  Napi::Value Benchmark(const Napi::CallbackInfo& info);
  Napi::Value Synchronize(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value Pointer(const Napi::CallbackInfo& info);
  Napi::Value Shape(const Napi::CallbackInfo& info);

 private:
  void Construct(const Napi::CallbackInfo& info);
  void* Logits(const char* what) const;
  uint64_t SpanElements() const noexcept { return (rows_ - 1) * stride_ + columns_; }
  uint64_t ElementBytes() const noexcept { return maskmath::ElementBytes(dtype_); }
  // A kernel call's options, read in phase 1 (js_args.h): the row selection, the mask refs and
  // the stream.
  struct LaunchArgs {
    RowSelectionArgs selection;
    MaskRefsArgs refs;                     // options.refs and options.maskStore
    DeviceMaskStoreWrap* store = nullptr;  // options.maskStore, unwrapped (kept alive by refs.store)
    uintptr_t stream = 0;
  };
  LaunchArgs ReadLaunch(const Napi::Value& options, const char* what) const;
#ifdef TAGMASK_WITH_CUDA
  // One call's kernel launch: the rows it covers and the stream it is queued on.
  struct Launch {
    cuda::DeviceBatch batch;
    uintptr_t stream = 0;
  };
  // Phase 2: validates the read options against this batch and `bitmask` (nullptr: no mask, for
  // argmax only), uploads the indices, and describes the launch. Runs no JS.
  Launch Prepare(LaunchArgs& args, DeviceBitmaskWrap* bitmask, const char* what);
  int32_t* IndicesArea() const { return static_cast<int32_t*>(workspace_.data()); }
  int32_t* TokensArea() const { return static_cast<int32_t*>(workspace_.data()) + rows_; }
  uint64_t* PackedArea() const {
    return reinterpret_cast<uint64_t*>(static_cast<char*>(workspace_.data()) + Align8(2 * rows_ * sizeof(int32_t)));
  }
  SampleParams* ParamsArea() const {
    return reinterpret_cast<SampleParams*>(reinterpret_cast<char*>(PackedArea()) + rows_ * sizeof(uint64_t));
  }
  int32_t* RefsArea() const { return reinterpret_cast<int32_t*>(ParamsArea() + rows_); }

  cuda::DeviceMemory memory_;     // empty when wrapping an external pointer
  cuda::DeviceMemory workspace_;  // indices, tokens, packed argmax, sampling parameters, refs (per row)
  cuda::PinnedMemory staging_;    // results on their way to the host (rows × 8 bytes)
#endif
  void* pointer_ = nullptr;
  bool owned_ = false;
  uint64_t rows_ = 0;
  uint64_t columns_ = 0;
  uint64_t stride_ = 0;
  uint64_t vocab_ = 0;
  DType dtype_ = DType::kFloat32;
  int device_ = 0;
  uintptr_t stream_ = 0;
};

DType DTypeOption(const Napi::Value& v, const char* what) {
  if (v.IsUndefined()) return DType::kFloat32;
  const std::optional<DType> dtype = DTypeNamed(v);
  if (!dtype) ThrowInvalidArgument(std::string(what) + ": options.dtype must be \"float32\", \"float16\" or \"bfloat16\"");
  return *dtype;
}

void DeviceLogitsWrap::Construct(const Napi::CallbackInfo& info) {
  constexpr const char* what = "new DeviceLogits(options)";
  RequireCudaBuild(what);
  if (!info[0].IsObject()) ThrowInvalidArgument(std::string(what) + ": options must be an object with rows and vocabSize");
  Napi::Object o = info[0].As<Napi::Object>();
  rows_ = ToSize(o.Get("rows"), what, "options.rows", kMaxDim);
  vocab_ = ToSize(o.Get("vocabSize"), what, "options.vocabSize", kMaxDim);
  if (rows_ == 0 || vocab_ == 0) ThrowInvalidArgument(std::string(what) + ": options.rows and options.vocabSize must be positive");
  const Napi::Value columns = o.Get("columns");
  const Napi::Value stride = o.Get("stride");
  columns_ = columns.IsUndefined() ? (stride.IsUndefined() ? vocab_ : ToSize(stride, what, "options.stride", kMaxDim))
                                   : ToSize(columns, what, "options.columns", kMaxDim);
  stride_ = stride.IsUndefined() ? columns_ : ToSize(stride, what, "options.stride", uint64_t{1} << 40);
  if (columns_ < vocab_) {
    ThrowInvalidArgument(std::string(what) + ": columns (" + std::to_string(columns_) + ") must be at least vocabSize (" +
                         std::to_string(vocab_) + ")");
  }
  if (stride_ < columns_) {
    ThrowInvalidArgument(std::string(what) + ": stride (" + std::to_string(stride_) + ") must be at least columns (" +
                         std::to_string(columns_) + ")");
  }
  dtype_ = DTypeOption(o.Get("dtype"), what);
  device_ = DeviceOption(o, what);
  stream_ = StreamOption(o, what, 0);
  const Napi::Value pointer = o.Get("pointer");
#ifdef TAGMASK_WITH_CUDA
  cuda::RequireDevice(device_);
  if (pointer.IsUndefined() || pointer.IsNull()) {
    memory_ = cuda::DeviceMemory(rows_ * stride_ * ElementBytes(), device_);
    pointer_ = memory_.data();
    owned_ = true;
  } else {
    pointer_ = reinterpret_cast<void*>(ToHandle(pointer, what, "options.pointer"));
    cuda::CheckDevicePointer(pointer_, device_, what);
    owned_ = false;
  }
  workspace_ = cuda::DeviceMemory(Align8(2 * rows_ * sizeof(int32_t)) + rows_ * sizeof(uint64_t) +
                                      rows_ * sizeof(SampleParams) + rows_ * sizeof(int32_t),
                                  device_);
  staging_ = cuda::PinnedMemory(rows_ * sizeof(uint64_t));
#else
  (void)pointer;
#endif
}

void* DeviceLogitsWrap::Logits(const char* what) const {
  if (pointer_ == nullptr) ThrowInvalidArgument(std::string(what) + ": the DeviceLogits was freed");
  return pointer_;
}

DeviceBitmaskWrap* UnwrapBitmask(const Napi::Value& v, const char* what, bool optional) {
  if (optional && (v.IsUndefined() || v.IsNull())) return nullptr;
  DeviceBitmaskWrap* wrap = UnwrapTagged<DeviceBitmaskWrap>(v, WrappedClass::kDeviceBitmask);
  if (wrap == nullptr) {
    ThrowInvalidArgument(std::string(what) + ": bitmask must be a DeviceBitmask" + (optional ? " or null" : "") +
                         ", got " + DescribeValue(v));
  }
  return wrap;
}

DeviceLogitsWrap::LaunchArgs DeviceLogitsWrap::ReadLaunch(const Napi::Value& options, const char* what) const {
  LaunchArgs args;
  args.selection = ReadRowSelection(options, what);
  args.refs = ReadMaskRefs(options, what, false);
  if (args.refs.present) {
    args.store = UnwrapTagged<DeviceMaskStoreWrap>(args.refs.store, WrappedClass::kDeviceMaskStore);
    if (args.store == nullptr) {
      ThrowInvalidArgument(std::string(what) + ": options.maskStore must be a DeviceMaskStore (from " +
                           "CompiledGrammar.uploadMasks), got " + DescribeValue(args.refs.store));
    }
  }
  // Last: nothing read after it can destroy the stream it names.
  args.stream = StreamOption(options, what, stream_);
  return args;
}

#ifdef TAGMASK_WITH_CUDA
DeviceLogitsWrap::Launch DeviceLogitsWrap::Prepare(LaunchArgs& args, DeviceBitmaskWrap* bitmask, const char* what) {
  const uintptr_t stream = args.stream;
  void* logits = Logits(what);
  if (bitmask != nullptr) {
    if (bitmask->vocab() != vocab_) {
      ThrowInvalidArgument(std::string(what) + ": the bitmask covers " + std::to_string(bitmask->vocab()) +
                           " tokens but these logits have vocabSize " + std::to_string(vocab_));
    }
    if (bitmask->device() != device_) {
      ThrowInvalidArgument(std::string(what) + ": the bitmask is on CUDA device " + std::to_string(bitmask->device()) +
                           ", the logits on device " + std::to_string(device_));
    }
  }
  DeviceMaskStoreWrap* store = args.store;
  if (store != nullptr) {
    if (bitmask == nullptr) {
      ThrowInvalidArgument(std::string(what) + ": with options.refs the bitmask holds the compact rows and is required");
    }
    if (store->vocab() != vocab_) {
      ThrowInvalidArgument(std::string(what) + ": the mask store covers " + std::to_string(store->vocab()) +
                           " tokens but these logits have vocabSize " + std::to_string(vocab_));
    }
    if (store->device() != device_) {
      ThrowInvalidArgument(std::string(what) + ": the mask store is on CUDA device " + std::to_string(store->device()) +
                           ", the logits on device " + std::to_string(device_));
    }
  }
  // Both may go when this returns: the indices and refs are copied to the device below, from
  // pageable memory, which CUDA stages before the copy call returns.
  MaskedLogits m;
  m.dtype = dtype_;
  m.logits = logits;
  m.logits_length = SpanElements();
  m.rows = rows_;
  m.columns = columns_;
  m.stride = stride_;
  m.vocab = vocab_;
  // Validate() only reads the host index array; the buffers are device memory, described by
  // their sizes. Without a bitmask (argmax over every token) there is no size to check.
  m.bitmask = bitmask != nullptr ? bitmask->Data(what) : reinterpret_cast<const int32_t*>(logits);
  m.bitmask_length = bitmask != nullptr ? bitmask->rows() * ((vocab_ + 31) / 32) : ~size_t{0};
  PinRowSelection(args.selection, what, m);
  if (store != nullptr) {
    const TypedSpan<const int32_t> refs = PinMaskRefs(args.refs, what);
    m.has_refs = true;
    m.refs = refs.data;
    m.num_refs = refs.length;
    m.store = store->Data(what);
    m.store_length = store->count() * ((vocab_ + 31) / 32);
  }
  m.Validate(what);
  cuda::DeviceBatch b;
  b.dtype = dtype_;
  b.logits = logits;
  b.columns = static_cast<uint32_t>(columns_);
  b.vocab = static_cast<uint32_t>(vocab_);
  b.stride = stride_;
  b.bitmask = bitmask != nullptr ? bitmask->Data(what) : nullptr;
  b.work_rows = static_cast<uint32_t>(m.WorkRows());
  b.compact_bitmask = m.compact_bitmask;
  if (m.has_indices) {
    if (m.num_indices > rows_) {
      ThrowInvalidArgument(std::string(what) + ": " + std::to_string(m.num_indices) + " indices for " +
                           std::to_string(rows_) + " rows; each work row needs its own output slot");
    }
    // From pageable memory the copy is staged before this returns, so the caller's array may
    // change right after; the kernel queued next on the stream sees these values.
    cuda::CopyHostToDevice(IndicesArea(), m.indices, m.num_indices * sizeof(int32_t), stream, device_);
    b.indices = IndicesArea();
  }
  if (m.has_refs) {
    // One ref per bitmask row the work rows use: at most one per logits row.
    if (m.mask_rows > rows_) {
      ThrowInvalidArgument(std::string(what) + ": " + std::to_string(m.mask_rows) + " refs for " + std::to_string(rows_) +
                           " logits rows");
    }
    cuda::CopyHostToDevice(RefsArea(), m.refs, m.mask_rows * sizeof(int32_t), stream, device_);
    b.refs = RefsArea();
    b.store = m.store;
  }
  return {b, stream};
}
#endif

Napi::Value DeviceLogitsWrap::Upload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.upload(host)";
    const bool want_f32 = dtype_ == DType::kFloat32;
    const std::optional<TypedArrayArg> host = TypedArrayArg::Of(info[0], {want_f32 ? napi_float32_array : napi_uint16_array});
    if (!host) {
      ThrowInvalidArgument(std::string(what) + ": host must be a " + (want_f32 ? "Float32Array" : "Uint16Array") +
                           " for " + DTypeName(dtype_) + " logits, got " + DescribeValue(info[0]));
    }
    const uintptr_t stream = StreamOption(info[1], what, stream_);
    // Phase 2: no JS runs from here on.
    void* dst = Logits(what);
    const TypedArrayArg::UntypedSpan values = host->PinUntyped(what, "host");
    const uint64_t n = values.length;
    if (n != SpanElements() && n != rows_ * stride_) {
      ThrowInvalidArgument(std::string(what) + ": host has " + std::to_string(n) + " values; expected rows*stride = " +
                           std::to_string(rows_ * stride_) + " (or (rows-1)*stride+columns = " +
                           std::to_string(SpanElements()) + ")");
    }
    const uint64_t copy = std::min<uint64_t>(n, owned_ ? rows_ * stride_ : SpanElements());
#ifdef TAGMASK_WITH_CUDA
    cuda::CopyHostToDevice(dst, values.data, copy * ElementBytes(), stream, device_);
#else
    (void)dst;
    (void)copy;
    (void)stream;
#endif
    return env.Undefined();
  });
}

Napi::Value DeviceLogitsWrap::Download(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.download()";
    const uintptr_t stream = StreamOption(info[0], what, stream_);
    const void* src = Logits(what);
    const uint64_t n = SpanElements();
    Napi::TypedArray out = dtype_ == DType::kFloat32 ? Napi::TypedArray(Napi::Float32Array::New(env, n))
                                                      : Napi::TypedArray(Napi::Uint16Array::New(env, n));
#ifdef TAGMASK_WITH_CUDA
    // A new array of this call: nothing else can see it yet.
    void* host = TypedArrayArg::Of(out, {out.TypedArrayType()})->PinUntyped(what, "the result").data;
    cuda::CopyDeviceToHost(host, src, n * ElementBytes(), stream, device_);
    cuda::SynchronizeStream(stream, device_);
#else
    (void)src;
    (void)stream;
#endif
    return out;
  });
}

Napi::Value DeviceLogitsWrap::ApplyBitmask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.applyBitmask(bitmask, options)";
    DeviceBitmaskWrap* bitmask = UnwrapBitmask(info[0], what, false);
    LaunchArgs args = ReadLaunch(info[1], what);
#ifdef TAGMASK_WITH_CUDA
    const auto [b, stream] = Prepare(args, bitmask, what);
    cuda::LaunchApplyBitmask(b, stream, device_);
#else
    (void)bitmask;
    (void)args;
#endif
    return env.Undefined();
  });
}

Napi::Value DeviceLogitsWrap::Argmax(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.argmax(bitmask, options)";
    DeviceBitmaskWrap* bitmask = UnwrapBitmask(info[0], what, true);
    LaunchArgs args = ReadLaunch(info[1], what);
#ifdef TAGMASK_WITH_CUDA
    const auto [b, stream] = Prepare(args, bitmask, what);
    cuda::LaunchArgmax(b, PackedArea(), stream, device_);
    cuda::CopyDeviceToHost(staging_.data(), PackedArea(), b.work_rows * sizeof(uint64_t), stream, device_);
    cuda::SynchronizeStream(stream, device_);
    Napi::Int32Array out = Napi::Int32Array::New(env, b.work_rows);
    const uint64_t* packed = static_cast<const uint64_t*>(staging_.data());
    for (uint32_t k = 0; k < b.work_rows; ++k) out[k] = cuda::DecodeArgmax(packed[k]);
    return out;
#else
    (void)bitmask;
    (void)args;
    return env.Undefined();
#endif
  });
}

Napi::Value DeviceLogitsWrap::Sample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.sample(bitmask, options)";
    DeviceBitmaskWrap* bitmask = UnwrapBitmask(info[0], what, false);
    const SampleArgs sample = ReadSampleParams(info[1].IsUndefined() ? Napi::Object::New(env) : info[1], what);
    LaunchArgs args = ReadLaunch(info[1], what);
#ifdef TAGMASK_WITH_CUDA
    const auto [b, stream] = Prepare(args, bitmask, what);
    const std::vector<SampleParams> params = PinSampleParams(sample, what, b.work_rows);
    cuda::CopyHostToDevice(ParamsArea(), params.data(), params.size() * sizeof(SampleParams), stream, device_);
    cuda::LaunchSample(b, ParamsArea(), TokensArea(), stream, device_);
    cuda::CopyDeviceToHost(staging_.data(), TokensArea(), b.work_rows * sizeof(int32_t), stream, device_);
    cuda::SynchronizeStream(stream, device_);
    Napi::Int32Array out = Napi::Int32Array::New(env, b.work_rows);
    std::copy_n(static_cast<const int32_t*>(staging_.data()), b.work_rows, out.Data());
    return out;
#else
    (void)bitmask;
    (void)args;
    (void)sample;
    return env.Undefined();
#endif
  });
}

Napi::Value DeviceLogitsWrap::Benchmark(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "DeviceLogits.benchmark(kind, bitmask, iterations, options)";
    const std::string kind = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : std::string();
    if (kind != "apply" && kind != "apply-waves" && kind != "argmax") {
      ThrowInvalidArgument(std::string(what) + ": kind must be \"apply\", \"apply-waves\" or \"argmax\"");
    }
    DeviceBitmaskWrap* bitmask = UnwrapBitmask(info[1], what, kind == "argmax");
    const int iterations = static_cast<int>(ToSize(info[2], what, "iterations", 1000000));
    LaunchArgs args = ReadLaunch(info[3], what);
#ifdef TAGMASK_WITH_CUDA
    auto [b, stream] = Prepare(args, bitmask, what);
    if (kind == "apply-waves") b.apply_variant = cuda::ApplyVariant::kWaves;
    return Napi::Number::New(env, cuda::TimeLaunches(b, kind == "argmax" ? PackedArea() : nullptr, iterations, stream,
                                                     device_));
#else
    (void)bitmask;
    (void)iterations;
    (void)args;
    return env.Undefined();
#endif
  });
}

Napi::Value DeviceLogitsWrap::Synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
#ifdef TAGMASK_WITH_CUDA
    cuda::SynchronizeStream(StreamOption(info[0], "DeviceLogits.synchronize()", stream_), device_);
#endif
    return env.Undefined();
  });
}

Napi::Value DeviceLogitsWrap::Free(const Napi::CallbackInfo& info) {
#ifdef TAGMASK_WITH_CUDA
  memory_.Reset();
  workspace_.Reset();
  staging_.Reset();
#endif
  pointer_ = nullptr;
  return info.Env().Undefined();
}

Napi::Value DeviceLogitsWrap::Pointer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(Logits("DeviceLogits.pointer"))));
  });
}

Napi::Value DeviceLogitsWrap::Shape(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("rows", static_cast<double>(rows_));
  o.Set("vocabSize", static_cast<double>(vocab_));
  o.Set("columns", static_cast<double>(columns_));
  o.Set("stride", static_cast<double>(stride_));
  o.Set("dtype", DTypeName(dtype_));
  o.Set("device", device_);
  o.Set("owned", owned_);
  return o;
}

}  // namespace

void InitDeviceLogits(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DeviceLogitsWrap::DefineClass(
      env, "DeviceLogits",
      {DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Upload>("upload"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Download>("download"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::ApplyBitmask>("applyBitmask"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Argmax>("argmax"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Sample>("sample"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Benchmark>("benchmark"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Synchronize>("synchronize"),
       DeviceLogitsWrap::InstanceMethod<&DeviceLogitsWrap::Free>("free"),
       DeviceLogitsWrap::InstanceAccessor<&DeviceLogitsWrap::Pointer>("pointer"),
       DeviceLogitsWrap::InstanceAccessor<&DeviceLogitsWrap::Shape>("shape")});
  AddonData::Of(env).constructors["DeviceLogits"] = Napi::Persistent(ctor);
  exports.Set("DeviceLogits", ctor);
}

}  // namespace tagmask::binding
