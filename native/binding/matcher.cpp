#include "matcher.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "addon_data.h"
#include "compiled_grammar.h"
#include "errors.h"
#include "js_args.h"
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
    ThrowInvalidArgument(std::string(what) + ": " + name + " must be an integer in [0, 2^32-1], got " + DescribeValue(v));
  }
  return *value;
}

// An Int32Array bitmask argument (phase 1: its kind only).
TypedArrayArg MaskArg(const Napi::Value& value, const char* what) {
  std::optional<TypedArrayArg> arg = TypedArrayArg::Of(value, {napi_int32_array, napi_uint32_array});
  if (!arg) ThrowInvalidArgument(std::string(what) + ": the bitmask must be an Int32Array, got " + DescribeValue(value));
  return *arg;
}

// Phase 2: the row of the pinned bitmask, size-checked.
uint32_t* MaskRow(const TypedArrayArg& mask, uint32_t row, uint32_t words, const char* what) {
  const TypedSpan<uint32_t> span = mask.Pin<uint32_t>(what, "the bitmask");
  const uint64_t need = (static_cast<uint64_t>(row) + 1) * words;
  if (span.length < need) {
    ThrowInvalidArgument(std::string(what) + ": bitmask must have at least (row+1)*ceil(V/32) = " + std::to_string(row + 1) +
                         "*" + std::to_string(words) + " = " + std::to_string(need) + " int32 words, got " +
                         std::to_string(span.length));
  }
  return span.data + static_cast<size_t>(row) * words;
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
  MatcherWrap* wrap = UnwrapTagged<MatcherWrap>(value, WrappedClass::kMatcher);
  if (wrap == nullptr) {
    ThrowInvalidArgument(std::string(what) + " must be a native GrammarMatcher (from createMatcher), got " +
                         DescribeValue(value));
  }
  return wrap;
}

MatcherWrap::MatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MatcherWrap>(info) {
  Guarded(info.Env(), [&]() {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("GrammarMatcher cannot be constructed directly; use createMatcher(compiledGrammar)");
    }
    matcher_ = *info[0].As<Napi::External<std::shared_ptr<Matcher>>>().Data();
    TagInstance(info, WrappedClass::kMatcher);
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
          ThrowInvalidArgument("createMatcher: options.maxStackDepth must be an integer in [1, 1e8], got " + DescribeValue(depth));
        }
        options.maxStackDepth = *value;
      }
    }
    std::shared_ptr<Matcher> matcher = std::make_shared<Matcher>(g->grammar(), options);
    return AddonData::Of(env).constructors[kClassName].New({Napi::External<std::shared_ptr<Matcher>>::New(env, &matcher)});
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
    const std::optional<TypedArrayArg> arg = TypedArrayArg::Of(info[0], {napi_uint8_array});
    if (!arg) ThrowInvalidArgument("acceptBytes expects a Uint8Array, got " + DescribeValue(info[0]));
    // The matcher may look at a byte more than once: a shared array is copied first.
    std::vector<uint8_t> copy;
    const TypedSpan<const uint8_t> bytes = arg->PinPrivate<uint8_t>("acceptBytes", "bytes", copy);
    return Napi::Boolean::New(env, matcher_->AcceptBytes(bytes.data, bytes.length));
  });
}

Napi::Value MatcherWrap::FillNextTokenBitmask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CheckNotHeld("fillNextTokenBitmask");
    const TypedArrayArg mask = MaskArg(info[0], "fillNextTokenBitmask");
    const uint32_t row = ArgU32(info, 1, "fillNextTokenBitmask", "row", 0, true);
    uint32_t* out = MaskRow(mask, row, matcher_->MaskWordCount(), "fillNextTokenBitmask");
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
    std::shared_ptr<Matcher> copy = std::make_shared<Matcher>(*matcher_);
    return AddonData::Of(env).constructors[kClassName].New({Napi::External<std::shared_ptr<Matcher>>::New(env, &copy)});
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
    const std::optional<TypedArrayArg> tokens = TypedArrayArg::Of(info[0], {napi_uint32_array});
    if (!tokens) ThrowInvalidArgument("benchTrace expects (tokens: Uint32Array, repeats?), got " + DescribeValue(info[0]));
    const uint32_t repeats = std::max<uint32_t>(1, ArgU32(info, 1, "benchTrace", "repeats", 21, true));
    const TypedSpan<const uint32_t> span = tokens->Pin<const uint32_t>("benchTrace", "tokens");
    const std::vector<uint32_t> ids(span.data, span.data + span.length);
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
