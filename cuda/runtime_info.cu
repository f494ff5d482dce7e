#include <cuda_runtime.h>

#include "tagmask/cuda_runtime_info.h"

namespace tagmask::cuda {

int DeviceCount() noexcept {
  int count = 0;
  // With the static runtime this only looks for the driver at run time: on a machine without
  // one it returns cudaErrorInsufficientDriver / cudaErrorNoDevice instead of failing to load.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  return count;
}

std::string DeviceStatus() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  }
  if (count == 0) return "no CUDA device present";
  return "";
}

int RuntimeVersion() noexcept { return CUDART_VERSION; }

}  // namespace tagmask::cuda
