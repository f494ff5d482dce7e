#pragma once

#include <napi.h>

namespace tagmask::binding {

/// runtime(): { version, cuda: { compiled, runtimeVersion, deviceCount, status } }
Napi::Value Runtime(const Napi::CallbackInfo& info);

}  // namespace tagmask::binding
