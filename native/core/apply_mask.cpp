#include "tagmask/apply_mask.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>

#include "tagmask/error.h"
#include "tagmask/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TAGMASK_X86_DISPATCH 1
#include <immintrin.h>
#endif

namespace tagmask {

using maskmath::kBF16NegInfBits;
using maskmath::kF16NegInfBits;
using maskmath::kF32NegInfBits;

namespace {

[[noreturn]] void Fail(const char* what, const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, std::string(what) + ": " + message);
}

std::string Str(size_t v) { return std::to_string(v); }

// a * b, or SIZE_MAX when it overflows (then every "at least" check fails with the message).
size_t MulSat(size_t a, size_t b) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a) return std::numeric_limits<size_t>::max();
  return a * b;
}

uint16_t NegInf16(DType dtype) { return dtype == DType::kFloat16 ? kF16NegInfBits : kBF16NegInfBits; }

// Sets row[from, to) to -inf.
void FillNegInf(DType dtype, void* row, size_t from, size_t to) {
  if (from >= to) return;
  if (dtype == DType::kFloat32) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    std::fill(static_cast<float*>(row) + from, static_cast<float*>(row) + to, neg_inf);
  } else {
    std::fill(static_cast<uint16_t*>(row) + from, static_cast<uint16_t*>(row) + to, NegInf16(dtype));
  }
}

// The last, partial word of the covered vocabulary and the uncovered columns, one element at a
// time: at most 31 + (columns - vocab) elements, shared by every instruction set.
void MaskTail(DType dtype, void* row, const int32_t* mask_row, size_t vocab, size_t columns) {
  const size_t full_words = vocab / 32;
  for (size_t i = full_words * 32; i < vocab; ++i) {
    if (!maskmath::Allowed(mask_row, static_cast<uint32_t>(i), static_cast<uint32_t>(vocab))) {
      maskmath::StoreNegInf(row, dtype, static_cast<uint32_t>(i));
    }
  }
  FillNegInf(dtype, row, vocab, columns);
}

// ---- scalar (any CPU) --------------------------------------------------------------------

template <typename T>
void MaskWordsScalar(T* row, const int32_t* mask_row, size_t words, T neg_inf) {
  for (size_t w = 0; w < words; ++w) {
    const uint32_t m = static_cast<uint32_t>(mask_row[w]);
    if (m == 0xFFFFFFFFu) continue;  // everything allowed: nothing to touch
    T* p = row + w * 32;
    if (m == 0) {
      for (int j = 0; j < 32; ++j) p[j] = neg_inf;  // nothing allowed: write, never read
      continue;
    }
    // Branch-free select on the raw bits, so the compiler can vectorize it with the baseline
    // instruction set (SSE2, NEON).
    for (int j = 0; j < 32; ++j) {
      const T keep = static_cast<T>(0) - static_cast<T>((m >> j) & 1u);
      p[j] = static_cast<T>((p[j] & keep) | (neg_inf & static_cast<T>(~keep)));
    }
  }
}

void MaskWordsScalarAny(DType dtype, void* row, const int32_t* mask_row, size_t words) {
  if (dtype == DType::kFloat32) {
    MaskWordsScalar<uint32_t>(static_cast<uint32_t*>(row), mask_row, words, kF32NegInfBits);
  } else {
    MaskWordsScalar<uint16_t>(static_cast<uint16_t*>(row), mask_row, words, NegInf16(dtype));
  }
}

#ifdef TAGMASK_X86_DISPATCH

// ---- AVX2 --------------------------------------------------------------------------------

