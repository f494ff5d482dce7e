#include "compiled_grammar.h"

#include <string>
#include <vector>

#include "addon_data.h"
#include "errors.h"
#include "js_args.h"
#include "js_integer.h"
#include "tokenizer_info.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "CompiledGrammar";

struct CompileArgs {
  std::shared_ptr<const TokenizerInfo> tokenizer;
  std::vector<uint8_t> ir;
  CompileOptions options;
};

// Reads (tokenizer, ir: Uint8Array, options?) into C++ values on the main thread.
CompileArgs ParseArgs(const Napi::CallbackInfo& info, const char* what) {
  CompileArgs args;
  if (info.Length() < 2) ThrowInvalidArgument(std::string(what) + " expects (tokenizer, ir: Uint8Array, options?)");
  args.tokenizer = TokenizerInfoWrap::FromValue(info[0], (std::string(what) + ": tokenizer").c_str())->info();
  const std::optional<TypedArrayArg> ir = TypedArrayArg::Of(info[1], {napi_uint8_array});
  if (!ir) {
    ThrowInvalidArgument(std::string(what) + ": ir must be a Uint8Array (the output of serializeGrammar), got " +
                         DescribeValue(info[1]));
  }
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!info[2].IsObject()) ThrowInvalidArgument(std::string(what) + ": options must be an object");
    Napi::Value threads = info[2].As<Napi::Object>().Get("threads");
    if (!threads.IsUndefined()) {
      const std::optional<uint32_t> count = IntegerIn<uint32_t>(threads, 0, 1024);
      if (!count) {
        ThrowInvalidArgument(std::string(what) + ": options.threads must be an integer in [0, 1024] (0: the thread pool's size), got " +
                             DescribeValue(threads));
      }
      args.options.threads = *count;
    }
  }
  // Phase 2 (js_args.h): the options' getters have run; the bytes are copied now.
  const TypedSpan<const uint8_t> bytes = ir->Pin<const uint8_t>(what, "ir");
  args.ir.assign(bytes.data, bytes.data + bytes.length);
  return args;
}

class CompileWorker : public Napi::AsyncWorker {
 public:
  CompileWorker(Napi::Env env, CompileArgs args)
      : Napi::AsyncWorker(env, "tagmask.compileGrammar"), args_(std::move(args)), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    try {
      result_ = CompiledGrammar::Compile(args_.ir.data(), args_.ir.size(), args_.tokenizer, args_.options);
    } catch (const Error& e) {
      code_ = e.code();
      message_ = e.what();
    } catch (const std::bad_alloc&) {
      code_ = ErrorCode::Internal;
      message_ = "out of memory while compiling the grammar";
    } catch (const std::exception& e) {
      code_ = ErrorCode::Internal;
      message_ = std::string("internal error: ") + e.what();
    }
  }
  // Settling fails while the environment shuts down (a worker thread being terminated): the
  // promise then stays pending, and nothing may escape into node-addon-api's callback.
  void OnOK() override {
    Napi::Env env = Env();
    try {
      if (!result_) {
        deferred_.Reject(MakeError(env, code_, message_).Value());
        return;
      }
      deferred_.Resolve(CompiledGrammarWrap::Wrap(env, result_));
    } catch (...) {
    }
  }
  void OnError(const Napi::Error& e) override {
    try {
      deferred_.Reject(e.Value());
    } catch (...) {
    }
  }

 private:
  CompileArgs args_;
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<const CompiledGrammar> result_;
  ErrorCode code_ = ErrorCode::Internal;
  std::string message_;
};

}  // namespace

Napi::Promise QueueCompile(const Napi::CallbackInfo& info, const char* what, std::shared_ptr<CompileControl> control) {
  CompileArgs args = ParseArgs(info, what);
  args.options.control = std::move(control);
  auto* worker = new CompileWorker(info.Env(), std::move(args));  // deletes itself when done
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

void CompiledGrammarWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, kClassName,
                                    {
                                        InstanceAccessor<&CompiledGrammarWrap::MemoryBytes>("memoryBytes"),
                                        InstanceAccessor<&CompiledGrammarWrap::StateCount>("stateCount"),
                                        InstanceAccessor<&CompiledGrammarWrap::VocabSize>("vocabSize"),
                                        InstanceMethod<&CompiledGrammarWrap::Stats>("stats"),
                                        InstanceMethod<&CompiledGrammarWrap::MaskStore>("maskStore"),
                                        InstanceMethod<&CompiledGrammarWrap::UploadMasks>("uploadMasks"),
                                    });
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set(kClassName, ctor);
  exports.Set("compileGrammar", Napi::Function::New(env, CompileSync, "compileGrammar"));
  exports.Set("compileGrammarAsync", Napi::Function::New(env, CompileAsync, "compileGrammarAsync"));
}

