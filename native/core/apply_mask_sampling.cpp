// Masked argmax and masked sampling on the CPU: the reference for the fused CUDA kernels
// (cuda/sample_kernels.cu), which run the same passes with the same mask_math.h functions.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tagmask/apply_mask.h"
#include "tagmask/error.h"
#include "tagmask/thread_pool.h"

namespace tagmask {

using namespace maskmath;

namespace {

// Calls fn(i) for every allowed token i of a row, in increasing order, skipping zero words.
template <typename Fn>
void ForEachAllowed(const int32_t* mask_row, uint32_t vocab, Fn&& fn) {
  const uint32_t words = (vocab + 31) / 32;
  for (uint32_t w = 0; w < words; ++w) {
    uint32_t m = ChunkBits(mask_row, w * 32, 32, vocab);
    while (m != 0) {
      const uint32_t j = static_cast<uint32_t>(__builtin_ctz(m));
      fn(w * 32 + j);
      m &= m - 1;
    }
  }
}

struct RowView {
  DType dtype;
  const void* logits;
  const int32_t* mask;
  uint32_t vocab;
};

// Best key and its lowest id among allowed tokens; id -1 when none is allowed.
int32_t ArgmaxRow(const RowView& r, uint32_t* best_key_out, uint32_t* allowed_out) {
  int32_t best = -1;
  uint32_t best_key = 0;
  uint32_t allowed = 0;
  ForEachAllowed(r.mask, r.vocab, [&](uint32_t i) {
    const uint32_t key = OrderedKey(LoadAsFloat(r.logits, r.dtype, i));
    ++allowed;
    if (best < 0 || key > best_key) {
      best = static_cast<int32_t>(i);
      best_key = key;
    }
  });
  if (best_key_out) *best_key_out = best_key;
  if (allowed_out) *allowed_out = allowed;
  return best;
}

// Descending radix select over the keys of the candidates (allowed, key >= floor): the largest
// key `tau` such that the candidates with key >= tau reach `wanted`, counting each candidate
// as 1 (weights == nullptr) or as its weight.
uint32_t RadixSelect(const RowView& r, uint32_t floor, const uint64_t* weights, uint64_t wanted) {
  uint32_t prefix = 0;
  uint64_t buckets[256];
  for (int shift = 24; shift >= 0; shift -= 8) {
    std::fill(buckets, buckets + 256, uint64_t{0});
    const uint32_t high_shift = static_cast<uint32_t>(shift) + 8;
    ForEachAllowed(r.mask, r.vocab, [&](uint32_t i) {
      const uint32_t key = OrderedKey(LoadAsFloat(r.logits, r.dtype, i));
      if (key < floor) return;
      if (high_shift < 32 && (key >> high_shift) != (prefix >> high_shift)) return;
      buckets[(key >> shift) & 0xFFu] += weights == nullptr ? 1u : weights[i];
    });
    prefix |= SelectDigit(buckets, wanted) << shift;
  }
  return prefix;
}

int32_t SampleRow(const RowView& r, const SampleParams& p, uint32_t logits_row, std::vector<uint64_t>& scratch) {
  uint32_t best_key = 0;
  uint32_t allowed = 0;
  const int32_t argmax = ArgmaxRow(r, &best_key, &allowed);
  if (argmax < 0 || p.temperature == 0.0f) return argmax;
  const float max = KeyToFloat(best_key);
  // Every allowed logit is NaN or -inf: no distribution to sample from; the argmax is the
  // deterministic answer.
  if (best_key == 0 || std::isinf(max)) return argmax;

  uint32_t floor = 0;
  if (p.top_k > 0 && static_cast<uint32_t>(p.top_k) < allowed) {
    floor = RadixSelect(r, 0, nullptr, static_cast<uint64_t>(p.top_k));
  }
  if (scratch.size() < r.vocab) scratch.resize(r.vocab);
  const float inv_temperature = 1.0f / p.temperature;
  uint64_t total = 0;
  ForEachAllowed(r.mask, r.vocab, [&](uint32_t i) {
    const float x = LoadAsFloat(r.logits, r.dtype, i);
    const uint64_t q = OrderedKey(x) >= floor ? Weight(x, max, inv_temperature) : 0;
    scratch[i] = q;
    total += q;
  });
  if (p.top_p < 1.0f) {
    const uint32_t tau = RadixSelect(r, floor, scratch.data(), TopPTarget(p.top_p, total));
    if (tau > floor) {
      floor = tau;
      total = 0;
      ForEachAllowed(r.mask, r.vocab, [&](uint32_t i) {
        if (OrderedKey(LoadAsFloat(r.logits, r.dtype, i)) >= floor) total += scratch[i];
      });
    }
  }
  const uint64_t target = MulHi64(RowDraw(p.seed, logits_row), total);
  uint64_t acc = 0;
  int32_t chosen = -1;
  ForEachAllowed(r.mask, r.vocab, [&](uint32_t i) {
    if (chosen >= 0) return;
    if (OrderedKey(LoadAsFloat(r.logits, r.dtype, i)) < floor) return;
    acc += scratch[i];
    if (acc > target) chosen = static_cast<int32_t>(i);
  });
  // acc reaches total > target, so a token is always chosen; the argmax is a safe fallback.
  return chosen >= 0 ? chosen : argmax;
}

RowView View(const MaskedLogits& batch, size_t k) {
  return RowView{batch.dtype, batch.RowPointer(batch.LogitsRow(k)), batch.MaskFor(k),
                 static_cast<uint32_t>(batch.vocab)};
}

// Rows are independent: split them over the shared pool when the batch is large enough to pay
// for waking helpers.
template <typename Fn>
void ForEachRow(const MaskedLogits& batch, Fn&& fn) {
  const size_t work = batch.WorkRows();
  if (work < 2 || work * batch.vocab < (size_t{1} << 18)) {
    for (size_t k = 0; k < work; ++k) fn(k);
    return;
  }
  std::shared_ptr<ThreadPool> pool = SharedThreadPool();
  pool->ParallelFor(work, 1, [&fn](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) fn(k);
  });
}

}  // namespace

void ValidateSampleParams(const SampleParams& p, size_t k) {
  const std::string where = "sampling parameters of row " + std::to_string(k) + ": ";
  if (!std::isfinite(p.temperature) || p.temperature < 0.0f) {
    throw Error(ErrorCode::InvalidArgument,
                where + "temperature must be a finite number >= 0 (0 = greedy), got " + std::to_string(p.temperature));
  }
  if (p.top_k < 0) {
    throw Error(ErrorCode::InvalidArgument,
                where + "topK must be an integer >= 0 (0 = no limit), got " + std::to_string(p.top_k));
  }
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f)) {
    throw Error(ErrorCode::InvalidArgument,
                where + "topP must be in (0, 1] (1 = no limit), got " + std::to_string(p.top_p));
  }
}

void MaskedArgmax(const MaskedLogits& batch, int32_t* out) {
  ForEachRow(batch, [&](size_t k) { out[k] = ArgmaxRow(View(batch, k), nullptr, nullptr); });
}

void MaskedSample(const MaskedLogits& batch, const SampleParams* params, int32_t* out) {
  for (size_t k = 0; k < batch.WorkRows(); ++k) ValidateSampleParams(params[k], k);
  ForEachRow(batch, [&](size_t k) {
    // One scratch buffer per thread, grown to the largest vocabulary seen and then reused.
    thread_local std::vector<uint64_t> scratch;
    out[k] = SampleRow(View(batch, k), params[k], static_cast<uint32_t>(batch.LogitsRow(k)), scratch);
  });
}

}  // namespace tagmask
