// Bitmask application and masked argmax on device logits (fp32, fp16, bf16).
//
// Memory traffic is what bounds these kernels, so each thread works on 32-byte chunks of a
// row (8 fp32 or 16 half values, one DRAM sector; consecutive threads take consecutive chunks,
// so a warp's loads and stores are coalesced) and touches only what the mask requires: a chunk
// whose bits are all 1 is skipped entirely, a chunk whose bits are all 0 is overwritten with -inf
// without being read, and only mixed chunks are read, blended and written back. A chunk is a
// whole sector, so a sector is never left partly written (16-byte chunks left one half of a
// sector untouched whenever a neighbouring chunk was skipped).
// Rows whose address or stride is not 16-byte aligned fall back to one element per thread.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.h"
#include "kernel_common.cuh"
#include "tagmask/cuda_device.h"

namespace tagmask::cuda {
namespace {

using namespace detail;

constexpr int kThreads = 256;
constexpr uint32_t kMaxGridY = 65535;

template <DType D, int kVec, int kItems, bool kRefs>
__global__ void __launch_bounds__(kThreads) ApplyBitmaskKernel(DeviceBatch b) {
  using T = typename Storage<D>::T;
  constexpr uint32_t kAll = kVec == 32 ? 0xFFFFFFFFu : ((1u << kVec) - 1u);
  const uint32_t words = (b.vocab + 31) / 32;
  const uint32_t full_chunks = b.columns / kVec;
  for (uint32_t k = blockIdx.y; k < b.work_rows; k += gridDim.y) {
    const RowPair rows = MapRow(b, k);
    T* row = static_cast<T*>(b.logits) + rows.logits_row * b.stride;
    const int32_t* mask_row = MaskRowOf<kRefs>(b, rows.mask_row, words);
    const uint32_t base = blockIdx.x * (kThreads * kItems) + threadIdx.x;
    uint32_t bits[kItems];
    Chunk<D, kVec> chunk[kItems];
    // Bits first, then every load, then every store: independent loads in flight together.
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const uint32_t c = base + j * kThreads;
      bits[j] = c < full_chunks ? maskmath::ChunkBits(mask_row, c * kVec, kVec, b.vocab) : kAll;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (bits[j] != kAll && bits[j] != 0) chunk[j] = LoadChunk<D, kVec>(row + (base + j * kThreads) * kVec);
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (bits[j] == kAll) continue;
      T* p = row + (base + j * kThreads) * kVec;
      if (bits[j] == 0) {
        StoreChunk<D, kVec>(p, NegInfChunk<D, kVec>());
        continue;
      }
#pragma unroll
      for (int l = 0; l < kVec; ++l) {
        if (((bits[j] >> l) & 1u) == 0) chunk[j].lane[l] = NegInfBits<D>();
      }
      StoreChunk<D, kVec>(p, chunk[j]);
    }
    // The last columns % kVec elements, one per thread of the first block column.
    if (blockIdx.x == 0) {
      const uint32_t i = full_chunks * kVec + threadIdx.x;
      if (threadIdx.x < static_cast<uint32_t>(kVec) && i < b.columns && !maskmath::Allowed(mask_row, i, b.vocab)) {
        row[i] = static_cast<T>(NegInfBits<D>());
      }
    }
  }
}

// A candidate for batches whose logits are larger than L2 (issue 17), measured against the
// kernel above by bench/gpu (DeviceLogits.benchmark("apply-waves")) and used by nothing else
// until it is measured faster: streaming (evict-first) loads and stores, four chunks (128 bytes)
// per thread, and a grid of whole waves — as many blocks as fit on the device at once, each
// looping over (row, chunk group) items in row order. Written apart from the kernel above so
// that the measured kernel's code stays as it was.
template <DType D, bool kRefs>
__global__ void __launch_bounds__(kThreads) ApplyBitmaskWavesKernel(DeviceBatch b, uint32_t groups_per_row) {
  using T = typename Storage<D>::T;
  constexpr int kVec = VecOf<D>();
  constexpr int kItems = 4;
  constexpr uint32_t kAll = kVec == 32 ? 0xFFFFFFFFu : ((1u << kVec) - 1u);
  const uint32_t words = (b.vocab + 31) / 32;
  const uint32_t full_chunks = b.columns / kVec;
  const uint64_t items = static_cast<uint64_t>(b.work_rows) * groups_per_row;
  for (uint64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const uint32_t group = static_cast<uint32_t>(item % groups_per_row);
    const RowPair rows = MapRow(b, static_cast<uint32_t>(item / groups_per_row));
    T* row = static_cast<T*>(b.logits) + rows.logits_row * b.stride;
    const int32_t* mask_row = MaskRowOf<kRefs>(b, rows.mask_row, words);
    const uint32_t base = group * (kThreads * kItems) + threadIdx.x;
    uint32_t bits[kItems];
    Chunk<D, kVec> chunk[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const uint32_t c = base + j * kThreads;
      bits[j] = c < full_chunks ? maskmath::ChunkBits(mask_row, c * kVec, kVec, b.vocab) : kAll;
      if (bits[j] != kAll && bits[j] != 0) chunk[j] = LoadChunk<D, kVec, true>(row + c * kVec);
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (bits[j] == kAll) continue;
      T* p = row + (base + j * kThreads) * kVec;
      if (bits[j] == 0) {
        StoreChunk<D, kVec, true>(p, NegInfChunk<D, kVec>());
        continue;
      }
#pragma unroll
      for (int l = 0; l < kVec; ++l) {
        if (((bits[j] >> l) & 1u) == 0) chunk[j].lane[l] = NegInfBits<D>();
      }
      StoreChunk<D, kVec, true>(p, chunk[j]);
    }
    if (group == 0) {
      const uint32_t i = full_chunks * kVec + threadIdx.x;
      if (threadIdx.x < static_cast<uint32_t>(kVec) && i < b.columns && !maskmath::Allowed(mask_row, i, b.vocab)) {
        row[i] = static_cast<T>(NegInfBits<D>());
      }
    }
  }
}

template <DType D, int kVec, bool kRefs>
__global__ void __launch_bounds__(kThreads) ArgmaxKernel(DeviceBatch b, uint64_t* packed_out, uint32_t chunks_per_block) {
  using T = typename Storage<D>::T;
  __shared__ uint64_t warp_best[kThreads / 32];
  const uint32_t words = (b.vocab + 31) / 32;
  const uint32_t full_chunks = b.vocab / kVec;  // chunks entirely below vocab
  for (uint32_t k = blockIdx.y; k < b.work_rows; k += gridDim.y) {
    const RowPair rows = MapRow(b, k);
    const T* row = static_cast<const T*>(b.logits) + rows.logits_row * b.stride;
    const int32_t* mask_row = b.bitmask == nullptr ? nullptr : MaskRowOf<kRefs>(b, rows.mask_row, words);
    uint64_t best = 0;  // key << 32 | ~id; 0 = nothing allowed seen
    const uint32_t begin = blockIdx.x * chunks_per_block;
    const uint32_t end = min(full_chunks, begin + chunks_per_block);
    for (uint32_t c = begin + threadIdx.x; c < end; c += kThreads) {
      const uint32_t bits = ChunkAllow<kVec>(mask_row, c * kVec, b.vocab);
      if (bits == 0) continue;  // nothing allowed: never read
      const Chunk<D, kVec> chunk = LoadChunk<D, kVec>(row + c * kVec);
#pragma unroll
      for (int l = 0; l < kVec; ++l) {
        if (((bits >> l) & 1u) == 0) continue;
        const uint32_t id = c * kVec + l;
        const uint64_t packed = (static_cast<uint64_t>(maskmath::OrderedKey(ToFloat<D>(chunk.lane[l]))) << 32) | (~id);
        best = packed > best ? packed : best;
      }
    }
    if (blockIdx.x == 0 && threadIdx.x < static_cast<uint32_t>(kVec)) {
      const uint32_t id = full_chunks * kVec + threadIdx.x;
      const bool allowed = mask_row == nullptr ? id < b.vocab : maskmath::Allowed(mask_row, id, b.vocab);
      if (id < b.vocab && allowed) {
        const uint64_t packed = (static_cast<uint64_t>(maskmath::OrderedKey(ToFloat<D>(row[id]))) << 32) | (~id);
        best = packed > best ? packed : best;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const uint64_t other = __shfl_down_sync(0xFFFFFFFFu, best, offset);
      best = other > best ? other : best;
    }
    if (threadIdx.x % 32 == 0) warp_best[threadIdx.x / 32] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
      uint64_t block_best = 0;
      for (int w = 0; w < kThreads / 32; ++w) block_best = warp_best[w] > block_best ? warp_best[w] : block_best;
      if (block_best != 0) atomicMax(reinterpret_cast<unsigned long long*>(packed_out + k), block_best);
    }
    __syncthreads();
  }
}

int Multiprocessors(int device) {
  static thread_local int cached_device = -1;
  static thread_local int cached_count = 0;
  if (cached_device != device) {
    Check(cudaDeviceGetAttribute(&cached_count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    cached_device = device;
  }
  return cached_count;
}

template <DType D, int kVec, int kItems>
void LaunchApplyTyped(const DeviceBatch& b, cudaStream_t stream) {
  const uint32_t full_chunks = b.columns / kVec;
  const uint32_t per_block = kThreads * kItems;
  const uint32_t grid_x = std::max<uint32_t>(1, (full_chunks + per_block - 1) / per_block);
  const dim3 grid(grid_x, std::min(b.work_rows, kMaxGridY));
  if (b.refs != nullptr) {
    ApplyBitmaskKernel<D, kVec, kItems, true><<<grid, kThreads, 0, stream>>>(b);
  } else {
    ApplyBitmaskKernel<D, kVec, kItems, false><<<grid, kThreads, 0, stream>>>(b);
  }
}

template <DType D, bool kRefs>
void LaunchApplyWavesTyped(const DeviceBatch& b, cudaStream_t stream, int device) {
  const uint32_t full_chunks = b.columns / VecOf<D>();
  const uint32_t groups_per_row = std::max<uint32_t>(1, (full_chunks + kThreads * 4 - 1) / (kThreads * 4));
  static thread_local int cached_device = -1;
  static thread_local int per_sm = 0;
  if (cached_device != device) {
    Check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ApplyBitmaskWavesKernel<D, kRefs>, kThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    cached_device = device;
  }
  const uint64_t items = static_cast<uint64_t>(b.work_rows) * groups_per_row;
  const uint64_t wave = static_cast<uint64_t>(std::max(1, per_sm)) * static_cast<uint64_t>(Multiprocessors(device));
  const uint32_t grid = static_cast<uint32_t>(std::min<uint64_t>(items, wave));
  ApplyBitmaskWavesKernel<D, kRefs><<<grid, kThreads, 0, stream>>>(b, groups_per_row);
}

template <DType D>
void LaunchApplyDtype(const DeviceBatch& b, cudaStream_t stream, int device) {
  if (!VectorAligned(b)) {
    LaunchApplyTyped<D, 1, 4>(b, stream);
    return;
  }
  if (b.apply_variant == ApplyVariant::kWaves) {
    if (b.refs != nullptr) {
      LaunchApplyWavesTyped<D, true>(b, stream, device);
    } else {
      LaunchApplyWavesTyped<D, false>(b, stream, device);
    }
    return;
  }
  // Small batches: one chunk per thread, so the grid still spreads over every SM. Large
  // batches: two chunks (64 bytes) per thread for more loads in flight per thread.
  const uint64_t blocks_at_one = static_cast<uint64_t>(b.work_rows) * ((b.columns / VecOf<D>() + kThreads - 1) / kThreads);
  if (blocks_at_one < 8ull * static_cast<uint64_t>(Multiprocessors(device))) {
    LaunchApplyTyped<D, VecOf<D>(), 1>(b, stream);
  } else {
    LaunchApplyTyped<D, VecOf<D>(), 2>(b, stream);
  }
}

template <DType D, int kVec>
void LaunchArgmaxTyped(const DeviceBatch& b, uint64_t* out, cudaStream_t stream, int device) {
  const uint32_t full_chunks = b.vocab / kVec;
  // Enough blocks per row to cover the GPU when the batch is small, at least 8 chunks per thread.
  const uint32_t rows = std::max<uint32_t>(1, b.work_rows);
  const uint32_t want_blocks = std::max<uint32_t>(1, static_cast<uint32_t>(4 * Multiprocessors(device)) / rows);
  const uint32_t min_per_block = kThreads * 8;
  uint32_t per_block = std::max<uint32_t>(min_per_block, (full_chunks + want_blocks - 1) / want_blocks);
  const uint32_t grid_x = std::max<uint32_t>(1, (full_chunks + per_block - 1) / per_block);
  const dim3 grid(grid_x, std::min(b.work_rows, kMaxGridY));
  if (b.refs != nullptr) {
    ArgmaxKernel<D, kVec, true><<<grid, kThreads, 0, stream>>>(b, out, per_block);
  } else {
    ArgmaxKernel<D, kVec, false><<<grid, kThreads, 0, stream>>>(b, out, per_block);
  }
}

template <DType D>
void LaunchArgmaxDtype(const DeviceBatch& b, uint64_t* out, cudaStream_t stream, int device) {
  if (VectorAligned(b)) {
    LaunchArgmaxTyped<D, VecOf<D>()>(b, out, stream, device);
  } else {
    LaunchArgmaxTyped<D, 1>(b, out, stream, device);
  }
}

}  // namespace

void LaunchApplyBitmask(const DeviceBatch& b, StreamHandle stream_handle, int device) {
  if (b.work_rows == 0 || b.columns == 0) return;
  UseDevice(device);
  cudaStream_t stream = AsStream(stream_handle);
  switch (b.dtype) {
    case DType::kFloat32: LaunchApplyDtype<DType::kFloat32>(b, stream, device); break;
    case DType::kFloat16: LaunchApplyDtype<DType::kFloat16>(b, stream, device); break;
    case DType::kBFloat16: LaunchApplyDtype<DType::kBFloat16>(b, stream, device); break;
  }
  Check(cudaGetLastError(), "applying the bitmask (kernel launch)");
}

void LaunchArgmax(const DeviceBatch& b, uint64_t* packed_out, StreamHandle stream_handle, int device) {
  if (b.work_rows == 0) return;
  UseDevice(device);
  cudaStream_t stream = AsStream(stream_handle);
  Check(cudaMemsetAsync(packed_out, 0, sizeof(uint64_t) * b.work_rows, stream), "cudaMemsetAsync (argmax output)");
  switch (b.dtype) {
    case DType::kFloat32: LaunchArgmaxDtype<DType::kFloat32>(b, packed_out, stream, device); break;
    case DType::kFloat16: LaunchArgmaxDtype<DType::kFloat16>(b, packed_out, stream, device); break;
    case DType::kBFloat16: LaunchArgmaxDtype<DType::kBFloat16>(b, packed_out, stream, device); break;
  }
  Check(cudaGetLastError(), "masked argmax (kernel launch)");
}

double TimeLaunches(const DeviceBatch& b, uint64_t* argmax_out, int iterations, StreamHandle stream_handle, int device) {
  UseDevice(device);
  cudaStream_t stream = AsStream(stream_handle);
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  const cudaError_t made = cudaEventCreate(&stop);
  if (made != cudaSuccess) {
    cudaEventDestroy(start);
    ThrowCuda(made, "cudaEventCreate");
  }
  float ms = 0;
  cudaError_t err = cudaEventRecord(start, stream);
  try {
    for (int i = 0; i < iterations && err == cudaSuccess; ++i) {
      if (argmax_out != nullptr) {
        LaunchArgmax(b, argmax_out, stream_handle, device);
      } else {
        LaunchApplyBitmask(b, stream_handle, device);
      }
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  if (err == cudaSuccess) err = cudaEventRecord(stop, stream);
  if (err == cudaSuccess) err = cudaEventSynchronize(stop);
  if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  Check(err, "timing kernel launches");
  return iterations > 0 ? (ms * 1000.0) / iterations : 0.0;
}

}  // namespace tagmask::cuda
