#include "mask_cpu.h"

#include <cfloat>
#include <string>

#include "errors.h"
#include "js_integer.h"

namespace tagmask::binding {
namespace {

// options[name] as a size: undefined → fallback; otherwise a non-negative safe integer.
size_t SizeOption(const Napi::Object& options, const char* name, const char* what, size_t fallback) {
  Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return fallback;
  const std::optional<size_t> size = IntegerIn<size_t>(v, 0, kMaxSafeInteger);
  if (!size) {
    ThrowInvalidArgument(std::string(what) + ": options." + name + " must be a non-negative integer, got " +
                         DescribeValue(v));
  }
  return *size;
}

Napi::Object OptionsObject(const Napi::Value& options, const char* what) {
  if (!options.IsObject() || options.IsArray() || options.IsTypedArray()) {
    ThrowInvalidArgument(std::string(what) + ": options must be an object with at least vocabSize, got " +
                         DescribeValue(options));
  }
  return options.As<Napi::Object>();
}

// A double as a float without undefined behaviour: out-of-range values become infinities (which
// the sampling checks then refuse with the row's name).
float ToFloat(double d) {
  if (d > static_cast<double>(FLT_MAX)) return HUGE_VALF;
  if (d < -static_cast<double>(FLT_MAX)) return -HUGE_VALF;
  return static_cast<float>(d);
}

// What the CPU entry points read from (logits, bitmask, options) in phase 1.
struct CpuMaskArgs {
  MaskedLogits shape;  // vocab, columns, stride, rows, dtype; no memory yet
  std::optional<TypedArrayArg> logits;
  std::optional<TypedArrayArg> bitmask;
  RowSelectionArgs selection;
  MaskRefsArgs refs;  // options.refs and options.maskStore (resident masks)
};

// "float32" | "float16" | "bfloat16" from options.dtype, checked against the element size.
DType ReadDType(const Napi::Object& options, const char* what, size_t element_bytes) {
  Napi::Value v = options.Get("dtype");
  if (v.IsUndefined()) return element_bytes == 4 ? DType::kFloat32 : DType::kBFloat16;
  const std::optional<DType> dtype = DTypeNamed(v);
  if (!dtype) {
    ThrowInvalidArgument(std::string(what) + ": options.dtype must be \"float32\", \"float16\" or \"bfloat16\", got " +
                         DescribeValue(v));
  }
  if (maskmath::ElementBytes(*dtype) != element_bytes) {
    ThrowInvalidArgument(std::string(what) + ": options.dtype is \"" + DTypeName(*dtype) + "\" but the logits array has " +
                         std::to_string(element_bytes) + "-byte elements (float32 needs a Float32Array, " +
                         "float16 and bfloat16 a Uint16Array)");
  }
  return *dtype;
}

// Phase 1 of the CPU entry points: the argument kinds and every option.
CpuMaskArgs ReadCpuMask(const Napi::CallbackInfo& info, const char* what) {
  CpuMaskArgs args;
  args.logits = TypedArrayArg::Of(info[0], {napi_float32_array, napi_uint16_array});
  if (!args.logits) {
    ThrowInvalidArgument(std::string(what) + ": logits must be a Float32Array (float32) or a Uint16Array (bfloat16, " +
                         "float16), got " + DescribeValue(info[0]));
  }
  args.bitmask = TypedArrayArg::Of(info[1], {napi_int32_array, napi_uint32_array});
  if (!args.bitmask) {
    ThrowInvalidArgument(std::string(what) + ": bitmask must be an Int32Array of shape [rows, ceil(vocabSize/32)], got " +
                         DescribeValue(info[1]));
  }
  Napi::Object options = OptionsObject(info[2], what);
  args.refs = ReadMaskRefs(options, what, true);
  Napi::Value vocab = options.Get("vocabSize");
  if (vocab.IsUndefined()) {
    ThrowInvalidArgument(std::string(what) + ": options.vocabSize is required (the number of tokens the bitmask covers)");
  }
  MaskedLogits& s = args.shape;
  s.vocab = SizeOption(options, "vocabSize", what, 0);
  s.columns = SizeOption(options, "columns", what, 0);
  s.stride = SizeOption(options, "stride", what, 0);
  s.rows = SizeOption(options, "rows", what, 0);
  s.dtype = ReadDType(options, what, args.logits->ElementSize());
  args.selection = ReadRowSelection(options, what);
  return args;
}

// Phase 2: pins the logits, the bitmask and the indices, and checks every size against them.
MaskedLogits PinCpuMask(CpuMaskArgs& args, const char* what) {
  MaskedLogits batch = args.shape;
  const TypedArrayArg::UntypedSpan logits = args.logits->PinUntyped(what, "logits");
  batch.logits = logits.data;
  batch.logits_length = logits.length;
  const TypedSpan<const int32_t> bitmask = args.bitmask->Pin<const int32_t>(what, "bitmask");
  batch.bitmask = bitmask.data;
  batch.bitmask_length = bitmask.length;
  PinRowSelection(args.selection, what, batch);
  if (args.refs.present) {
    const TypedSpan<const int32_t> refs = PinMaskRefs(args.refs, what);
    batch.has_refs = true;
    batch.refs = refs.data;
    batch.num_refs = refs.length;
    const TypedSpan<const int32_t> store = args.refs.store_words->Pin<const int32_t>(what, "options.maskStore.words");
    batch.store = store.data;
    batch.store_length = store.length;
    if (args.refs.store_words_per_mask != batch.MaskWords()) {
      ThrowInvalidArgument(std::string(what) + ": options.maskStore has rows of " +
                           std::to_string(args.refs.store_words_per_mask) + " words but vocabSize " +
                           std::to_string(batch.vocab) + " needs ceil(" + std::to_string(batch.vocab) +
                           "/32) = " + std::to_string(batch.MaskWords()) + ": the store belongs to another vocabulary");
    }
  }
  batch.Validate(what);
  return batch;
}

template <typename T, typename FromNumber>
PerRowArg<T> ReadPerRow(const Napi::Object& options, const char* name, napi_typedarray_type array_type,
                        FromNumber from_number) {
  PerRowArg<T> arg;
  Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return arg;
  if (v.IsTypedArray()) {
    // The message names the row count, known in phase 2.
    arg.array = TypedArrayArg::Of(v, {array_type});
    if (!arg.array) arg.wrong_array = v.As<Napi::TypedArray>().ElementLength();
    return arg;
  }
  arg.value = from_number(v);
  return arg;
}

// `label` is the option as messages name it ("options.topK").
template <typename T>
void PinPerRow(const PerRowArg<T>& arg, const char* label, const char* what, const char* array_name, T fallback,
               size_t rows, std::vector<SampleParams>& params, T SampleParams::*field) {
  const auto wrong = [&](size_t length) {
    ThrowInvalidArgument(std::string(what) + ": " + label + " must be a number or a " + array_name + " of " +
                         std::to_string(rows) + " entries (one per row), got a typed array of " + std::to_string(length));
  };
  if (arg.wrong_array) wrong(*arg.wrong_array);
  if (!arg.array) {
    const T value = arg.value.value_or(fallback);
    for (auto& p : params) p.*field = value;
    return;
  }
  const TypedSpan<const T> values = arg.array->template Pin<const T>(what, label);
  if (values.length != rows) wrong(values.length);
  // Copied once: a shared array changing afterwards cannot change what was validated.
  for (size_t k = 0; k < rows; ++k) params[k].*field = values.data[k];
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

RowSelectionArgs ReadRowSelection(const Napi::Value& options_value, const char* what) {
  RowSelectionArgs args;
  if (options_value.IsUndefined()) return args;
  Napi::Object options = OptionsObject(options_value, what);
  Napi::Value compact = options.Get("compactBitmask");
  if (!compact.IsUndefined() && !compact.IsBoolean()) {
    ThrowInvalidArgument(std::string(what) + ": options.compactBitmask must be a boolean, got " + DescribeValue(compact));
  }
  args.compact = compact.IsBoolean() && compact.As<Napi::Boolean>().Value();
  Napi::Value indices = options.Get("indices");
  if (indices.IsUndefined() || indices.IsNull()) return args;
  args.has_indices = true;
  args.typed = TypedArrayArg::Of(indices, {napi_int32_array});
  if (args.typed) return args;
  if (!indices.IsArray()) {
    ThrowInvalidArgument(std::string(what) + ": options.indices must be an Int32Array or an array of row numbers, got " +
                         DescribeValue(indices));
  }
  Napi::Array array = indices.As<Napi::Array>();
  const uint32_t n = array.Length();
  args.values.reserve(n);
  for (uint32_t k = 0; k < n; ++k) {
    Napi::Value item = array.Get(k);
    const std::optional<int32_t> row = IntegerIn<int32_t>(item, 0, 2147483647.0);
    if (!row) {
      ThrowInvalidArgument(std::string(what) + ": options.indices[" + std::to_string(k) +
                           "] must be a non-negative integer row number, got " + DescribeValue(item));
    }
    args.values.push_back(*row);
  }
  return args;
}

void PinRowSelection(RowSelectionArgs& args, const char* what, MaskedLogits& out) {
  out.has_indices = args.has_indices;
  out.compact_bitmask = args.compact;
  out.indices = nullptr;
  out.num_indices = 0;
  if (!args.has_indices) return;
  if (args.typed) {
    // Indices are checked (Validate) and then used as row numbers: they must not change in
    // between, so a shared array is copied.
    const TypedSpan<const int32_t> span =
        args.typed->PinPrivate<int32_t>(what, "options.indices", args.values);
    out.indices = span.data;
    out.num_indices = span.length;
    return;
  }
  out.indices = args.values.data();
  out.num_indices = args.values.size();
}

MaskRefsArgs ReadMaskRefs(const Napi::Value& options_value, const char* what, bool cpu) {
  MaskRefsArgs args;
  if (!options_value.IsObject()) return args;
  Napi::Object options = options_value.As<Napi::Object>();
  Napi::Value refs = options.Get("refs");
  args.store = options.Get("maskStore");
  const bool has_refs = !refs.IsUndefined() && !refs.IsNull();
  const bool has_store = !args.store.IsUndefined() && !args.store.IsNull();
  if (!has_refs && !has_store) return args;
  if (!has_refs || !has_store) {
    ThrowInvalidArgument(std::string(what) + ": options.refs and options.maskStore go together (refs name rows of the " +
                         "store); got only options." + (has_refs ? "refs" : "maskStore"));
  }
  args.refs = TypedArrayArg::Of(refs, {napi_int32_array});
  if (!args.refs) {
    ThrowInvalidArgument(std::string(what) + ": options.refs must be an Int32Array (one ref per bitmask row, from " +
                         "BatchMatcher.fillMaskRefs), got " + DescribeValue(refs));
  }
  if (cpu) {
    const char* shape = ": options.maskStore must be a mask store ({ count, wordsPerMask, words: Int32Array }, from "
                        "CompiledGrammar.maskStore())";
    if (!args.store.IsObject() || args.store.IsTypedArray()) ThrowInvalidArgument(std::string(what) + shape);
    Napi::Object store = args.store.As<Napi::Object>();
    Napi::Value words = store.Get("words");
    const std::optional<uint64_t> per_mask = IntegerIn<uint64_t>(store.Get("wordsPerMask"), 1, 0x7FFFFFFF);
    args.store_words = TypedArrayArg::Of(words, {napi_int32_array});
    if (!args.store_words || !per_mask) ThrowInvalidArgument(std::string(what) + shape);
    args.store_words_per_mask = *per_mask;
  }
  args.present = true;
  return args;
}

TypedSpan<const int32_t> PinMaskRefs(MaskRefsArgs& args, const char* what) {
  return args.refs->PinPrivate<int32_t>(what, "options.refs", args.refs_copy);
}

SampleArgs ReadSampleParams(const Napi::Value& options_value, const char* what) {
  Napi::Object options = OptionsObject(options_value, what);
  SampleArgs args;
  const auto number = [what](const char* name, const Napi::Value& v) {
    if (!v.IsNumber()) {
      ThrowInvalidArgument(std::string(what) + ": options." + name + " must be a number or a per-row typed array, got " +
                           DescribeValue(v));
    }
    return v.As<Napi::Number>().DoubleValue();
  };
  args.temperature = ReadPerRow<float>(options, "temperature", napi_float32_array,
                                       [&](const Napi::Value& v) { return ToFloat(number("temperature", v)); });
  args.top_k = ReadPerRow<int32_t>(options, "topK", napi_int32_array, [&](const Napi::Value& v) {
    // Scalars arrive as doubles: reject what a cast would silently change (or what would be
    // undefined behaviour to cast) before converting.
    const std::optional<int32_t> k = IntegerIn<int32_t>(v, 0, 2147483647.0);
    if (!k) {
      ThrowInvalidArgument(std::string(what) + ": options.topK must be an integer >= 0 (0 = no limit), got " +
                           DescribeValue(v));
    }
    return *k;
  });
  args.top_p = ReadPerRow<float>(options, "topP", napi_float32_array,
                                 [&](const Napi::Value& v) { return ToFloat(number("topP", v)); });
  args.seed = ReadPerRow<uint64_t>(options, "seed", napi_biguint64_array, [&](const Napi::Value& v) {
    if (v.IsBigInt()) {
      bool lossless = false;
      const uint64_t seed = v.As<Napi::BigInt>().Uint64Value(&lossless);
      if (!lossless) ThrowInvalidArgument(std::string(what) + ": options.seed must fit in 64 unsigned bits");
      return seed;
    }
    const std::optional<uint64_t> seed = IntegerIn<uint64_t>(v, 0, kMaxSafeInteger);
    if (!seed) {
      ThrowInvalidArgument(std::string(what) + ": options.seed must be a non-negative safe integer or a bigint, got " +
                           DescribeValue(v));
    }
    return *seed;
  });
  return args;
}

std::vector<SampleParams> PinSampleParams(const SampleArgs& args, const char* what, size_t rows) {
  std::vector<SampleParams> params(rows);
  PinPerRow(args.temperature, "options.temperature", what, "Float32Array", 1.0f, rows, params, &SampleParams::temperature);
  PinPerRow(args.top_k, "options.topK", what, "Int32Array", int32_t{0}, rows, params, &SampleParams::top_k);
  PinPerRow(args.top_p, "options.topP", what, "Float32Array", 1.0f, rows, params, &SampleParams::top_p);
  PinPerRow(args.seed, "options.seed", what, "BigUint64Array", uint64_t{0}, rows, params, &SampleParams::seed);
  for (size_t k = 0; k < rows; ++k) ValidateSampleParams(params[k], k);
  return params;
}

Napi::Value ApplyTokenBitmaskJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "applyTokenBitmask";
    CpuMaskArgs args = ReadCpuMask(info, what);
    const MaskedLogits batch = PinCpuMask(args, what);
    ApplyTokenBitmask(batch);
    return env.Undefined();
  });
}

Napi::Value MaskedArgmaxJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "maskedArgmax";
    CpuMaskArgs args = ReadCpuMask(info, what);
    const MaskedLogits batch = PinCpuMask(args, what);
    // Creating the result array runs no user JS, so the pinned memory stays valid.
    Napi::Int32Array out = Napi::Int32Array::New(env, batch.WorkRows());
    MaskedArgmax(batch, out.Data());
    return out;
  });
}

Napi::Value MaskedSampleJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "maskedSample";
    CpuMaskArgs args = ReadCpuMask(info, what);
    const SampleArgs sample = ReadSampleParams(info[2], what);
    const MaskedLogits batch = PinCpuMask(args, what);
    const std::vector<SampleParams> params = PinSampleParams(sample, what, batch.WorkRows());
    Napi::Int32Array out = Napi::Int32Array::New(env, batch.WorkRows());
    MaskedSample(batch, params.data(), out.Data());
    return out;
  });
}

Napi::Value ApplyMaskIsaJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() >= 1 && !info[0].IsUndefined()) {
      if (!info[0].IsString()) ThrowInvalidArgument("applyMaskIsa(name): name must be a string, got " + DescribeValue(info[0]));
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
