#include "mask_cpu.h"

#include <string>

#include "errors.h"
#include "js_integer.h"

namespace tagmask::binding {
namespace {

std::string Describe(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsTypedArray()) return "a typed array";
  if (v.IsArray()) return "an array";
  if (v.IsString()) return "\"" + v.As<Napi::String>().Utf8Value() + "\"";
  return v.ToString().Utf8Value();
}

// options[name] as a size: undefined → fallback; otherwise a non-negative safe integer.
size_t SizeOption(const Napi::Object& options, const char* name, const char* what, size_t fallback) {
  Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return fallback;
  const std::optional<size_t> size = IntegerIn<size_t>(v, 0, kMaxSafeInteger);
  if (!size) {
    ThrowInvalidArgument(std::string(what) + ": options." + name + " must be a non-negative integer, got " + Describe(v));
  }
  return *size;
}

Napi::Object OptionsObject(const Napi::Value& options, const char* what) {
  if (!options.IsObject() || options.IsArray() || options.IsTypedArray()) {
    ThrowInvalidArgument(std::string(what) + ": options must be an object with at least vocabSize, got " +
                         Describe(options));
  }
  return options.As<Napi::Object>();
}

// "float32" | "float16" | "bfloat16" from options.dtype, checked against the element size.
DType ParseDType(const Napi::Value& options, const char* what, size_t element_bytes) {
  Napi::Value v = options.IsObject() ? options.As<Napi::Object>().Get("dtype") : Napi::Value();
  if (v.IsEmpty() || v.IsUndefined()) return element_bytes == 4 ? DType::kFloat32 : DType::kBFloat16;
  const std::optional<DType> dtype = DTypeNamed(v);
  if (!dtype) {
    ThrowInvalidArgument(std::string(what) + ": options.dtype must be \"float32\", \"float16\" or \"bfloat16\", got " +
                         Describe(v));
  }
  if (maskmath::ElementBytes(*dtype) != element_bytes) {
    ThrowInvalidArgument(std::string(what) + ": options.dtype is \"" + DTypeName(*dtype) + "\" but the logits array has " +
                         std::to_string(element_bytes) + "-byte elements (float32 needs a Float32Array, " +
                         "float16 and bfloat16 a Uint16Array)");
  }
  return *dtype;
}

// The logits typed array: Float32Array for float32, Uint16Array for float16 / bfloat16.
void ParseLogits(const Napi::Value& value, const Napi::Value& options, const char* what, MaskedLogits& out) {
  if (!value.IsTypedArray()) {
    ThrowInvalidArgument(std::string(what) + ": logits must be a Float32Array (float32) or a Uint16Array (bfloat16, " +
                         "float16), got " + Describe(value));
  }
  Napi::TypedArray array = value.As<Napi::TypedArray>();
  const napi_typedarray_type type = array.TypedArrayType();
  if (type != napi_float32_array && type != napi_uint16_array) {
    ThrowInvalidArgument(std::string(what) +
                         ": logits must be a Float32Array (float32) or a Uint16Array (bfloat16, float16)");
  }
  out.dtype = ParseDType(options, what, array.ElementSize());
  out.logits = static_cast<char*>(array.ArrayBuffer().Data()) + array.ByteOffset();
  out.logits_length = array.ElementLength();
}

void ParseBitmask(const Napi::Value& value, const char* what, MaskedLogits& out) {
  if (!value.IsTypedArray() || (value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array &&
                                value.As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)) {
    ThrowInvalidArgument(std::string(what) + ": bitmask must be an Int32Array of shape [rows, ceil(vocabSize/32)], got " +
                         Describe(value));
  }
  Napi::TypedArray array = value.As<Napi::TypedArray>();
  out.bitmask = reinterpret_cast<const int32_t*>(static_cast<char*>(array.ArrayBuffer().Data()) + array.ByteOffset());
  out.bitmask_length = array.ElementLength();
}

// Shape options of CPU masking: vocabSize (required), columns, stride, rows and the row selection.
void ParseMaskShape(const Napi::Value& options_value, const char* what, MaskedLogits& out,
                    std::vector<int32_t>& index_storage, MaskRefsArgs& refs) {
  Napi::Object options = OptionsObject(options_value, what);
  refs = ReadMaskRefs(options, what, true);
  Napi::Value vocab = options.Get("vocabSize");
  if (vocab.IsUndefined()) {
    ThrowInvalidArgument(std::string(what) + ": options.vocabSize is required (the number of tokens the bitmask covers)");
  }
  out.vocab = SizeOption(options, "vocabSize", what, 0);
  out.columns = SizeOption(options, "columns", what, 0);
  out.stride = SizeOption(options, "stride", what, 0);
  out.rows = SizeOption(options, "rows", what, 0);
  ParseIndices(options, what, out, index_storage);
}

// The (logits, bitmask, options) arguments of the CPU entry points, checked against each other.
void ParseBatch(const Napi::CallbackInfo& info, const char* what, MaskedLogits& batch,
                std::vector<int32_t>& index_storage) {
  MaskRefsArgs refs;
  ParseMaskShape(info[2], what, batch, index_storage, refs);
  ParseLogits(info[0], info[2], what, batch);
  ParseBitmask(info[1], what, batch);
  if (refs.present) {
    batch.has_refs = true;
    batch.refs = RefsData(refs, &batch.num_refs);
    Napi::TypedArray words = refs.store_words.As<Napi::TypedArray>();
    batch.store = reinterpret_cast<const int32_t*>(static_cast<char*>(words.ArrayBuffer().Data()) + words.ByteOffset());
    batch.store_length = words.ElementLength();
    if (refs.store_words_per_mask != batch.MaskWords()) {
      ThrowInvalidArgument(std::string(what) + ": options.maskStore has rows of " + std::to_string(refs.store_words_per_mask) +
                           " words but vocabSize " + std::to_string(batch.vocab) + " needs ceil(" +
                           std::to_string(batch.vocab) + "/32) = " + std::to_string(batch.MaskWords()) +
                           ": the store belongs to another vocabulary");
    }
  }
  batch.Validate(what);
}

bool IsInt32Array(const Napi::Value& v) {
  return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array;
}

// A number option for every row: a number (same for all) or a typed array of `rows` entries.
template <typename T, typename Read>
void PerRow(const Napi::Object& options, const char* name, const char* what, size_t rows, T fallback,
            napi_typedarray_type array_type, const char* array_name, Read read, std::vector<SampleParams>& params,
            T SampleParams::*field) {
  Napi::Value v = options.Get(name);
  if (v.IsUndefined()) {
    for (auto& p : params) p.*field = fallback;
    return;
  }
  if (v.IsTypedArray()) {
    Napi::TypedArray array = v.As<Napi::TypedArray>();
    if (array.TypedArrayType() != array_type || array.ElementLength() != rows) {
      ThrowInvalidArgument(std::string(what) + ": options." + name + " must be a number or a " + array_name + " of " +
                           std::to_string(rows) + " entries (one per row), got a typed array of " +
                           std::to_string(array.ElementLength()));
    }
    const char* base = static_cast<const char*>(array.ArrayBuffer().Data()) + array.ByteOffset();
    for (size_t k = 0; k < rows; ++k) params[k].*field = read(base, k);
    return;
  }
  T value{};
  if (v.IsNumber()) {
    value = static_cast<T>(v.As<Napi::Number>().DoubleValue());
  } else if (v.IsBigInt() && array_type == napi_biguint64_array) {
    bool lossless = false;
    value = static_cast<T>(v.As<Napi::BigInt>().Uint64Value(&lossless));
    if (!lossless) ThrowInvalidArgument(std::string(what) + ": options." + name + " must fit in 64 unsigned bits");
  } else {
    ThrowInvalidArgument(std::string(what) + ": options." + name + " must be a number or a " + array_name + ", got " +
                         Describe(v));
  }
  for (auto& p : params) p.*field = value;
}

}  // namespace

