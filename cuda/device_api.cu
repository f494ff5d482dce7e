// Device memory, pinned host memory, streams and copies for the masking API.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "cuda_check.h"
#include "tagmask/cuda_device.h"
#include "tagmask/cuda_runtime_info.h"

namespace tagmask::cuda {

void RequireDevice(int device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(ErrorCode::Device, std::string("no usable CUDA device: ") + cudaGetErrorString(err));
  }
  if (count == 0) throw Error(ErrorCode::Device, "no CUDA device present");
  if (device < 0 || device >= count) {
    throw Error(ErrorCode::Device, "CUDA device " + std::to_string(device) + " does not exist (this machine has " +
                                       std::to_string(count) + ", numbered from 0)");
  }
  cudaDeviceProp prop{};
  Check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  if (prop.major < 8) {
    throw Error(ErrorCode::Device, "CUDA device " + std::to_string(device) + " (" + prop.name + ", compute " +
                                       std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                                       ") is older than the kernels' minimum, compute 8.0 (Ampere)");
  }
}

DeviceProperties GetDeviceProperties(int device) {
  RequireDevice(device);
  cudaDeviceProp prop{};
  Check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  DeviceProperties out;
  out.name = prop.name;
  out.major = prop.major;
  out.minor = prop.minor;
  out.multiprocessors = prop.multiProcessorCount;
  out.total_memory = prop.totalGlobalMem;
  int clock_khz = 0;
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) {
    // Double data rate: two transfers per clock.
    out.memory_bandwidth = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0);
  } else {
    cudaGetLastError();
  }
  return out;
}

// ---- DeviceMemory --------------------------------------------------------------------------

DeviceMemory::DeviceMemory(size_t bytes, int device) : bytes_(bytes), device_(device) {
  UseDevice(device);
  if (bytes == 0) return;
  Check(cudaMalloc(&data_, bytes), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
}

DeviceMemory::~DeviceMemory() { Reset(); }

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)), device_(other.device_) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
  }
  return *this;
}

void DeviceMemory::Reset() noexcept {
  if (data_ != nullptr) {
    // Destructors cannot report errors; a failing free leaves nothing to recover anyway.
    if (cudaSetDevice(device_) == cudaSuccess) cudaFree(data_);
    cudaGetLastError();
  }
  data_ = nullptr;
  bytes_ = 0;
}

// ---- PinnedMemory --------------------------------------------------------------------------

PinnedMemory::PinnedMemory(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  Check(cudaHostAlloc(&data_, bytes, cudaHostAllocPortable),
        ("cudaHostAlloc of " + std::to_string(bytes) + " pinned bytes").c_str());
}

PinnedMemory::~PinnedMemory() { Reset(); }

PinnedMemory::PinnedMemory(PinnedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedMemory& PinnedMemory::operator=(PinnedMemory&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PinnedMemory::Reset() noexcept {
  if (data_ != nullptr) {
    cudaFreeHost(data_);
    cudaGetLastError();
  }
  data_ = nullptr;
  bytes_ = 0;
}

// ---- Stream --------------------------------------------------------------------------------

Stream::Stream(int device) : device_(device) {
  UseDevice(device);
  cudaStream_t s = nullptr;
  Check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  handle_ = reinterpret_cast<StreamHandle>(s);
}

Stream::~Stream() { Reset(); }

Stream::Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, 0)), device_(other.device_) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Reset();
    handle_ = std::exchange(other.handle_, 0);
    device_ = other.device_;
  }
  return *this;
}

void Stream::Reset() noexcept {
  if (handle_ != 0) {
    if (cudaSetDevice(device_) == cudaSuccess) cudaStreamDestroy(AsStream(handle_));
    cudaGetLastError();
  }
  handle_ = 0;
}

void CheckDevicePointer(const void* pointer, int device, const char* what) {
  if (pointer == nullptr) throw Error(ErrorCode::InvalidArgument, std::string(what) + ": the device pointer is null");
  cudaPointerAttributes attrs{};
  const cudaError_t err = cudaPointerGetAttributes(&attrs, pointer);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": the pointer is not memory CUDA knows (" +
                                                cudaGetErrorString(err) + ")");
  }
  if (attrs.type != cudaMemoryTypeDevice && attrs.type != cudaMemoryTypeManaged) {
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": the pointer is " +
                    (attrs.type == cudaMemoryTypeHost ? "pinned host memory" : "not device memory") +
                    "; expected device memory (e.g. a tensor's data_ptr on a CUDA device)");
  }
  if (attrs.type == cudaMemoryTypeDevice && attrs.device != device) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": the pointer is memory of CUDA device " +
                                                std::to_string(attrs.device) + ", not of device " +
                                                std::to_string(device) + " (pass options.device)");
  }
}

// ---- copies --------------------------------------------------------------------------------

void CopyHostToDevice(void* dst, const void* src, size_t bytes, StreamHandle stream, int device) {
  if (bytes == 0) return;
  UseDevice(device);
  Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, AsStream(stream)), "cudaMemcpyAsync (host to device)");
}

void CopyDeviceToHost(void* dst, const void* src, size_t bytes, StreamHandle stream, int device) {
  if (bytes == 0) return;
  UseDevice(device);
  Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, AsStream(stream)), "cudaMemcpyAsync (device to host)");
}

void CopyDeviceToDevice(void* dst, const void* src, size_t bytes, StreamHandle stream, int device) {
  if (bytes == 0) return;
  UseDevice(device);
  Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, AsStream(stream)),
        "cudaMemcpyAsync (device to device)");
}

void MemsetDevice(void* dst, int value, size_t bytes, StreamHandle stream, int device) {
  if (bytes == 0) return;
  UseDevice(device);
  Check(cudaMemsetAsync(dst, value, bytes, AsStream(stream)), "cudaMemsetAsync");
}

void SynchronizeStream(StreamHandle stream, int device) {
  UseDevice(device);
  Check(cudaStreamSynchronize(AsStream(stream)), "cudaStreamSynchronize");
}

}  // namespace tagmask::cuda
