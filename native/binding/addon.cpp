// Module entry: registers the functions and classes of each binding file.
#include <napi.h>

#include "errors.h"
#include "runtime.h"
#include "thread_pool.h"
#include "mask_cpu.h"
#include "cuda_binding.h"
#include "batch_matcher.h"
#include "tokenizer_info.h"
#include "compiled_grammar.h"
#include "compile_job.h"
#include "matcher.h"

namespace tagmask::binding {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("setErrorClasses", Napi::Function::New(env, SetErrorClasses, "setErrorClasses"));
  exports.Set("runtime", Napi::Function::New(env, Runtime, "runtime"));
  RegisterThreadPoolUser(env);
  exports.Set("setThreadPoolSize", Napi::Function::New(env, SetThreadPoolSize, "setThreadPoolSize"));
  exports.Set("threadPoolSize", Napi::Function::New(env, ThreadPoolSize, "threadPoolSize"));
  exports.Set("applyTokenBitmask", Napi::Function::New(env, ApplyTokenBitmaskJs, "applyTokenBitmask"));
  exports.Set("maskedArgmax", Napi::Function::New(env, MaskedArgmaxJs, "maskedArgmax"));
  exports.Set("maskedSample", Napi::Function::New(env, MaskedSampleJs, "maskedSample"));
  exports.Set("applyMaskIsa", Napi::Function::New(env, ApplyMaskIsaJs, "applyMaskIsa"));
  exports.Set("cudaAvailable", Napi::Function::New(env, CudaAvailable, "cudaAvailable"));
  exports.Set("cudaDeviceInfo", Napi::Function::New(env, CudaDeviceInfo, "cudaDeviceInfo"));
  InitCudaStream(env, exports);
  InitPinnedBitmask(env, exports);
  InitDeviceBitmask(env, exports);
  InitDeviceLogits(env, exports);
  InitDeviceMaskStore(env, exports);
  InitBatchMatcher(env, exports);
  TokenizerInfoWrap::Init(env, exports);
  CompiledGrammarWrap::Init(env, exports);
  CompileJobWrap::Init(env, exports);
  MatcherWrap::Init(env, exports);
  return exports;
}

}  // namespace tagmask::binding

static Napi::Object InitTagmask(Napi::Env env, Napi::Object exports) {
  return tagmask::binding::Init(env, exports);
}

NODE_API_MODULE(tagmask, InitTagmask)
