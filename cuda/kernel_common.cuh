// Helpers shared by the masking kernels: element storage per dtype, 16-byte vector chunks, and
// the work-row → (logits row, bitmask row) mapping (the same rule as MaskedLogits on the CPU).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "tagmask/cuda_device.h"
#include "tagmask/mask_math.h"

namespace tagmask::cuda::detail {

using maskmath::DType;

template <DType D>
struct Storage {
  using T = uint16_t;
};
template <>
struct Storage<DType::kFloat32> {
  using T = uint32_t;
};

/// Elements per chunk: 32 bytes, one DRAM sector. A chunk is written whole or not at all, so a
/// sector is never partly written (a partial sector write costs the memory controller a
/// read-modify-write); it is moved as two 16-byte vectors.
template <DType D>
__host__ __device__ constexpr int VecOf() {
  return D == DType::kFloat32 ? 8 : 16;
}

template <DType D>
__device__ __forceinline__ float ToFloat(uint32_t bits) {
  if constexpr (D == DType::kFloat32) {
    return maskmath::BitsFloat(bits);
  } else if constexpr (D == DType::kBFloat16) {
    return maskmath::BF16ToFloat(static_cast<uint16_t>(bits));
  } else {
    return maskmath::F16ToFloat(static_cast<uint16_t>(bits));
  }
}

template <DType D>
__host__ __device__ constexpr uint32_t NegInfBits() {
  return D == DType::kFloat32 ? maskmath::kF32NegInfBits
                              : (D == DType::kBFloat16 ? maskmath::kBF16NegInfBits : maskmath::kF16NegInfBits);
}

/// kVec consecutive elements as raw bits (one per lane): a whole chunk (VecOf) read from a
/// 16-byte aligned address as two 16-byte vectors, or one element.
template <DType D, int kVec>
struct Chunk {
  uint32_t lane[kVec];
};

/// A 16-byte vector load / store; kStream marks the lines evict-first (ld.global.cs /
/// st.global.cs), for data touched once that should not push the masks out of L2.
template <bool kStream>
__device__ __forceinline__ uint4 LoadVec(const uint4* p) {
  if constexpr (kStream) {
    return __ldcs(p);
  } else {
    return *p;
  }
}

template <bool kStream>
__device__ __forceinline__ void StoreVec(uint4* p, uint4 v) {
  if constexpr (kStream) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

template <DType D, int kVec, bool kStream = false>
__device__ __forceinline__ Chunk<D, kVec> LoadChunk(const typename Storage<D>::T* p) {
  static_assert(kVec == 1 || kVec == VecOf<D>(), "a chunk is one element or a whole 32-byte chunk");
  Chunk<D, kVec> c;
  if constexpr (kVec == 1) {
    c.lane[0] = p[0];
  } else {
    const uint4 a = LoadVec<kStream>(reinterpret_cast<const uint4*>(p));
    const uint4 b = LoadVec<kStream>(reinterpret_cast<const uint4*>(p) + 1);
    const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    if constexpr (D == DType::kFloat32) {
#pragma unroll
      for (int j = 0; j < 8; ++j) c.lane[j] = w[j];
    } else {
#pragma unroll
      for (int j = 0; j < 16; ++j) c.lane[j] = (w[j / 2] >> (16 * (j % 2))) & 0xFFFFu;
    }
  }
  return c;
}

template <DType D, int kVec, bool kStream = false>
__device__ __forceinline__ void StoreChunk(typename Storage<D>::T* p, const Chunk<D, kVec>& c) {
  if constexpr (kVec == 1) {
    p[0] = static_cast<typename Storage<D>::T>(c.lane[0]);
  } else if constexpr (D == DType::kFloat32) {
    StoreVec<kStream>(reinterpret_cast<uint4*>(p), make_uint4(c.lane[0], c.lane[1], c.lane[2], c.lane[3]));
    StoreVec<kStream>(reinterpret_cast<uint4*>(p) + 1, make_uint4(c.lane[4], c.lane[5], c.lane[6], c.lane[7]));
  } else {
    uint32_t w[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) w[j] = c.lane[2 * j] | (c.lane[2 * j + 1] << 16);
    StoreVec<kStream>(reinterpret_cast<uint4*>(p), make_uint4(w[0], w[1], w[2], w[3]));
    StoreVec<kStream>(reinterpret_cast<uint4*>(p) + 1, make_uint4(w[4], w[5], w[6], w[7]));
  }
}

/// A chunk whose every lane is -inf.
template <DType D, int kVec>
__device__ __forceinline__ Chunk<D, kVec> NegInfChunk() {
  Chunk<D, kVec> c;
#pragma unroll
  for (int j = 0; j < kVec; ++j) c.lane[j] = NegInfBits<D>();
  return c;
}

struct RowPair {
  uint64_t logits_row;
  uint64_t mask_row;
};

__device__ __forceinline__ RowPair MapRow(const DeviceBatch& b, uint32_t k) {
  if (b.indices == nullptr) return RowPair{k, k};
  const uint64_t r = static_cast<uint32_t>(b.indices[k]);
  return RowPair{r, b.compact_bitmask ? k : r};
}

/// The bitmask row of work row `mask_row` (RowPair::mask_row): a row of the bitmask, or with
/// resident masks (kRefs: b.refs and b.store set) the row its ref names, in the store or among
/// the compact rows of the bitmask. A template parameter rather than a test of b.refs, so the
/// dense kernels are exactly the code measured before resident masks existed.
template <bool kRefs>
__device__ __forceinline__ const int32_t* MaskRowOf(const DeviceBatch& b, uint64_t mask_row, uint32_t words) {
  if constexpr (kRefs) {
    return maskmath::ResolveMaskRef(b.refs[mask_row], b.store, b.bitmask, words);
  } else {
    return b.bitmask + mask_row * words;
  }
}

/// Allow bits of the chunk starting at `first`; without a bitmask every token < vocab is allowed.
template <int kVec>
__device__ __forceinline__ uint32_t ChunkAllow(const int32_t* mask_row, uint32_t first, uint32_t vocab) {
  if (mask_row != nullptr) return maskmath::ChunkBits(mask_row, first, kVec, vocab);
  if (first >= vocab) return 0;
  const uint32_t left = vocab - first;
  const uint32_t n = left < static_cast<uint32_t>(kVec) ? left : static_cast<uint32_t>(kVec);
  return n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1u);
}

/// Whether logits rows can be read as 16-byte vectors.
inline bool VectorAligned(const DeviceBatch& b) {
  const uint64_t row_bytes = b.stride * maskmath::ElementBytes(b.dtype);
  return (reinterpret_cast<uintptr_t>(b.logits) % 16) == 0 && row_bytes % 16 == 0;
}

}  // namespace tagmask::cuda::detail
