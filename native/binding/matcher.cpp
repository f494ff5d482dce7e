#include "matcher.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "addon_data.h"
#include "compiled_grammar.h"
#include "errors.h"
#include "js_integer.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "GrammarMatcher";

uint32_t ArgU32(const Napi::CallbackInfo& info, size_t i, const char* what, const char* name, uint32_t fallback, bool optional) {
  if (i >= info.Length() || info[i].IsUndefined()) {
    if (optional) return fallback;
    ThrowInvalidArgument(std::string(what) + ": " + name + " is required");
  }
  const Napi::Value v = info[i];
  const std::optional<uint32_t> value = IntegerIn<uint32_t>(v, 0, 4294967295.0);
  if (!value) {
    ThrowInvalidArgument(std::string(what) + ": " + name + " must be an integer in [0, 2^32-1], got " + v.ToString().Utf8Value());
  }
  return *value;
}

// The row of an Int32Array bitmask, size-checked.
uint32_t* MaskRow(const Napi::Value& value, uint32_t row, uint32_t words, const char* what) {
  if (!value.IsTypedArray() || (value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array &&
                                value.As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)) {
    ThrowInvalidArgument(std::string(what) + ": the bitmask must be an Int32Array");
  }
  Napi::TypedArray a = value.As<Napi::TypedArray>();
  const uint64_t need = (static_cast<uint64_t>(row) + 1) * words;
  if (a.ElementLength() < need) {
    ThrowInvalidArgument(std::string(what) + ": bitmask must have at least (row+1)*ceil(V/32) = " + std::to_string(row + 1) +
                         "*" + std::to_string(words) + " = " + std::to_string(need) + " int32 words, got " +
                         std::to_string(a.ElementLength()));
  }
  return reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset()) + static_cast<size_t>(row) * words;
}

double Median(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

void MatcherWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, kClassName,
                                    {
                                        InstanceMethod<&MatcherWrap::AcceptToken>("acceptToken"),
                                        InstanceMethod<&MatcherWrap::AcceptBytes>("acceptBytes"),
                                        InstanceMethod<&MatcherWrap::FillNextTokenBitmask>("fillNextTokenBitmask"),
                                        InstanceMethod<&MatcherWrap::CanTerminate>("canTerminate"),
                                        InstanceMethod<&MatcherWrap::IsTerminated>("isTerminated"),
                                        InstanceMethod<&MatcherWrap::Rollback>("rollback"),
                                        InstanceMethod<&MatcherWrap::Reset>("reset"),
                                        InstanceMethod<&MatcherWrap::Fork>("fork"),
                                        InstanceMethod<&MatcherWrap::FindJumpForwardString>("findJumpForwardString"),
                                        InstanceMethod<&MatcherWrap::BenchTrace>("benchTrace"),
                                        InstanceAccessor<&MatcherWrap::StepCount>("stepCount"),
                                        InstanceAccessor<&MatcherWrap::StackCount>("stackCount"),
                                        InstanceAccessor<&MatcherWrap::InError>("inError"),
                                        InstanceAccessor<&MatcherWrap::ErrorMessage>("errorMessage"),
                                        InstanceAccessor<&MatcherWrap::MemoryBytes>("memoryBytes"),
                                    });
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set(kClassName, ctor);
  exports.Set("createMatcher", Napi::Function::New(env, Create, "createMatcher"));
}

MatcherWrap* MatcherWrap::FromValue(const Napi::Value& value, const char* what) {
  if (!IsWrapped(value, kClassName)) {
    ThrowInvalidArgument(std::string(what) + " must be a native GrammarMatcher (from createMatcher)");
  }
  return ObjectWrap<MatcherWrap>::Unwrap(value.As<Napi::Object>());
}

MatcherWrap::MatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MatcherWrap>(info) {
  Guarded(info.Env(), [&]() {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("GrammarMatcher cannot be constructed directly; use createMatcher(compiledGrammar)");
    }
    matcher_.reset(info[0].As<Napi::External<Matcher>>().Data());
  });
}

void MatcherWrap::CheckNotHeld(const char* what) const {
  if (holds_ != 0) {
    throw Error(ErrorCode::MatcherState, std::string(what) +
                                             ": this matcher belongs to a BatchMatcher whose asynchronous operation is still "
                                             "running on the thread pool; await that operation first");
  }
}

Napi::Value MatcherWrap::Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1) ThrowInvalidArgument("createMatcher expects (compiledGrammar, options?)");
    CompiledGrammarWrap* g = CompiledGrammarWrap::FromValue(info[0], "createMatcher: compiledGrammar");
    MatcherOptions options;
    if (info.Length() > 1 && !info[1].IsUndefined()) {
      if (!info[1].IsObject()) ThrowInvalidArgument("createMatcher: options must be an object");
      Napi::Value depth = info[1].As<Napi::Object>().Get("maxStackDepth");
      if (!depth.IsUndefined()) {
        const std::optional<uint32_t> value = IntegerIn<uint32_t>(depth, 1, 100000000);
        if (!value) {
          ThrowInvalidArgument("createMatcher: options.maxStackDepth must be an integer in [1, 1e8], got " + depth.ToString().Utf8Value());
        }
        options.maxStackDepth = *value;
      }
    }
    auto matcher = std::make_unique<Matcher>(g->grammar(), options);
    Napi::Object obj = AddonData::Of(env).constructors[kClassName].New({Napi::External<Matcher>::New(env, matcher.get())});
    matcher.release();  // owned by the wrap now
    return obj;
  });
}

