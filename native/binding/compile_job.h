// CompileJob: a compilation running on a libuv worker thread that JS can cancel and watch.
// startCompile(tokenizer, ir, options?) returns one; `promise` settles like compileGrammarAsync's,
// `cancel()` makes the compilation stop at its next checkpoint (the promise then rejects with an
// AbortError), `progress()` reads how far it got ({phase, done, total}) without waiting.
#pragma once

#include <napi.h>

#include <memory>

#include "tagmask/compile_control.h"

namespace tagmask::binding {

class CompileJobWrap : public Napi::ObjectWrap<CompileJobWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit CompileJobWrap(const Napi::CallbackInfo& info);

 private:
  static Napi::Value Start(const Napi::CallbackInfo& info);
  Napi::Value Promise(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Progress(const Napi::CallbackInfo& info);

  std::shared_ptr<CompileControl> control_;
  Napi::Reference<Napi::Promise> promise_;
};

}  // namespace tagmask::binding
