// CompiledGrammar.maskStore() and CompiledGrammar.uploadMasks(device, options): the grammar's
// resident mask rows (tagmask/resident_masks.h) as an Int32Array, and in device memory once per
// device for the ref-based kernels.
#include <algorithm>
#include <cstring>
#include <string>

#include "compiled_grammar.h"
#include "cuda_binding.h"
#include "cuda_classes.h"
#include "errors.h"
#include "js_integer.h"

namespace tagmask::binding {

Napi::Value CompiledGrammarWrap::MaskStore(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    const ResidentMasks& resident = grammar_->residentMasks();
    const size_t words = static_cast<size_t>(resident.Count()) * resident.WordsPerMask();
    // A copy: the rows are shared by every matcher, and JS may write into what it is given.
    Napi::Int32Array rows = Napi::Int32Array::New(env, words);
    std::memcpy(rows.Data(), resident.Words(), words * sizeof(uint32_t));
    Napi::Object out = Napi::Object::New(env);
    out.Set("count", resident.Count());
    out.Set("wordsPerMask", resident.WordsPerMask());
    out.Set("vocabSize", grammar_->tokenizer().VocabSize());
    out.Set("words", rows);
    return out;
  });
}

Napi::Value CompiledGrammarWrap::UploadMasks(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "CompiledGrammar.uploadMasks(device, options)";
    int device = 0;
    if (!info[0].IsUndefined()) {
      const std::optional<int> d = IntegerIn<int>(info[0], 0, 1023);
      if (!d) ThrowInvalidArgument(std::string(what) + ": device must be a CUDA device index (an integer from 0)");
      device = *d;
    }
    if (!info[1].IsUndefined() && !info[1].IsObject()) ThrowInvalidArgument(std::string(what) + ": options must be an object");
    const uintptr_t stream = StreamOption(info[1], what, 0);
    RequireCudaBuild(what);
    DeviceMaskStoreWrap::Init init;
    init.device = device;
    init.vocab = grammar_->tokenizer().VocabSize();
#ifdef TAGMASK_WITH_CUDA
    cuda::RequireDevice(device);
    const ResidentMasks& resident = grammar_->residentMasks();
    init.count = resident.Count();
    init.words = resident.WordsPerMask();
    auto it = std::find_if(device_masks_.begin(), device_masks_.end(), [&](const auto& e) { return e.first == device; });
    if (it != device_masks_.end() && it->second->data() != nullptr) {
      init.memory = it->second;  // uploaded once per device
    } else {
      auto memory = std::make_shared<cuda::DeviceMemory>(resident.RowBytes(), device);
      cuda::CopyHostToDevice(memory->data(), resident.Words(), resident.RowBytes(), stream, device);
      // Rows on the device when this returns, so kernels on any stream may read them.
      cuda::SynchronizeStream(stream, device);
      if (it != device_masks_.end()) {
        it->second = memory;
      } else {
        device_masks_.emplace_back(device, memory);
      }
      init.memory = std::move(memory);
    }
#else
    (void)stream;
#endif
    return DeviceMaskStoreWrap::New(env, init);
  });
}

}  // namespace tagmask::binding