Napi::Value MatcherWrap::AcceptToken(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("acceptToken");
    const uint32_t id = ArgU32(info, 0, "acceptToken", "the token id", 0, false);
    return Napi::Boolean::New(env, matcher_->AcceptToken(id));
  });
}

Napi::Value MatcherWrap::AcceptBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("acceptBytes");
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      ThrowInvalidArgument("acceptBytes expects a Uint8Array");
    }
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    return Napi::Boolean::New(env, matcher_->AcceptBytes(bytes.Data(), bytes.ElementLength()));
  });
}

Napi::Value MatcherWrap::FillNextTokenBitmask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("fillNextTokenBitmask");
    const uint32_t row = ArgU32(info, 1, "fillNextTokenBitmask", "row", 0, true);
    uint32_t* out = MaskRow(info.Length() > 0 ? info[0] : env.Undefined(), row, matcher_->MaskWordCount(), "fillNextTokenBitmask");
    matcher_->FillNextTokenBitmask(out);
    return env.Undefined();
  });
}

Napi::Value MatcherWrap::CanTerminate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("canTerminate");
    return Napi::Boolean::New(env, matcher_->CanTerminate());
  });
}
Napi::Value MatcherWrap::IsTerminated(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("isTerminated");
    return Napi::Boolean::New(env, matcher_->IsTerminated());
  });
}
Napi::Value MatcherWrap::Rollback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("rollback");
    matcher_->Rollback(ArgU32(info, 0, "rollback", "the number of steps", 1, true));
    return env.Undefined();
  });
}
Napi::Value MatcherWrap::Reset(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("reset");
    matcher_->Reset();
    return env.Undefined();
  });
}
Napi::Value MatcherWrap::Fork(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("fork");
    if (matcher_->InError()) {
      throw Error(ErrorCode::MatcherState, "the matcher is in its error state after an earlier failure (" +
                                               matcher_->ErrorMessage() + "); call reset() or create a new matcher");
    }
    auto copy = std::make_unique<Matcher>(*matcher_);
    Napi::Object obj = AddonData::Of(env).constructors[kClassName].New({Napi::External<Matcher>::New(env, copy.get())});
    copy.release();
    return obj;
  });
}
Napi::Value MatcherWrap::FindJumpForwardString(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("findJumpForwardString");
    return Napi::String::New(env, matcher_->FindJumpForwardString());
  });
}
// The accessors read state a pool thread may be writing, so they are guarded like the methods.
Napi::Value MatcherWrap::StepCount(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    CheckNotHeld("stepCount");
    return Napi::Number::New(info.Env(), matcher_->StepCount());
  });
}
Napi::Value MatcherWrap::StackCount(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    CheckNotHeld("stackCount");
    return Napi::Number::New(info.Env(), matcher_->StackCount());
  });
}
Napi::Value MatcherWrap::InError(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    CheckNotHeld("inError");
    return Napi::Boolean::New(info.Env(), matcher_->InError());
  });
}
Napi::Value MatcherWrap::ErrorMessage(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    CheckNotHeld("errorMessage");
    return Napi::String::New(info.Env(), matcher_->ErrorMessage());
  });
}
Napi::Value MatcherWrap::MemoryBytes(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    CheckNotHeld("memoryBytes");
    return Napi::Number::New(info.Env(), static_cast<double>(matcher_->MemoryBytes()));
  });
}

// benchTrace(tokens: Uint32Array, repeats): walks the tokens, timing natively at every step the
// fill (median of `repeats`) and the accept of the next token (median of `repeats`, each undone
// by a rollback that is not timed). Returns {fillNs, acceptNs} and leaves the matcher where it
// was. For benchmarks: it measures the engine without the JS call.
Napi::Value MatcherWrap::BenchTrace(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("benchTrace");
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
      ThrowInvalidArgument("benchTrace expects (tokens: Uint32Array, repeats?)");
    }
    Napi::Uint32Array tokens = info[0].As<Napi::Uint32Array>();
    const std::vector<uint32_t> ids(tokens.Data(), tokens.Data() + tokens.ElementLength());
    const uint32_t repeats = std::max<uint32_t>(1, ArgU32(info, 1, "benchTrace", "repeats", 21, true));
    Matcher& m = *matcher_;
    std::vector<uint32_t> row(m.MaskWordCount());
    std::vector<double> samples(repeats);
    Napi::Float64Array fillNs = Napi::Float64Array::New(env, ids.size() + 1);
    Napi::Float64Array acceptNs = Napi::Float64Array::New(env, ids.size());
    using Clock = std::chrono::steady_clock;
    const uint32_t start = m.StepCount();
    size_t step = 0;
    for (;; ++step) {
      for (uint32_t r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        m.FillNextTokenBitmask(row.data());
        samples[r] = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      }
      fillNs[step] = Median(samples);
      if (step == ids.size()) break;
      bool ok = true;
      for (uint32_t r = 0; r < repeats && ok; ++r) {
        const auto t0 = Clock::now();
        ok = m.AcceptToken(ids[step]);
        samples[r] = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        if (ok) m.Rollback(1);
      }
      if (!ok) {
        m.Rollback(m.StepCount() - start);
        ThrowInvalidArgument("benchTrace: token " + std::to_string(ids[step]) + " at step " + std::to_string(step) +
                             " is not allowed by the grammar");
      }
      acceptNs[step] = Median(samples);
      m.AcceptToken(ids[step]);
    }
    m.Rollback(m.StepCount() - start);
    Napi::Object out = Napi::Object::New(env);
    out.Set("fillNs", fillNs);
    out.Set("acceptNs", acceptNs);
    return out;
  });
}

}  // namespace tagmask::binding
