// Per-environment state of the addon: the registered JS error classes and the constructors of
// wrapped classes (one addon instance per worker thread / env, so nothing here is global).
#pragma once

#include <napi.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace tagmask::binding {

struct AddonData {
  static constexpr size_t kErrorCodeCount = 7;
  std::array<Napi::FunctionReference, kErrorCodeCount> errorClasses;
  // Constructors of wrapped classes, by class name, for creating instances from C++.
  std::unordered_map<std::string, Napi::FunctionReference> constructors;

  static AddonData& Of(Napi::Env env) {
    auto* data = env.GetInstanceData<AddonData>();
    if (data == nullptr) {
      data = new AddonData();  // owned by the env: node-addon-api deletes it at env teardown
      env.SetInstanceData<AddonData>(data);
    }
    return *data;
  }
};

/// The wrapped classes. Every instance carries its class's type tag (napi_type_tag_object), set by
/// its constructor; checking the tag runs no JS and cannot be fooled by a Proxy or by an object
/// made with Object.create(prototype), which `instanceof` (it may call a Proxy's traps, and says
/// nothing of whether a native object is attached) can.
enum class WrappedClass : uint64_t {
  kTokenizerInfo = 1,
  kCompiledGrammar,
  kMatcher,
  kBatchMatcher,
  kCudaStream,
  kPinnedBitmask,
  kDeviceBitmask,
  kDeviceLogits,
  kDeviceMaskStore,
};

inline napi_type_tag TypeTagOf(WrappedClass cls) {
  // "tagmask\0" plus the class: distinct from every other addon's tags in practice.
  return napi_type_tag{0x6b73616d67617400ull, 0x5a1f3c0de0000000ull + static_cast<uint64_t>(cls)};
}

/// Marks the object a wrapped class's constructor is building (call it first in the constructor).
inline void TagInstance(const Napi::CallbackInfo& info, WrappedClass cls) {
  const napi_type_tag tag = TypeTagOf(cls);
  info.This().As<Napi::Object>().TypeTag(&tag);
}

/// Whether `value` is an instance of the wrapped class `cls`. Runs no JS.
inline bool IsWrapped(const Napi::Value& value, WrappedClass cls) {
  if (value.Type() != napi_object) return false;
  const napi_type_tag tag = TypeTagOf(cls);
  bool tagged = false;
  return napi_check_object_type_tag(value.Env(), value, &tag, &tagged) == napi_ok && tagged;
}

/// The native object of `value` when it is an instance of `cls` (else nullptr). Runs no JS.
template <typename Wrap>
Wrap* UnwrapTagged(const Napi::Value& value, WrappedClass cls) {
  if (!IsWrapped(value, cls)) return nullptr;
  void* native = nullptr;
  if (napi_unwrap(value.Env(), value, &native) != napi_ok) return nullptr;
  return static_cast<Wrap*>(native);
}

}  // namespace tagmask::binding