__attribute__((target("avx2"))) void MaskWordsAvx2F32(float* row, const int32_t* mask_row, size_t words) {
  const __m256 neg_inf = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(kF32NegInfBits)));
  const __m256i lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  for (size_t w = 0; w < words; ++w) {
    const uint32_t m = static_cast<uint32_t>(mask_row[w]);
    if (m == 0xFFFFFFFFu) continue;
    float* p = row + w * 32;
    if (m == 0) {
      for (int q = 0; q < 4; ++q) _mm256_storeu_ps(p + 8 * q, neg_inf);
      continue;
    }
    for (int q = 0; q < 4; ++q) {
      const uint32_t byte = (m >> (8 * q)) & 0xFFu;
      if (byte == 0xFFu) continue;
      if (byte == 0) {
        _mm256_storeu_ps(p + 8 * q, neg_inf);
        continue;
      }
      // Lanes whose bit is 0 become all-ones and take -inf in the blend.
      const __m256i bits = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(byte)), lane_bits);
      const __m256 drop = _mm256_castsi256_ps(_mm256_cmpeq_epi32(bits, _mm256_setzero_si256()));
      _mm256_storeu_ps(p + 8 * q, _mm256_blendv_ps(_mm256_loadu_ps(p + 8 * q), neg_inf, drop));
    }
  }
}

__attribute__((target("avx2"))) void MaskWordsAvx2U16(uint16_t* row, const int32_t* mask_row, size_t words,
                                                      uint16_t neg_inf_bits) {
  const __m256i neg_inf = _mm256_set1_epi16(static_cast<short>(neg_inf_bits));
  const __m256i lane_bits = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                              16384, static_cast<short>(0x8000));
  for (size_t w = 0; w < words; ++w) {
    const uint32_t m = static_cast<uint32_t>(mask_row[w]);
    if (m == 0xFFFFFFFFu) continue;
    uint16_t* p = row + w * 32;
    for (int h = 0; h < 2; ++h) {
      const uint32_t half = (m >> (16 * h)) & 0xFFFFu;
      __m256i* dst = reinterpret_cast<__m256i*>(p + 16 * h);
      if (half == 0xFFFFu) continue;
      if (half == 0) {
        _mm256_storeu_si256(dst, neg_inf);
        continue;
      }
      const __m256i bits = _mm256_and_si256(_mm256_set1_epi16(static_cast<short>(half)), lane_bits);
      const __m256i drop = _mm256_cmpeq_epi16(bits, _mm256_setzero_si256());
      _mm256_storeu_si256(dst, _mm256_blendv_epi8(_mm256_loadu_si256(dst), neg_inf, drop));
    }
  }
}

// ---- AVX-512 -----------------------------------------------------------------------------
// Masked stores write -inf exactly into the lanes whose bit is 0 and never read the logits, so
// mixed words cost a store, not a read-modify-write.

__attribute__((target("avx512f,avx512bw"))) void MaskWordsAvx512F32(float* row, const int32_t* mask_row,
                                                                    size_t words) {
  const __m512 neg_inf = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(kF32NegInfBits)));
  for (size_t w = 0; w < words; ++w) {
    const uint32_t m = static_cast<uint32_t>(mask_row[w]);
    if (m == 0xFFFFFFFFu) continue;
    const uint32_t drop = ~m;
    _mm512_mask_storeu_ps(row + w * 32, static_cast<__mmask16>(drop & 0xFFFFu), neg_inf);
    _mm512_mask_storeu_ps(row + w * 32 + 16, static_cast<__mmask16>(drop >> 16), neg_inf);
  }
}

__attribute__((target("avx512f,avx512bw"))) void MaskWordsAvx512U16(uint16_t* row, const int32_t* mask_row,
                                                                    size_t words, uint16_t neg_inf_bits) {
  const __m512i neg_inf = _mm512_set1_epi16(static_cast<short>(neg_inf_bits));
  for (size_t w = 0; w < words; ++w) {
    const uint32_t m = static_cast<uint32_t>(mask_row[w]);
    if (m == 0xFFFFFFFFu) continue;
    _mm512_mask_storeu_epi16(row + w * 32, static_cast<__mmask32>(~m), neg_inf);
  }
}

#endif  // TAGMASK_X86_DISPATCH