CompiledGrammarWrap* CompiledGrammarWrap::FromValue(const Napi::Value& value, const char* what) {
  CompiledGrammarWrap* wrap = UnwrapTagged<CompiledGrammarWrap>(value, WrappedClass::kCompiledGrammar);
  if (wrap == nullptr) {
    ThrowInvalidArgument(std::string(what) + " must be a native CompiledGrammar (from compileGrammar), got " +
                         DescribeValue(value));
  }
  return wrap;
}

Napi::Object CompiledGrammarWrap::Wrap(Napi::Env env, std::shared_ptr<const CompiledGrammar> grammar) {
  Napi::FunctionReference& ctor = AddonData::Of(env).constructors[kClassName];
  return ctor.New({Napi::External<std::shared_ptr<const CompiledGrammar>>::New(env, &grammar)});
}

CompiledGrammarWrap::CompiledGrammarWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CompiledGrammarWrap>(info) {
  Guarded(info.Env(), [&]() {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("CompiledGrammar cannot be constructed directly; use compileGrammar(tokenizer, ir)");
    }
    grammar_ = *info[0].As<Napi::External<std::shared_ptr<const CompiledGrammar>>>().Data();
    TagInstance(info, WrappedClass::kCompiledGrammar);
  });
}

Napi::Value CompiledGrammarWrap::CompileSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    CompileArgs args = ParseArgs(info, "compileGrammar");
    return Wrap(env, CompiledGrammar::Compile(args.ir.data(), args.ir.size(), args.tokenizer, args.options));
  });
}

Napi::Value CompiledGrammarWrap::CompileAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value { return QueueCompile(info, "compileGrammarAsync", nullptr); });
}

Napi::Value CompiledGrammarWrap::MemoryBytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(grammar_->MemoryBytes()));
}
Napi::Value CompiledGrammarWrap::StateCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), grammar_->automaton().StateCount());
}
Napi::Value CompiledGrammarWrap::VocabSize(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), grammar_->tokenizer().VocabSize());
}

Napi::Value CompiledGrammarWrap::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CompileStats& s = grammar_->stats();
  Napi::Object out = Napi::Object::New(env);
  out.Set("readMs", s.readMs);
  out.Set("automatonMs", s.automatonMs);
  out.Set("masksMs", s.masksMs);
  out.Set("totalMs", s.totalMs);
  out.Set("rules", s.rules);
  out.Set("states", s.states);
  out.Set("byteClasses", s.byteClasses);
  out.Set("nfaStates", s.nfaStates);
  out.Set("trieNodesVisited", static_cast<double>(s.trieNodesVisited));
  out.Set("maskWork", static_cast<double>(s.maskWork));
  out.Set("walkedStates", s.walkedStates);
  out.Set("chainStates", s.chainStates);
  out.Set("distinctMasks", s.distinctMasks);
  out.Set("listMasks", s.listMasks);
  out.Set("complementMasks", s.complementMasks);
  out.Set("bitsetMasks", s.bitsetMasks);
  out.Set("uncertainTokens", s.uncertainTokens);
  out.Set("statesWithUncertain", s.statesWithUncertain);
  out.Set("residualTokens", s.residualTokens);
  out.Set("residueTokens", s.residueTokens);
  out.Set("threads", s.threads);
  Napi::Array names = Napi::Array::New(env, grammar_->automaton().rules.size());
  for (uint32_t i = 0; i < grammar_->automaton().rules.size(); ++i) names.Set(i, grammar_->automaton().rules[i].name);
  out.Set("keptRules", names);
  return out;
}

}  // namespace tagmask::binding
