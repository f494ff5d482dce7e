// Fused masked sampling: one block per row, logits never leave the device. The passes are those
// of the CPU reference (native/core/apply_mask_sampling.cpp) on the same mask_math.h functions,
// with integer weights so that the parallel sums equal the sequential ones:
//   1. masked argmax and the number of allowed tokens;
//   2. top-k: a radix select (4 passes of 8-bit digit counts) of the k-th largest key;
//   3. the fixed-point weights' total over the kept tokens;
//   4. top-p: a radix select on weight mass of the smallest key whose tail reaches ceil(p·total);
//   5. the draw: each thread sums a contiguous slice of ids, a block scan finds the slice where
//      the running total passes the draw, and that thread walks its slice to the token.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "kernel_common.cuh"
#include "tagmask/cuda_device.h"

namespace tagmask::cuda {
namespace {

using namespace detail;
using maskmath::SampleParams;

constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / 32;
constexpr uint32_t kNoDigit = 256;  // a lane with nothing counted yet

struct SharedState {
  unsigned long long buckets[256];
  unsigned long long warp_u64[kWarps];
  unsigned long long scan[kThreads];
  uint32_t prefix;
  unsigned long long wanted;
  unsigned long long total;
  int32_t chosen;
};

__device__ __forceinline__ unsigned long long BlockMax(unsigned long long v, SharedState& s) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync(0xFFFFFFFFu, v, o);
    v = other > v ? other : v;
  }
  if (threadIdx.x % 32 == 0) s.warp_u64[threadIdx.x / 32] = v;
  __syncthreads();
  unsigned long long r = 0;
  for (int w = 0; w < kWarps; ++w) r = s.warp_u64[w] > r ? s.warp_u64[w] : r;
  __syncthreads();
  return r;
}

__device__ __forceinline__ unsigned long long BlockSum(unsigned long long v, SharedState& s) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  if (threadIdx.x % 32 == 0) s.warp_u64[threadIdx.x / 32] = v;
  __syncthreads();
  unsigned long long r = 0;
  for (int w = 0; w < kWarps; ++w) r += s.warp_u64[w];
  __syncthreads();
  return r;
}

struct RowCtx {
  DType dtype;
  const void* logits;
  const int32_t* mask;
  uint32_t vocab;
};

__device__ __forceinline__ uint32_t KeyAt(const RowCtx& r, uint32_t i) {
  return maskmath::OrderedKey(maskmath::LoadAsFloat(r.logits, r.dtype, i));
}

// Descending radix select over allowed tokens with key >= floor; counts (weights == false) or
// weight mass. Same digits and order as RadixSelect on the CPU.
__device__ uint32_t RadixSelect(const RowCtx& r, uint32_t floor, bool use_weights, float max, float inv_t,
                                unsigned long long wanted, SharedState& s) {
  if (threadIdx.x == 0) {
    s.prefix = 0;
    s.wanted = wanted;
  }
  __syncthreads();
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += kThreads) s.buckets[b] = 0;
    __syncthreads();
    const uint32_t prefix = s.prefix;
    const uint32_t high_shift = static_cast<uint32_t>(shift) + 8;
    // Contention, not bandwidth, is what bounds this pass: many tokens share a digit (the top
    // byte of nearby keys; every key when the logits are flat), and an atomic per token on one
    // shared-memory bucket serializes the block. So each thread keeps a running sum while its
    // digit stays the same and adds it when the digit changes; at the end the lanes of a warp
    // that hold the same digit add their sums once.
    uint32_t held = kNoDigit;
    unsigned long long run = 0;
    for (uint32_t i = threadIdx.x; i < r.vocab; i += kThreads) {
      if (!maskmath::Allowed(r.mask, i, r.vocab)) continue;
      const float x = maskmath::LoadAsFloat(r.logits, r.dtype, i);
      const uint32_t key = maskmath::OrderedKey(x);
      if (key < floor) continue;
      if (high_shift < 32 && (key >> high_shift) != (prefix >> high_shift)) continue;
      const unsigned long long add = use_weights ? maskmath::Weight(x, max, inv_t) : 1ull;
      if (add == 0) continue;
      const uint32_t d = (key >> shift) & 0xFFu;
      if (d != held) {
        if (held != kNoDigit) atomicAdd(&s.buckets[held], run);
        held = d;
        run = 0;
      }
      run += add;
    }
    const uint32_t peers = __match_any_sync(0xFFFFFFFFu, held);
    unsigned long long sum = 0;
    for (uint32_t m = peers; m != 0; m &= m - 1) sum += __shfl_sync(peers, run, __ffs(m) - 1);
    if (held != kNoDigit && (threadIdx.x % 32) == static_cast<uint32_t>(__ffs(peers) - 1)) {
      atomicAdd(&s.buckets[held], sum);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      uint64_t w = s.wanted;
      const uint32_t digit = maskmath::SelectDigit(reinterpret_cast<const uint64_t*>(s.buckets), w);
      s.wanted = w;
      s.prefix = prefix | (digit << shift);
    }
    __syncthreads();
  }
  return s.prefix;
}

