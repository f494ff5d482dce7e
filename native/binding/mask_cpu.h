// CPU masking entry points (applyTokenBitmask, maskedArgmax, maskedSample) and the parsing of
// the options that the CUDA binding shares for device logits: the row selection, the sampling
// parameters and the dtype names. Options are read in two phases (js_args.h): Read* runs the
// option getters and keeps typed arrays unpinned; Pin* takes their memory once nothing else
// can run JS.
#pragma once

#include <napi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "js_args.h"
#include "tagmask/apply_mask.h"

namespace tagmask::binding {

/// The row selection options, read: options.indices (an Int32Array kept for pinning, or a plain
/// array's values) and options.compactBitmask.
struct RowSelectionArgs {
  bool has_indices = false;
  bool compact = false;
  std::optional<TypedArrayArg> typed;
  std::vector<int32_t> values;  // a plain array's indices; also the private copy of shared ones
};

/// Phase 1: reads options.indices and options.compactBitmask (options may be undefined).
RowSelectionArgs ReadRowSelection(const Napi::Value& options, const char* what);

/// Phase 2: puts the selection into `out` (pointing into `args` or the pinned Int32Array).
void PinRowSelection(RowSelectionArgs& args, const char* what, MaskedLogits& out);

/// One sampling parameter as read: a number for every row, or a per-row typed array.
template <typename T>
struct PerRowArg {
  std::optional<T> value;
  std::optional<TypedArrayArg> array;
  std::optional<size_t> wrong_array;  // a typed array of another element type, and its length
};

/// The sampling options, read (temperature, topK, topP, seed).
struct SampleArgs {
  PerRowArg<float> temperature;
  PerRowArg<int32_t> top_k;
  PerRowArg<float> top_p;
  PerRowArg<uint64_t> seed;
};

/// Phase 1: reads and checks the sampling options.
SampleArgs ReadSampleParams(const Napi::Value& options, const char* what);

/// Phase 2: the parameters of `rows` rows (per-row arrays pinned and copied), validated.
std::vector<SampleParams> PinSampleParams(const SampleArgs& args, const char* what, size_t rows);

/// options.refs and options.maskStore of masking with resident masks (both or neither), read:
/// the refs Int32Array kept for pinning; `store` is the value of options.maskStore (a
/// DeviceMaskStore on the device; on the CPU a MaskStore object, whose words are kept for
/// pinning).
struct MaskRefsArgs {
  bool present = false;
  std::optional<TypedArrayArg> refs;
  Napi::Value store;
  std::optional<TypedArrayArg> store_words;  // CPU: options.maskStore.words
  uint64_t store_words_per_mask = 0;
  std::vector<int32_t> refs_copy;  // the private copy of refs on a SharedArrayBuffer
};

/// Phase 1: reads options.refs and options.maskStore; `cpu` reads the store's words too.
MaskRefsArgs ReadMaskRefs(const Napi::Value& options, const char* what, bool cpu);

/// Phase 2: the refs' memory. Refs are checked and then used as row numbers, so refs on a
/// SharedArrayBuffer are copied first.
TypedSpan<const int32_t> PinMaskRefs(MaskRefsArgs& args, const char* what);

/// The dtype a JS value names ("float32", "float16" or "bfloat16"); nothing for any other value.
std::optional<DType> DTypeNamed(const Napi::Value& name);

/// The JS name of a dtype.
const char* DTypeName(DType dtype);

Napi::Value ApplyTokenBitmaskJs(const Napi::CallbackInfo& info);
Napi::Value MaskedArgmaxJs(const Napi::CallbackInfo& info);
Napi::Value MaskedSampleJs(const Napi::CallbackInfo& info);
/// applyMaskIsa(): the instruction set in use; applyMaskIsa(name) forces one (tests).
Napi::Value ApplyMaskIsaJs(const Napi::CallbackInfo& info);

}  // namespace tagmask::binding
