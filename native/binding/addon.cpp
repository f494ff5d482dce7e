// Module entry: registers the functions and classes of each binding file.
#include <napi.h>

#include "errors.h"
#include "runtime.h"

namespace tagmask::binding {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("setErrorClasses", Napi::Function::New(env, SetErrorClasses, "setErrorClasses"));
  exports.Set("runtime", Napi::Function::New(env, Runtime, "runtime"));
  return exports;
}

}  // namespace tagmask::binding

static Napi::Object InitTagmask(Napi::Env env, Napi::Object exports) {
  return tagmask::binding::Init(env, exports);
}

NODE_API_MODULE(tagmask, InitTagmask)
