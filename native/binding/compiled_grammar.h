// CompiledGrammar: a grammar IR compiled against a TokenizerInfo (automaton + mask cache).
// compileGrammar(tokenizer, ir, options) runs on the calling thread; compileGrammarAsync runs on
// a worker thread and returns a Promise (the IR bytes are copied on the main thread first).
#pragma once

#include <napi.h>

#include <memory>
#include <utility>
#include <vector>

#include "tagmask/compiled_grammar.h"
#ifdef TAGMASK_WITH_CUDA
#include "tagmask/cuda_device.h"
#endif

namespace tagmask::binding {

/// Reads (tokenizer, ir, options?) from `info` and compiles on a libuv worker thread; the promise
/// settles with a CompiledGrammar or the typed error. `control` (may be null) cancels and reports.
Napi::Promise QueueCompile(const Napi::CallbackInfo& info, const char* what, std::shared_ptr<CompileControl> control);

class CompiledGrammarWrap : public Napi::ObjectWrap<CompiledGrammarWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static CompiledGrammarWrap* FromValue(const Napi::Value& value, const char* what);
  /// Wraps a compiled grammar in a new JS object.
  static Napi::Object Wrap(Napi::Env env, std::shared_ptr<const CompiledGrammar> grammar);

  explicit CompiledGrammarWrap(const Napi::CallbackInfo& info);
  const std::shared_ptr<const CompiledGrammar>& grammar() const { return grammar_; }

 private:
  static Napi::Value CompileSync(const Napi::CallbackInfo& info);
  static Napi::Value CompileAsync(const Napi::CallbackInfo& info);
  Napi::Value MemoryBytes(const Napi::CallbackInfo& info);
  Napi::Value StateCount(const Napi::CallbackInfo& info);
  Napi::Value VocabSize(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  // Resident masks (compiled_grammar_masks.cpp).
  Napi::Value MaskStore(const Napi::CallbackInfo& info);
  Napi::Value UploadMasks(const Napi::CallbackInfo& info);

  std::shared_ptr<const CompiledGrammar> grammar_;
#ifdef TAGMASK_WITH_CUDA
  // The resident rows uploaded per device, freed with this object (or by DeviceMaskStore.free).
  std::vector<std::pair<int, std::shared_ptr<cuda::DeviceMemory>>> device_masks_;
#endif
};

}  // namespace tagmask::binding
