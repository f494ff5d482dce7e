// CPU masking entry points (applyTokenBitmask, maskedArgmax, maskedSample) and the parsing of
// their shape options, which the CUDA binding reuses for device logits.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tagmask/apply_mask.h"

namespace tagmask::binding {

/// Shape options shared by CPU and device masking: vocabSize (required), columns, stride, rows,
/// indices, compactBitmask. Index values are copied into `index_storage` when they come as a
/// plain JS array; an Int32Array is used in place.
void ParseMaskShape(Napi::Env env, const Napi::Value& options, const char* what, MaskedLogits& out,
                    std::vector<int32_t>& index_storage);

/// Only the row selection options: indices and compactBitmask (options may be undefined).
void ParseIndices(const Napi::Value& options, const char* what, MaskedLogits& out, std::vector<int32_t>& index_storage);

/// Sampling parameters for `rows` rows from options (temperature, topK, topP, seed; each a
/// number or a per-row typed array).
std::vector<SampleParams> ParseSampleParams(const Napi::Value& options, const char* what, size_t rows);

/// "float32" | "float16" | "bfloat16" from options.dtype, checked against the element size.
DType ParseDType(const Napi::Value& options, const char* what, size_t element_bytes);

Napi::Value ApplyTokenBitmaskJs(const Napi::CallbackInfo& info);
Napi::Value MaskedArgmaxJs(const Napi::CallbackInfo& info);
Napi::Value MaskedSampleJs(const Napi::CallbackInfo& info);
/// applyMaskIsa(): the instruction set in use; applyMaskIsa(name) forces one (tests).
Napi::Value ApplyMaskIsaJs(const Napi::CallbackInfo& info);

}  // namespace tagmask::binding
