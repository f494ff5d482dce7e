// CPU masking entry points (applyTokenBitmask, maskedArgmax, maskedSample) and the parsing of
// the options that the CUDA binding shares for device logits: the row selection, the sampling
// parameters and the dtype names.
#pragma once

#include <napi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tagmask/apply_mask.h"

namespace tagmask::binding {

/// The row selection options: indices and compactBitmask (options may be undefined). Index
/// values are copied into `index_storage` when they come as a plain JS array; an Int32Array is
/// used in place.
void ParseIndices(const Napi::Value& options, const char* what, MaskedLogits& out, std::vector<int32_t>& index_storage);

/// options.refs and options.maskStore of masking with resident masks, as read from the options
/// (no pointer taken yet). `store` is the value of options.maskStore: a MaskStore object
/// ({ words, wordsPerMask }) on the CPU, a DeviceMaskStore on the device.
struct MaskRefsArgs {
  bool present = false;
  Napi::Value refs;
  Napi::Value store;
  Napi::Value store_words;  // CPU: options.maskStore.words
  uint64_t store_words_per_mask = 0;
};

/// Reads options.refs and options.maskStore (both or neither); `cpu` reads the store's words.
MaskRefsArgs ReadMaskRefs(const Napi::Value& options, const char* what, bool cpu);

/// The refs Int32Array of `args`: its data and length (no JS runs).
const int32_t* RefsData(const MaskRefsArgs& args, size_t* length);

/// Sampling parameters for `rows` rows from options (temperature, topK, topP, seed; each a
/// number or a per-row typed array).
std::vector<SampleParams> ParseSampleParams(const Napi::Value& options, const char* what, size_t rows);

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
