// The CUDA side of masking, as plain C++ (no CUDA types): device memory, pinned host memory,
// streams, copies, and the kernel launches of cuda/mask_kernels.cu and cuda/sample_kernels.cu.
// Only defined in builds with CUDA (TAGMASK_WITH_CUDA); every function that needs a device
// throws Error(ErrorCode::Device) with the CUDA error name and message when the call fails or
// when no device is usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tagmask/mask_math.h"

namespace tagmask::cuda {

/// A CUDA stream handle (cudaStream_t) as an integer; 0 is the legacy default stream.
using StreamHandle = uintptr_t;

/// Throws Error(Device) unless `device` exists and can run the kernels.
void RequireDevice(int device);

struct DeviceProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  int multiprocessors = 0;
  size_t total_memory = 0;
  /// Peak DRAM bandwidth in bytes/s from the memory clock and bus width (0 when unknown).
  double memory_bandwidth = 0;
};

DeviceProperties GetDeviceProperties(int device);

/// cudaMalloc'd memory on one device, freed on destruction.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(size_t bytes, int device);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* data() const noexcept { return data_; }
  size_t bytes() const noexcept { return bytes_; }
  int device() const noexcept { return device_; }
  /// Frees now (idempotent).
  void Reset() noexcept;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  int device_ = 0;
};

/// Page-locked host memory (cudaHostAlloc), so that copies from it run asynchronously.
class PinnedMemory {
 public:
  PinnedMemory() = default;
  explicit PinnedMemory(size_t bytes);
  ~PinnedMemory();
  PinnedMemory(PinnedMemory&& other) noexcept;
  PinnedMemory& operator=(PinnedMemory&& other) noexcept;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;

  void* data() const noexcept { return data_; }
  size_t bytes() const noexcept { return bytes_; }
  void Reset() noexcept;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

/// A non-blocking stream owned by tagmask, destroyed with the object.
class Stream {
 public:
  Stream() = default;
  explicit Stream(int device);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamHandle handle() const noexcept { return handle_; }
  int device() const noexcept { return device_; }
  void Reset() noexcept;

 private:
  StreamHandle handle_ = 0;
  int device_ = 0;
};

/// Checks that `pointer` is device (or managed) memory usable from `device`; throws
/// Error(InvalidArgument) naming what it is otherwise.
void CheckDevicePointer(const void* pointer, int device, const char* what);

/// Copies on `stream` (host memory that is not pinned makes the copy synchronous to the host).
void CopyHostToDevice(void* dst, const void* src, size_t bytes, StreamHandle stream, int device);
void CopyDeviceToHost(void* dst, const void* src, size_t bytes, StreamHandle stream, int device);
void CopyDeviceToDevice(void* dst, const void* src, size_t bytes, StreamHandle stream, int device);
void MemsetDevice(void* dst, int value, size_t bytes, StreamHandle stream, int device);
void SynchronizeStream(StreamHandle stream, int device);

/// Which kernel LaunchApplyBitmask runs (vector-aligned rows only). kDefault is the measured
/// one; kWaves is a candidate for batches past L2 that bench/gpu times against it.
enum class ApplyVariant : uint8_t { kDefault = 0, kWaves = 1 };

/// Logits and bitmask in device memory, with the same shape rules as MaskedLogits (already
/// validated by the caller): work row k uses logits row indices[k] (or k) and bitmask row
/// indices[k] (or k; k with compact_bitmask).
struct DeviceBatch {
  maskmath::DType dtype = maskmath::DType::kFloat32;
  void* logits = nullptr;
  uint32_t columns = 0;
  uint32_t vocab = 0;
  uint64_t stride = 0;        // elements between rows
  const int32_t* bitmask = nullptr;  // device; nullptr = every token < vocab allowed (argmax only)
  const int32_t* indices = nullptr;  // device; nullptr = work rows are 0..work_rows-1
  uint32_t work_rows = 0;
  bool compact_bitmask = false;
  // Resident masks (device; both set or both nullptr): the mask of bitmask row r is
  // ResolveMaskRef(refs[r], store, bitmask, words); `bitmask` then holds the compact rows.
  const int32_t* refs = nullptr;
  const int32_t* store = nullptr;
  ApplyVariant apply_variant = ApplyVariant::kDefault;
};

/// Sets disallowed logits (and columns at or past vocab) to -inf on `stream`, in place.
void LaunchApplyBitmask(const DeviceBatch& batch, StreamHandle stream, int device);

/// Masked argmax per work row into `packed_out` (device, work_rows uint64): key << 32 | ~id,
/// 0 when nothing is allowed. DecodeArgmax turns one into a token id (or -1).
void LaunchArgmax(const DeviceBatch& batch, uint64_t* packed_out, StreamHandle stream, int device);
TAGMASK_HD int32_t DecodeArgmax(uint64_t packed) noexcept {
  return packed == 0 ? -1 : static_cast<int32_t>(~static_cast<uint32_t>(packed & 0xFFFFFFFFu));
}

/// Masked sampling per work row with per-row parameters (device array of work_rows) into
/// `tokens_out` (device, work_rows int32): the same token the CPU MaskedSample picks.
void LaunchSample(const DeviceBatch& batch, const maskmath::SampleParams* params, int32_t* tokens_out,
                  StreamHandle stream, int device);

/// Times `iterations` launches of LaunchApplyBitmask (or LaunchArgmax when `argmax_out` is set)
/// with CUDA events on `stream`; returns the mean microseconds per launch. For bench/gpu.
double TimeLaunches(const DeviceBatch& batch, uint64_t* argmax_out, int iterations, StreamHandle stream,
                    int device);

}  // namespace tagmask::cuda