std::optional<DType> DTypeNamed(const Napi::Value& name) {
  const std::string text = name.IsString() ? name.As<Napi::String>().Utf8Value() : std::string();
  if (text == "float32") return DType::kFloat32;
  if (text == "float16") return DType::kFloat16;
  if (text == "bfloat16") return DType::kBFloat16;
  return std::nullopt;
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
  }
  return "float32";
}

void ParseIndices(const Napi::Value& options_value, const char* what, MaskedLogits& out,
                  std::vector<int32_t>& index_storage) {
  out.has_indices = false;
  out.compact_bitmask = false;
  if (options_value.IsUndefined()) return;
  Napi::Object options = OptionsObject(options_value, what);
  Napi::Value compact = options.Get("compactBitmask");
  if (!compact.IsUndefined() && !compact.IsBoolean()) {
    ThrowInvalidArgument(std::string(what) + ": options.compactBitmask must be a boolean, got " + Describe(compact));
  }
  out.compact_bitmask = compact.IsBoolean() && compact.As<Napi::Boolean>().Value();
  Napi::Value indices = options.Get("indices");
  if (indices.IsUndefined() || indices.IsNull()) {
    return;
  }
  out.has_indices = true;
  if (indices.IsTypedArray() && indices.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array) {
    Napi::TypedArray array = indices.As<Napi::TypedArray>();
    out.indices = reinterpret_cast<const int32_t*>(static_cast<char*>(array.ArrayBuffer().Data()) + array.ByteOffset());
    out.num_indices = array.ElementLength();
    return;
  }
  if (!indices.IsArray()) {
    ThrowInvalidArgument(std::string(what) + ": options.indices must be an Int32Array or an array of row numbers, got " +
                         Describe(indices));
  }
  Napi::Array array = indices.As<Napi::Array>();
  index_storage.resize(array.Length());
  for (uint32_t k = 0; k < array.Length(); ++k) {
    Napi::Value item = array.Get(k);
    const std::optional<int32_t> row = IntegerIn<int32_t>(item, 0, 2147483647.0);
    if (!row) {
      ThrowInvalidArgument(std::string(what) + ": options.indices[" + std::to_string(k) +
                           "] must be a non-negative integer row number, got " + Describe(item));
    }
    index_storage[k] = *row;
  }
  out.indices = index_storage.data();
  out.num_indices = index_storage.size();
}

