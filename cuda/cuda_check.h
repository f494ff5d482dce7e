// Turning CUDA error codes into tagmask::Error(Device) with the call, the error name and text.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "tagmask/error.h"

namespace tagmask::cuda {

[[noreturn]] inline void ThrowCuda(cudaError_t err, const char* what) {
  cudaGetLastError();  // clear a sticky launch error so later calls start clean
  throw Error(ErrorCode::Device,
              std::string(what) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

inline void Check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) ThrowCuda(err, what);
}

inline cudaStream_t AsStream(uintptr_t handle) { return reinterpret_cast<cudaStream_t>(handle); }

/// Makes `device` current for this thread (cheap when it already is).
inline void UseDevice(int device) { Check(cudaSetDevice(device), "cudaSetDevice"); }

}  // namespace tagmask::cuda
