#include "compile_job.h"

#include <string>

#include "addon_data.h"
#include "compiled_grammar.h"
#include "errors.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "CompileJob";

const char* PhaseName(CompilePhase phase) {
  switch (phase) {
    case CompilePhase::Waiting: return "waiting";
    case CompilePhase::Read: return "read";
    case CompilePhase::Automaton: return "automaton";
    case CompilePhase::Masks: return "masks";
    case CompilePhase::Done: return "done";
  }
  return "waiting";
}

}  // namespace

void CompileJobWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, kClassName,
                                    {
                                        InstanceAccessor<&CompileJobWrap::Promise>("promise"),
                                        InstanceMethod<&CompileJobWrap::Cancel>("cancel"),
                                        InstanceMethod<&CompileJobWrap::Progress>("progress"),
                                    });
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set("startCompile", Napi::Function::New(env, Start, "startCompile"));
}

CompileJobWrap::CompileJobWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CompileJobWrap>(info) {
  Guarded(info.Env(), [&]() {
    if (info.Length() != 0) ThrowInvalidArgument("CompileJob cannot be constructed directly; use startCompile(tokenizer, ir, options)");
  });
}

Napi::Value CompileJobWrap::Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    auto control = std::make_shared<CompileControl>();
    // The arguments are read and copied before the job object exists, so a bad argument throws
    // here and no compilation starts.
    Napi::Promise promise = QueueCompile(info, "startCompile", control);
    Napi::Object job = AddonData::Of(env).constructors[kClassName].New({});
    CompileJobWrap* self = Napi::ObjectWrap<CompileJobWrap>::Unwrap(job);
    self->control_ = std::move(control);
    self->promise_ = Napi::Persistent(promise);
    return job;
  });
}

Napi::Value CompileJobWrap::Promise(const Napi::CallbackInfo& info) {
  if (promise_.IsEmpty()) return info.Env().Undefined();
  return promise_.Value();
}

Napi::Value CompileJobWrap::Cancel(const Napi::CallbackInfo& info) {
  if (control_) control_->Cancel();
  return info.Env().Undefined();
}

Napi::Value CompileJobWrap::Progress(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  const CompilePhase phase = control_ ? control_->phase() : CompilePhase::Waiting;
  out.Set("phase", PhaseName(phase));
  out.Set("done", static_cast<double>(control_ ? control_->done() : 0));
  out.Set("total", static_cast<double>(control_ ? control_->total() : 0));
  return out;
}

}  // namespace tagmask::binding