MaskRefsArgs ReadMaskRefs(const Napi::Value& options_value, const char* what, bool cpu) {
  MaskRefsArgs args;
  if (!options_value.IsObject()) return args;
  Napi::Object options = options_value.As<Napi::Object>();
  args.refs = options.Get("refs");
  args.store = options.Get("maskStore");
  const bool has_refs = !args.refs.IsUndefined() && !args.refs.IsNull();
  const bool has_store = !args.store.IsUndefined() && !args.store.IsNull();
  if (!has_refs && !has_store) return args;
  if (!has_refs || !has_store) {
    ThrowInvalidArgument(std::string(what) + ": options.refs and options.maskStore go together (refs name rows of the " +
                         "store); got only options." + (has_refs ? "refs" : "maskStore"));
  }
  if (!IsInt32Array(args.refs)) {
    ThrowInvalidArgument(std::string(what) + ": options.refs must be an Int32Array (one ref per bitmask row, from " +
                         "BatchMatcher.fillMaskRefs), got " + Describe(args.refs));
  }
  if (cpu) {
    const char* shape = ": options.maskStore must be a mask store ({ count, wordsPerMask, words: Int32Array }, from "
                        "CompiledGrammar.maskStore())";
    if (!args.store.IsObject() || args.store.IsTypedArray()) ThrowInvalidArgument(std::string(what) + shape);
    Napi::Object store = args.store.As<Napi::Object>();
    args.store_words = store.Get("words");
    const std::optional<uint64_t> per_mask = IntegerIn<uint64_t>(store.Get("wordsPerMask"), 1, 0x7FFFFFFF);
    if (!IsInt32Array(args.store_words) || !per_mask) ThrowInvalidArgument(std::string(what) + shape);
    args.store_words_per_mask = *per_mask;
  }
  args.present = true;
  return args;
}

