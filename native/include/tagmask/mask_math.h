// Per-element logic of bitmask application, masked argmax and masked sampling, shared by the
// CUDA kernels (cuda/*.cu, compiled by nvcc as __host__ __device__) and the CPU implementation
// (native/core/apply_mask*.cpp, compiled by the host compiler). Both sides call exactly these
// functions, so the CPU functions are the reference the GPU tests compare against, and the
// CPU tests exercise the same arithmetic the kernels run.
//
// Everything here is header-only, allocation-free and uses only integer operations, IEEE
// float/double adds and multiplies (never contracted: see Mul/Add below) and exact conversions,
// so host and device produce bit-identical results.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TAGMASK_HD __host__ __device__ __forceinline__
#else
#define TAGMASK_HD inline
#endif

namespace tagmask::maskmath {

/// Element types of logits.
enum class DType : int32_t { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

constexpr uint32_t kF32NegInfBits = 0xFF800000u;
constexpr uint16_t kF16NegInfBits = 0xFC00u;
constexpr uint16_t kBF16NegInfBits = 0xFF80u;

/// Bytes per element of `dtype`.
TAGMASK_HD uint32_t ElementBytes(DType dtype) { return dtype == DType::kFloat32 ? 4u : 2u; }

// ---- bits of the mask ------------------------------------------------------------------

/// Whether token `i` is allowed by a bitmask row covering `vocab` tokens. Bits at or past
/// `vocab` (the unused tail of the last word, and anything beyond) count as disallowed.
TAGMASK_HD bool Allowed(const int32_t* mask_row, uint32_t i, uint32_t vocab) {
  return i < vocab && ((static_cast<uint32_t>(mask_row[i >> 5]) >> (i & 31u)) & 1u) != 0;
}

/// The allow bits of `count` consecutive tokens starting at `first`, bit j for token first+j.
/// `count` is 1, 2, 4, 8, 16 or 32 and `first` a multiple of it (a chunk never straddles a
/// word). Tokens at or past `vocab` get 0.
TAGMASK_HD uint32_t ChunkBits(const int32_t* mask_row, uint32_t first, uint32_t count, uint32_t vocab) {
  if (first >= vocab) return 0;
  const uint32_t full = count == 32 ? 0xFFFFFFFFu : ((1u << count) - 1u);
  uint32_t bits = (static_cast<uint32_t>(mask_row[first >> 5]) >> (first & 31u)) & full;
  const uint32_t left = vocab - first;
  if (left < count) bits &= (1u << left) - 1u;
  return bits;
}

/// The mask row a reference names (docs/masking.md, "Resident masks"): row `ref` of the
/// resident store when ref >= 0, else row ~ref (= -1 - ref) of the compact rows.
TAGMASK_HD const int32_t* ResolveMaskRef(int32_t ref, const int32_t* store, const int32_t* compact, uint64_t words) {
  return ref >= 0 ? store + static_cast<uint64_t>(ref) * words : compact + static_cast<uint64_t>(~ref) * words;
}

// ---- element conversions ---------------------------------------------------------------

TAGMASK_HD uint32_t FloatBits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

TAGMASK_HD float BitsFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

/// bfloat16 bits → float (exact).
TAGMASK_HD float BF16ToFloat(uint16_t h) { return BitsFloat(static_cast<uint32_t>(h) << 16); }

/// IEEE half bits → float (exact), subnormals, infinities and NaN included.
TAGMASK_HD float F16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return BitsFloat(sign | 0x7F800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return BitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return BitsFloat(sign);  // ±0
  // Subnormal half: normalize into a float.
  uint32_t e = 113u;
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return BitsFloat(sign | (e << 23) | ((mant & 0x3FFu) << 13));
}

/// Element `i` of a row of `dtype` as float.
TAGMASK_HD float LoadAsFloat(const void* row, DType dtype, uint32_t i) {
  switch (dtype) {
    case DType::kFloat32: return static_cast<const float*>(row)[i];
    case DType::kFloat16: return F16ToFloat(static_cast<const uint16_t*>(row)[i]);
    case DType::kBFloat16: return BF16ToFloat(static_cast<const uint16_t*>(row)[i]);
  }
  return 0.0f;
}

/// Sets element `i` of a row of `dtype` to -infinity.
TAGMASK_HD void StoreNegInf(void* row, DType dtype, uint32_t i) {
  if (dtype == DType::kFloat32) {
    static_cast<uint32_t*>(row)[i] = kF32NegInfBits;
  } else {
    static_cast<uint16_t*>(row)[i] = dtype == DType::kFloat16 ? kF16NegInfBits : kBF16NegInfBits;
  }
}

/// A key whose unsigned order is the numeric order of floats (-inf lowest number; -0 and +0
/// equal); NaN gets 0, below everything, so a NaN logit is never preferred to a number.
TAGMASK_HD uint32_t OrderedKey(float x) {
  uint32_t u = FloatBits(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0;  // NaN
  if (u == 0x80000000u) u = 0;                     // -0 ranks as +0
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

TAGMASK_HD float KeyToFloat(uint32_t key) {
  return BitsFloat((key & 0x80000000u) != 0 ? (key & 0x7FFFFFFFu) : ~key);
}

// ---- arithmetic that is the same on host and device ------------------------------------

// nvcc fuses a*b+c into one rounding unless told not to; the host compiler (x86-64 without an
// FMA target) never does. The _rn intrinsics are never fused, so device results equal host ones.
TAGMASK_HD float Mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

TAGMASK_HD float Add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

TAGMASK_HD double MulD(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/// 2^t for t ≤ 0 (0 below 2^-126), accurate to a few ulp; the same bits on host and device.
TAGMASK_HD float Exp2NonPositive(float t) {
  if (!(t > -126.0f)) return 0.0f;  // also NaN
  if (t >= 0.0f) return 1.0f;
  // t = n + f with n = floor(t), f in [0, 1).
  const int32_t n = static_cast<int32_t>(t) - ((static_cast<float>(static_cast<int32_t>(t)) != t) ? 1 : 0);
  const float f = Add(t, static_cast<float>(-n));
  // 2^f on [0, 1): degree-5 polynomial in Horner form, a least-squares fit of the relative
  // error at Chebyshev nodes; evaluated in float its relative error stays below 2e-7.
  float p = 1.876232913e-03f;
  p = Add(Mul(p, f), 8.992584422e-03f);
  p = Add(Mul(p, f), 5.582360551e-02f);
  p = Add(Mul(p, f), 2.401545346e-01f);
  p = Add(Mul(p, f), 6.931529641e-01f);
  p = Add(Mul(p, f), 9.999999404e-01f);
  // Scale by 2^n (n in [-126, -1]): exact, the exponent field stays normal.
  return Mul(p, BitsFloat(static_cast<uint32_t>(n + 127) << 23));
}

/// Fixed-point sampling weight of a logit: exp((x - max) / temperature) scaled by 2^32 and
/// truncated. Integer weights make every sum exact and order-independent, so a parallel sum on
/// the GPU equals the CPU's sequential one. Tokens whose probability relative to the best token
/// is below 2^-32 get weight 0.
TAGMASK_HD uint64_t Weight(float x, float max, float inv_temperature) {
  constexpr float kLog2e = 1.44269504f;
  const float z = Mul(Mul(Add(x, -max), inv_temperature), kLog2e);  // ≤ 0; NaN for x NaN
  const float e = Exp2NonPositive(z);
  return static_cast<uint64_t>(Mul(e, 4294967296.0f));
}

/// The high 64 bits of a 64×64-bit product: maps a uniform 64-bit draw onto [0, bound).
TAGMASK_HD uint64_t MulHi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// SplitMix64 finalizer: a well-mixed 64-bit value from a counter.
TAGMASK_HD uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The random draw of one row: a function of the seed and the logits row only, so a sequence's
/// draws do not depend on which other rows are in the batch.
TAGMASK_HD uint64_t RowDraw(uint64_t seed, uint32_t row) {
  return Mix64(seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(row) + 1u));
}

/// The mass target for top-p: ceil(p * total), at least 1, at most total.
TAGMASK_HD uint64_t TopPTarget(float top_p, uint64_t total) {
  const double want = MulD(static_cast<double>(top_p), static_cast<double>(total));
  uint64_t target = static_cast<uint64_t>(want);
  if (static_cast<double>(target) < want) ++target;
  if (target == 0) target = 1;
  if (target > total) target = total;
  return target;
}

/// One step of a descending radix select over 8-bit digits: given the 256 bucket totals of the
/// candidates (counts or masses) and how much is still wanted, picks the bucket where the
/// running total from the top reaches `wanted` and reduces `wanted` by what lies above it.
/// Returns the digit.
TAGMASK_HD uint32_t SelectDigit(const uint64_t* buckets, uint64_t& wanted) {
  uint64_t above = 0;
  for (uint32_t b = 256; b-- > 0;) {
    if (above + buckets[b] >= wanted) {
      wanted -= above;
      return b;
    }
    above += buckets[b];
  }
  return 0;  // unreachable when wanted ≤ the total of the buckets
}

/// Sampling parameters of one row.
struct SampleParams {
  /// 0 means greedy (argmax); otherwise > 0.
  float temperature;
  /// Keep the k highest logits (ties kept); ≤ 0 means no limit.
  int32_t top_k;
  /// Keep the smallest set of highest logits whose probability reaches top_p (ties kept);
  /// ≥ 1 means no limit.
  float top_p;
  uint64_t seed;
};

}  // namespace tagmask::maskmath
