// DeviceMaskStore: a compiled grammar's resident mask rows in device memory, made by
// CompiledGrammar.uploadMasks (compiled_grammar_masks.cpp) and read by the DeviceLogits kernels
// through per-row refs (BatchMatcher.fillMaskRefs).
#include <string>

#include "addon_data.h"
#include "cuda_binding.h"
#include "cuda_classes.h"
#include "errors.h"

namespace tagmask::binding {

Napi::Object DeviceMaskStoreWrap::New(Napi::Env env, const Init& init) {
  Napi::FunctionReference& ctor = AddonData::Of(env).constructors["DeviceMaskStore"];
  Init copy = init;
  return ctor.New({Napi::External<Init>::New(env, &copy)});
}

DeviceMaskStoreWrap::DeviceMaskStoreWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceMaskStoreWrap>(info) {
  GuardedConstruct(info.Env(), [&]() {
    TagInstance(info, WrappedClass::kDeviceMaskStore);
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("DeviceMaskStore cannot be constructed directly; use CompiledGrammar.uploadMasks(device)");
    }
    init_ = *info[0].As<Napi::External<Init>>().Data();
  });
}

const int32_t* DeviceMaskStoreWrap::Data(const char* what) const {
#ifdef TAGMASK_WITH_CUDA
  if (init_.memory && init_.memory->data() != nullptr) return static_cast<const int32_t*>(init_.memory->data());
#endif
  ThrowInvalidArgument(std::string(what) + ": the DeviceMaskStore was freed (upload the masks again)");
}

Napi::Value DeviceMaskStoreWrap::Pointer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(Data("DeviceMaskStore.pointer"))));
  });
}

Napi::Value DeviceMaskStoreWrap::Count(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(init_.count));
}

Napi::Value DeviceMaskStoreWrap::WordsPerMask(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(init_.words));
}

Napi::Value DeviceMaskStoreWrap::VocabSize(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(init_.vocab));
}

Napi::Value DeviceMaskStoreWrap::Bytes(const Napi::CallbackInfo& info) {
  uint64_t bytes = 0;
#ifdef TAGMASK_WITH_CUDA
  if (init_.memory) bytes = init_.memory->bytes();
#endif
  return Napi::Number::New(info.Env(), static_cast<double>(bytes));
}

Napi::Value DeviceMaskStoreWrap::Device(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), init_.device);
}

Napi::Value DeviceMaskStoreWrap::Free(const Napi::CallbackInfo& info) {
#ifdef TAGMASK_WITH_CUDA
  if (init_.memory) init_.memory->Reset();  // for the grammar's table too: its next upload copies again
#endif
  return info.Env().Undefined();
}

void InitDeviceMaskStore(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DeviceMaskStoreWrap::DefineClass(
      env, "DeviceMaskStore",
      {DeviceMaskStoreWrap::InstanceMethod<&DeviceMaskStoreWrap::Free>("free"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::Pointer>("pointer"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::Count>("count"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::WordsPerMask>("wordsPerMask"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::VocabSize>("vocabSize"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::Bytes>("bytes"),
       DeviceMaskStoreWrap::InstanceAccessor<&DeviceMaskStoreWrap::Device>("device")});
  AddonData::Of(env).constructors["DeviceMaskStore"] = Napi::Persistent(ctor);
  exports.Set("DeviceMaskStore", ctor);
}

}  // namespace tagmask::binding