const int32_t* RefsData(const MaskRefsArgs& args, size_t* length) {
  Napi::TypedArray refs = args.refs.As<Napi::TypedArray>();
  *length = refs.ElementLength();
  return reinterpret_cast<const int32_t*>(static_cast<char*>(refs.ArrayBuffer().Data()) + refs.ByteOffset());
}

std::vector<SampleParams> ParseSampleParams(const Napi::Value& options_value, const char* what, size_t rows) {
  Napi::Object options = OptionsObject(options_value, what);
  // Scalars arrive as doubles: reject what a cast would silently change (or
  // what would be undefined behaviour to cast) before converting.
  Napi::Value topk = options.Get("topK");
  if (topk.IsNumber() && !IntegerIn<int32_t>(topk, 0, 2147483647.0)) {
    ThrowInvalidArgument(std::string(what) + ": options.topK must be an integer >= 0 (0 = no limit), got " + Describe(topk));
  }
  Napi::Value seed = options.Get("seed");
  if (seed.IsNumber() && !IntegerIn<uint64_t>(seed, 0, kMaxSafeInteger)) {
    ThrowInvalidArgument(std::string(what) + ": options.seed must be a non-negative safe integer or a bigint, got " +
                         Describe(seed));
  }
  std::vector<SampleParams> params(rows);
  PerRow<float>(options, "temperature", what, rows, 1.0f, napi_float32_array, "Float32Array",
                [](const char* base, size_t k) { return reinterpret_cast<const float*>(base)[k]; }, params,
                &SampleParams::temperature);
  PerRow<int32_t>(options, "topK", what, rows, 0, napi_int32_array, "Int32Array",
                  [](const char* base, size_t k) { return reinterpret_cast<const int32_t*>(base)[k]; }, params,
                  &SampleParams::top_k);
  PerRow<float>(options, "topP", what, rows, 1.0f, napi_float32_array, "Float32Array",
                [](const char* base, size_t k) { return reinterpret_cast<const float*>(base)[k]; }, params,
                &SampleParams::top_p);
  PerRow<uint64_t>(options, "seed", what, rows, 0, napi_biguint64_array, "BigUint64Array",
                   [](const char* base, size_t k) { return reinterpret_cast<const uint64_t*>(base)[k]; }, params,
                   &SampleParams::seed);
  for (size_t k = 0; k < rows; ++k) ValidateSampleParams(params[k], k);
  return params;
}

Napi::Value ApplyTokenBitmaskJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "applyTokenBitmask";
    MaskedLogits batch;
    std::vector<int32_t> indices;
    ParseBatch(info, what, batch, indices);
    ApplyTokenBitmask(batch);
    return env.Undefined();
  });
}

Napi::Value MaskedArgmaxJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "maskedArgmax";
    MaskedLogits batch;
    std::vector<int32_t> indices;
    ParseBatch(info, what, batch, indices);
    Napi::Int32Array out = Napi::Int32Array::New(env, batch.WorkRows());
    MaskedArgmax(batch, out.Data());
    return out;
  });
}

Napi::Value MaskedSampleJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "maskedSample";
    MaskedLogits batch;
    std::vector<int32_t> indices;
    ParseBatch(info, what, batch, indices);
    const std::vector<SampleParams> params = ParseSampleParams(info[2], what, batch.WorkRows());
    Napi::Int32Array out = Napi::Int32Array::New(env, batch.WorkRows());
    MaskedSample(batch, params.data(), out.Data());
    return out;
  });
}

Napi::Value ApplyMaskIsaJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() >= 1 && !info[0].IsUndefined()) {
      if (!info[0].IsString()) ThrowInvalidArgument("applyMaskIsa(name): name must be a string");
      const std::string name = info[0].As<Napi::String>().Utf8Value();
      if (!SetApplyMaskIsa(name.c_str())) {
        ThrowInvalidArgument("applyMaskIsa: \"" + name +
                             "\" is not available on this CPU (expected \"auto\", \"scalar\", \"avx2\" or \"avx512\")");
      }
    }
    return Napi::String::New(env, ApplyMaskIsa());
  });
}

}  // namespace tagmask::binding