enum class Isa : int { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

bool CpuHas(Isa isa) noexcept {
#ifdef TAGMASK_X86_DISPATCH
  switch (isa) {
    case Isa::kScalar: return true;
    case Isa::kAvx2: return __builtin_cpu_supports("avx2");
    case Isa::kAvx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  }
  return false;
#else
  return isa == Isa::kScalar;
#endif
}

Isa BestIsa() noexcept {
  if (CpuHas(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuHas(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kScalar;
}

std::atomic<int>& ActiveIsa() {
  static std::atomic<int> isa{static_cast<int>(BestIsa())};
  return isa;
}

void MaskWords(DType dtype, void* row, const int32_t* mask_row, size_t words) {
  switch (static_cast<Isa>(ActiveIsa().load(std::memory_order_relaxed))) {
#ifdef TAGMASK_X86_DISPATCH
    case Isa::kAvx512:
      if (dtype == DType::kFloat32) {
        MaskWordsAvx512F32(static_cast<float*>(row), mask_row, words);
      } else {
        MaskWordsAvx512U16(static_cast<uint16_t*>(row), mask_row, words, NegInf16(dtype));
      }
      return;
    case Isa::kAvx2:
      if (dtype == DType::kFloat32) {
        MaskWordsAvx2F32(static_cast<float*>(row), mask_row, words);
      } else {
        MaskWordsAvx2U16(static_cast<uint16_t*>(row), mask_row, words, NegInf16(dtype));
      }
      return;
#endif
    default:
      MaskWordsScalarAny(dtype, row, mask_row, words);
      return;
  }
}

// Below this many logits in a batch, waking helper threads costs more than it saves.
constexpr size_t kParallelMinElements = size_t{1} << 20;

}  // namespace

void MaskedLogits::Validate(const char* what) {
  if (logits == nullptr && logits_length != 0) Fail(what, "logits buffer is missing");
  if (vocab == 0) Fail(what, "vocabSize must be a positive integer (the number of tokens the bitmask covers)");
  if (vocab > 0x7FFFFFFFu) Fail(what, "vocabSize " + Str(vocab) + " is too large (at most 2^31 - 1)");
  if (columns == 0) columns = stride != 0 ? stride : vocab;
  if (stride == 0) stride = columns;
  if (columns < vocab) {
    Fail(what, "columns (" + Str(columns) + ") must be at least vocabSize (" + Str(vocab) +
                   "): each logits row has to hold every token the bitmask covers");
  }
  if (stride < columns) Fail(what, "stride (" + Str(stride) + ") must be at least columns (" + Str(columns) + ")");
  if (rows == 0) {
    if (logits_length == 0 || logits_length % stride != 0) {
      Fail(what, "logits has " + Str(logits_length) + " values, not a positive multiple of the row stride " +
                     Str(stride) + "; pass rows to say how many rows it holds");
    }
    rows = logits_length / stride;
  } else {
    const size_t need = MulSat(rows - 1, stride) + columns;
    if (logits_length < need) {
      Fail(what, "logits must hold at least (rows-1)*stride+columns = (" + Str(rows) + "-1)*" + Str(stride) + "+" +
                     Str(columns) + " = " + Str(need) + " values, got " + Str(logits_length));
    }
  }
  if (rows > 0x7FFFFFFFu) Fail(what, "too many rows (" + Str(rows) + ")");
  size_t mask_rows = rows;
  if (has_indices) {
    if (num_indices > 0 && indices == nullptr) Fail(what, "indices buffer is missing");
    size_t max_row = 0;
    for (size_t k = 0; k < num_indices; ++k) {
      const int32_t r = indices[k];
      if (r < 0 || static_cast<size_t>(r) >= rows) {
        Fail(what, "indices[" + Str(k) + "] = " + std::to_string(r) + " is not a logits row (expected 0 <= row < " +
                       Str(rows) + ")");
      }
      max_row = std::max(max_row, static_cast<size_t>(r));
    }
    mask_rows = compact_bitmask ? num_indices : (num_indices == 0 ? 0 : max_row + 1);
  }
  this->mask_rows = mask_rows;
  const size_t words = MaskWords();
  if (has_refs) {
    ValidateRefs(what);
    return;
  }
  const size_t need_words = MulSat(mask_rows, words);
  if (bitmask == nullptr && need_words != 0) Fail(what, "bitmask buffer is missing");
  if (bitmask_length < need_words) {
    Fail(what, "bitmask must have at least " + Str(mask_rows) + "*" + Str(words) + " = " + Str(need_words) +
                   " int32 words (" + Str(mask_rows) + " rows of ceil(" + Str(vocab) + "/32) = " + Str(words) +
                   " words), got " + Str(bitmask_length));
  }
}

void MaskedLogits::ValidateRefs(const char* what) {
  const size_t words = MaskWords();
  if (num_refs < mask_rows) {
    Fail(what, "refs must have at least " + Str(mask_rows) + " entries (one per bitmask row the processed rows use), got " +
                   Str(num_refs));
  }
  if (num_refs > 0 && refs == nullptr) Fail(what, "refs buffer is missing");
  if (store == nullptr && store_length != 0) Fail(what, "mask store buffer is missing");
  if (store_length % words != 0) {
    Fail(what, "the mask store has " + Str(store_length) + " words, not whole rows of ceil(" + Str(vocab) + "/32) = " +
                   Str(words) + " words: it was built for another vocabulary");
  }
  const size_t stored = store_length / words;
  const size_t compact = bitmask == nullptr ? 0 : bitmask_length / words;
  for (size_t k = 0; k < WorkRows(); ++k) {
    const size_t r = MaskRow(k);
    const int32_t ref = refs[r];
    if (ref >= 0 && static_cast<size_t>(ref) >= stored) {
      Fail(what, "refs[" + Str(r) + "] = " + std::to_string(ref) + " is not a row of the mask store (expected 0 <= ref < " +
                     Str(stored) + ", or a negative ref ~k for compact row k)");
    }
    if (ref < 0 && static_cast<size_t>(~ref) >= compact) {
      Fail(what, "refs[" + Str(r) + "] = " + std::to_string(ref) + " names compact row " + Str(static_cast<size_t>(~ref)) +
                     " but the bitmask holds " + Str(compact) + " compact rows of " + Str(words) + " words (" +
                     Str(bitmask_length) + " words)");
    }
  }
}

void ApplyTokenBitmaskRow(DType dtype, void* row, const int32_t* mask_row, size_t vocab, size_t columns) {
  MaskWords(dtype, row, mask_row, vocab / 32);
  MaskTail(dtype, row, mask_row, vocab, columns);
}

void ApplyTokenBitmaskRowReference(DType dtype, void* row, const int32_t* mask_row, size_t vocab, size_t columns) {
  for (size_t i = 0; i < columns; ++i) {
    const bool allowed = i < vocab && ((static_cast<uint32_t>(mask_row[i / 32]) >> (i % 32)) & 1u) != 0;
    if (allowed) continue;
    if (dtype == DType::kFloat32) {
      static_cast<float*>(row)[i] = -std::numeric_limits<float>::infinity();
    } else {
      static_cast<uint16_t*>(row)[i] = NegInf16(dtype);
    }
  }
}

void ApplyTokenBitmask(const MaskedLogits& batch) {
  const size_t work = batch.WorkRows();
  auto one = [&batch](size_t k) {
    ApplyTokenBitmaskRow(batch.dtype, batch.RowPointer(batch.LogitsRow(k)), batch.MaskFor(k), batch.vocab,
                         batch.columns);
  };
  if (work < 2 || MulSat(work, batch.columns) < kParallelMinElements) {
    for (size_t k = 0; k < work; ++k) one(k);
    return;
  }
  std::shared_ptr<ThreadPool> pool = SharedThreadPool();
  pool->ParallelFor(work, 1, [&one](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) one(k);
  });
}

const char* ApplyMaskIsa() noexcept {
  switch (static_cast<Isa>(ActiveIsa().load(std::memory_order_relaxed))) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    case Isa::kScalar: return "scalar";
  }
  return "scalar";
}

bool SetApplyMaskIsa(const char* isa) noexcept {
  Isa wanted;
  if (std::strcmp(isa, "auto") == 0) {
    wanted = BestIsa();
  } else if (std::strcmp(isa, "avx512") == 0) {
    wanted = Isa::kAvx512;
  } else if (std::strcmp(isa, "avx2") == 0) {
    wanted = Isa::kAvx2;
  } else if (std::strcmp(isa, "scalar") == 0) {
    wanted = Isa::kScalar;
  } else {
    return false;
  }
  if (!CpuHas(wanted)) return false;
  ActiveIsa().store(static_cast<int>(wanted), std::memory_order_relaxed);
  return true;
}

}  // namespace tagmask