template <bool kRefs>
__global__ void __launch_bounds__(kThreads) SampleKernel(DeviceBatch b, const SampleParams* params, int32_t* out) {
  __shared__ SharedState s;
  const uint32_t words = (b.vocab + 31) / 32;
  for (uint32_t k = blockIdx.x; k < b.work_rows; k += gridDim.x) {
    const RowPair rows = MapRow(b, k);
    const uint32_t bytes = maskmath::ElementBytes(b.dtype);
    const RowCtx r{b.dtype, static_cast<const char*>(b.logits) + rows.logits_row * b.stride * bytes,
                   MaskRowOf<kRefs>(b, rows.mask_row, words), b.vocab};
    const SampleParams p = params[k];

    // 1. argmax and allowed count.
    unsigned long long best = 0;
    unsigned long long allowed = 0;
    for (uint32_t i = threadIdx.x; i < r.vocab; i += kThreads) {
      if (!maskmath::Allowed(r.mask, i, r.vocab)) continue;
      ++allowed;
      const unsigned long long packed = (static_cast<unsigned long long>(KeyAt(r, i)) << 32) | (~i);
      best = packed > best ? packed : best;
    }
    best = BlockMax(best, s);
    allowed = BlockSum(allowed, s);
    const int32_t argmax = DecodeArgmax(best);
    const uint32_t best_key = static_cast<uint32_t>(best >> 32);
    const float max = maskmath::KeyToFloat(best_key);
    if (argmax < 0 || p.temperature == 0.0f || best_key == 0 || isinf(max)) {
      if (threadIdx.x == 0) out[k] = argmax;
      __syncthreads();
      continue;
    }

    // 2. top-k floor.
    uint32_t floor = 0;
    if (p.top_k > 0 && static_cast<unsigned long long>(p.top_k) < allowed) {
      floor = RadixSelect(r, 0, false, max, 0.0f, static_cast<unsigned long long>(p.top_k), s);
    }
    const float inv_t = 1.0f / p.temperature;

    // 3. total weight of the kept tokens.
    auto kept_total = [&](uint32_t fl) {
      unsigned long long t = 0;
      for (uint32_t i = threadIdx.x; i < r.vocab; i += kThreads) {
        if (!maskmath::Allowed(r.mask, i, r.vocab)) continue;
        const float x = maskmath::LoadAsFloat(r.logits, r.dtype, i);
        if (maskmath::OrderedKey(x) >= fl) t += maskmath::Weight(x, max, inv_t);
      }
      return BlockSum(t, s);
    };
    unsigned long long total = kept_total(floor);

    // 4. top-p floor.
    if (p.top_p < 1.0f) {
      const uint32_t tau = RadixSelect(r, floor, true, max, inv_t, maskmath::TopPTarget(p.top_p, total), s);
      if (tau > floor) {
        floor = tau;
        total = kept_total(floor);
      }
    }

    // 5. the draw, in id order.
    const unsigned long long target = maskmath::MulHi64(maskmath::RowDraw(p.seed, static_cast<uint32_t>(rows.logits_row)), total);
    const uint32_t slice = (r.vocab + kThreads - 1) / kThreads;
    const uint32_t from = min(r.vocab, threadIdx.x * slice);
    const uint32_t to = min(r.vocab, from + slice);
    unsigned long long mine = 0;
    for (uint32_t i = from; i < to; ++i) {
      if (!maskmath::Allowed(r.mask, i, r.vocab)) continue;
      const float x = maskmath::LoadAsFloat(r.logits, r.dtype, i);
      if (maskmath::OrderedKey(x) >= floor) mine += maskmath::Weight(x, max, inv_t);
    }
    // Inclusive scan of the slice sums (Hillis–Steele in shared memory; integer, so exact).
    s.scan[threadIdx.x] = mine;
    if (threadIdx.x == 0) s.chosen = -1;
    __syncthreads();
    for (int o = 1; o < kThreads; o *= 2) {
      const unsigned long long add = threadIdx.x >= static_cast<unsigned>(o) ? s.scan[threadIdx.x - o] : 0ull;
      __syncthreads();
      s.scan[threadIdx.x] += add;
      __syncthreads();
    }
    const unsigned long long before = s.scan[threadIdx.x] - mine;
    if (mine != 0 && before <= target && target < before + mine) {
      unsigned long long acc = before;
      for (uint32_t i = from; i < to; ++i) {
        if (!maskmath::Allowed(r.mask, i, r.vocab)) continue;
        const float x = maskmath::LoadAsFloat(r.logits, r.dtype, i);
        if (maskmath::OrderedKey(x) < floor) continue;
        acc += maskmath::Weight(x, max, inv_t);
        if (acc > target) {
          s.chosen = static_cast<int32_t>(i);
          break;
        }
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) out[k] = s.chosen >= 0 ? s.chosen : argmax;
    __syncthreads();
  }
}

}  // namespace

void LaunchSample(const DeviceBatch& b, const SampleParams* params, int32_t* tokens_out, StreamHandle stream_handle,
                  int device) {
  if (b.work_rows == 0) return;
  UseDevice(device);
  const uint32_t grid = b.work_rows < 65535u ? b.work_rows : 65535u;
  if (b.refs != nullptr) {
    SampleKernel<true><<<grid, kThreads, 0, AsStream(stream_handle)>>>(b, params, tokens_out);
  } else {
    SampleKernel<false><<<grid, kThreads, 0, AsStream(stream_handle)>>>(b, params, tokens_out);
  }
  Check(cudaGetLastError(), "masked sampling (kernel launch)");
}

}  // namespace tagmask::cuda
