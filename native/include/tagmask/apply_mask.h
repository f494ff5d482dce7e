// Applying token bitmasks to logits on the CPU, and the masked argmax / masked sampling that
// the CUDA kernels implement (these CPU versions are their reference: same arguments, same
// results, built on the same per-element functions in tagmask/mask_math.h).
//
// Layout (DESIGN.md): a bitmask row has ceil(vocab/32) int32 words, token t is bit t&31 of
// word t>>5, 1 = allowed. A logits row has `columns` values; values at or past `vocab` (padding
// columns the mask does not cover) are treated as disallowed. Rows are `stride` elements apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tagmask/mask_math.h"

namespace tagmask {

using maskmath::DType;
using maskmath::SampleParams;

/// A batch of logits and the bitmask rows that go with it, as the caller passed them. Validate()
/// fills in the defaults and checks every size before anything is touched.
struct MaskedLogits {
  DType dtype = DType::kFloat32;
  void* logits = nullptr;
  size_t logits_length = 0;  // elements in the logits buffer
  // Shape. 0 = default: columns = stride, or vocab; stride = columns; rows = length / stride.
  size_t rows = 0;
  size_t columns = 0;
  size_t stride = 0;
  size_t vocab = 0;  // tokens the bitmask covers (required, ≥ 1, ≤ columns)
  const int32_t* bitmask = nullptr;
  size_t bitmask_length = 0;  // int32 words in the bitmask buffer
  // Optional rows to process. By default row r of the logits uses bitmask row r (xgrammar's
  // convention); with compact_bitmask, logits row indices[k] uses bitmask row k.
  const int32_t* indices = nullptr;
  size_t num_indices = 0;
  bool has_indices = false;
  bool compact_bitmask = false;
  // Resident masks (docs/masking.md): with refs, a work row's mask is found through its ref,
  // refs[MaskRow(k)]: row `ref` of `store` when ref >= 0, else row ~ref of `bitmask` (the
  // compact rows). One ref per bitmask row the work rows use, in place of the row itself.
  const int32_t* refs = nullptr;
  size_t num_refs = 0;
  bool has_refs = false;
  const int32_t* store = nullptr;
  size_t store_length = 0;  // int32 words in the store: its rows times MaskWords()
  // Set by Validate(): the bitmask rows (or refs) the work rows use.
  size_t mask_rows = 0;

  /// Words per bitmask row: ceil(vocab / 32).
  size_t MaskWords() const noexcept { return (vocab + 31) / 32; }
  /// Rows processed: num_indices with indices, else rows.
  size_t WorkRows() const noexcept { return has_indices ? num_indices : rows; }
  /// The logits row and bitmask row of work item k.
  size_t LogitsRow(size_t k) const noexcept { return has_indices ? static_cast<size_t>(indices[k]) : k; }
  size_t MaskRow(size_t k) const noexcept { return has_indices && !compact_bitmask ? static_cast<size_t>(indices[k]) : k; }
  void* RowPointer(size_t row) const noexcept {
    return static_cast<char*>(logits) + row * stride * maskmath::ElementBytes(dtype);
  }
  const int32_t* MaskPointer(size_t mask_row) const noexcept { return bitmask + mask_row * MaskWords(); }
  /// The mask row of work item k (through its ref with refs).
  const int32_t* MaskFor(size_t k) const noexcept {
    const size_t r = MaskRow(k);
    return has_refs ? maskmath::ResolveMaskRef(refs[r], store, bitmask, MaskWords()) : MaskPointer(r);
  }

  /// Resolves defaults and checks every size and index; throws Error(InvalidArgument) with a
  /// message stating the expected size. `what` names the calling function in messages.
  void Validate(const char* what);

 private:
  void ValidateRefs(const char* what);
};

/// Sets every disallowed logit (and every column at or past vocab) to -infinity, in place.
/// Call Validate() first. Large batches are split over the shared thread pool.
void ApplyTokenBitmask(const MaskedLogits& batch);

/// Masks one row (`columns` values, the first `vocab` covered by `mask_row`). Vectorized with
/// AVX-512 or AVX2 where the CPU has them: words allowing everything are skipped, words allowing
/// nothing are written without being read.
void ApplyTokenBitmaskRow(DType dtype, void* row, const int32_t* mask_row, size_t vocab, size_t columns);

/// The plain reference loop (one element at a time); tests compare the vectorized path with it.
void ApplyTokenBitmaskRowReference(DType dtype, void* row, const int32_t* mask_row, size_t vocab, size_t columns);

/// The instruction set ApplyTokenBitmaskRow uses on this CPU: "avx512", "avx2" or "scalar".
const char* ApplyMaskIsa() noexcept;

/// Forces an instruction set for tests ("avx512", "avx2", "scalar" or "auto"); returns false
/// when this CPU lacks it (nothing changes then).
bool SetApplyMaskIsa(const char* isa) noexcept;

/// Masked argmax per work row: the allowed token with the highest logit (the lowest id among
/// ties; NaN ranks below every number), or -1 when the row allows nothing. `out` has
/// WorkRows() entries. Logits are not modified.
void MaskedArgmax(const MaskedLogits& batch, int32_t* out);

/// Masked sampling per work row with `params[k]` (see SampleParams): temperature 0 is the
/// argmax; top-k then top-p restrict the candidates (ties at a threshold kept); the draw is
/// RowDraw(seed, logits row). -1 when the row allows nothing. Logits are not modified.
/// Allocation: a per-thread scratch buffer of `columns` weights, grown once.
void MaskedSample(const MaskedLogits& batch, const SampleParams* params, int32_t* out);

/// Checks one row's sampling parameters; throws Error(InvalidArgument) naming row `k`.
void ValidateSampleParams(const SampleParams& params, size_t k);

}  // namespace tagmask
