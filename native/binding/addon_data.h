// Per-environment state of the addon: the registered JS error classes and the constructors of
// wrapped classes (one addon instance per worker thread / env, so nothing here is global).
#pragma once

#include <napi.h>

#include <array>
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

/// Whether `value` is an instance of the wrapped class registered as `class_name` in its env
/// (never before the class is registered).
inline bool IsWrapped(const Napi::Value& value, const std::string& class_name) {
  if (!value.IsObject()) return false;
  const auto& ctors = AddonData::Of(value.Env()).constructors;
  const auto it = ctors.find(class_name);
  return it != ctors.end() && value.As<Napi::Object>().InstanceOf(it->second.Value());
}

}  // namespace tagmask::binding
