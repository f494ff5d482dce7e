// The wrapped device classes, declared together so that one can unwrap another (DeviceLogits
// takes a DeviceBitmask, DeviceBitmask.upload takes a PinnedBitmask).
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>

#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_device.h"
#endif

namespace tagmask::binding {

class PinnedBitmaskWrap : public Napi::ObjectWrap<PinnedBitmaskWrap> {
 public:
  explicit PinnedBitmaskWrap(const Napi::CallbackInfo& info);
  Napi::Value Array(const Napi::CallbackInfo& info);
  Napi::Value Rows(const Napi::CallbackInfo& info);
  Napi::Value VocabSize(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);

  /// The pinned words (throws when freed).
  const int32_t* Data(const char* what) const;
  uint64_t words() const noexcept { return words_; }
  uint64_t vocab() const noexcept { return vocab_; }

 private:
  Napi::Reference<Napi::Int32Array> array_;
  int32_t* data_ = nullptr;
  uint64_t rows_ = 0;
  uint64_t vocab_ = 0;
  uint64_t words_ = 0;
};

class DeviceBitmaskWrap : public Napi::ObjectWrap<DeviceBitmaskWrap> {
 public:
  explicit DeviceBitmaskWrap(const Napi::CallbackInfo& info);
  Napi::Value Upload(const Napi::CallbackInfo& info);
  Napi::Value Download(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value Pointer(const Napi::CallbackInfo& info);
  Napi::Value Rows(const Napi::CallbackInfo& info);
  Napi::Value VocabSize(const Napi::CallbackInfo& info);

  /// Device words (throws when freed).
  const int32_t* Data(const char* what) const;
  uint64_t rows() const noexcept { return rows_; }
  uint64_t vocab() const noexcept { return vocab_; }
  int device() const noexcept { return device_; }

 private:
#ifdef TAGMASK_WITH_CUDA
  cuda::DeviceMemory memory_;
#endif
  uint64_t rows_ = 0;
  uint64_t vocab_ = 0;
  int device_ = 0;
  uintptr_t stream_ = 0;
};

/// A compiled grammar's resident rows in device memory (CompiledGrammar.uploadMasks). The memory
/// is shared with the grammar's per-device table, so it lives until both let go (or free()).
class DeviceMaskStoreWrap : public Napi::ObjectWrap<DeviceMaskStoreWrap> {
 public:
  struct Init {
#ifdef TAGMASK_WITH_CUDA
    std::shared_ptr<cuda::DeviceMemory> memory;
#endif
    uint64_t count = 0;
    uint64_t words = 0;  // per row
    uint64_t vocab = 0;
    int device = 0;
  };
  /// A new DeviceMaskStore object over `init`.
  static Napi::Object New(Napi::Env env, const Init& init);

  explicit DeviceMaskStoreWrap(const Napi::CallbackInfo& info);
  Napi::Value Pointer(const Napi::CallbackInfo& info);
  Napi::Value Count(const Napi::CallbackInfo& info);
  Napi::Value WordsPerMask(const Napi::CallbackInfo& info);
  Napi::Value VocabSize(const Napi::CallbackInfo& info);
  Napi::Value Bytes(const Napi::CallbackInfo& info);
  Napi::Value Device(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);

  /// Device words, count() rows (throws when freed).
  const int32_t* Data(const char* what) const;
  uint64_t count() const noexcept { return init_.count; }
  uint64_t vocab() const noexcept { return init_.vocab; }
  int device() const noexcept { return init_.device; }

 private:
  Init init_;
};

}  // namespace tagmask::binding
