// The device API of lib/mask/cuda.ts: module functions (cudaAvailable, cudaDeviceInfo) and the
// wrapped classes CudaStream, PinnedBitmask, DeviceBitmask and DeviceLogits, one file each.
// In builds without CUDA the classes still exist and every constructor throws a DeviceError, so
// the JS surface is the same everywhere.
#pragma once

#include <napi.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "errors.h"

namespace tagmask::binding {

/// cudaAvailable(): whether the kernels are compiled in and a usable device exists. Never throws.
Napi::Value CudaAvailable(const Napi::CallbackInfo& info);
/// cudaDeviceInfo(device = 0): { name, computeCapability, multiprocessors, totalMemory, memoryBandwidth }.
Napi::Value CudaDeviceInfo(const Napi::CallbackInfo& info);

void InitCudaStream(Napi::Env env, Napi::Object exports);
void InitPinnedBitmask(Napi::Env env, Napi::Object exports);
void InitDeviceBitmask(Napi::Env env, Napi::Object exports);
void InitDeviceLogits(Napi::Env env, Napi::Object exports);
void InitDeviceMaskStore(Napi::Env env, Napi::Object exports);

/// Throws a DeviceError when the addon was built without CUDA.
void RequireCudaBuild(const char* what);

/// A non-negative integer argument or option (for messages: `what` and `name`).
uint64_t ToSize(const Napi::Value& v, const std::string& what, const std::string& name, uint64_t max);
/// A CUDA stream or pointer given as a bigint (or a safe integer number); 0 allowed.
uintptr_t ToHandle(const Napi::Value& v, const std::string& what, const std::string& name);
/// options.device, default 0.
int DeviceOption(const Napi::Value& options, const std::string& what);
/// options.stream (a CudaStream or a raw handle); `fallback` when options or the stream is absent.
uintptr_t StreamOption(const Napi::Value& options, const std::string& what, uintptr_t fallback);

/// Runs a wrapped class's constructor body: core errors become thrown Napi::Errors of the typed
/// classes, which node-addon-api turns into a failed `new` (and frees the half-made object).
template <typename Body>
void GuardedConstruct(Napi::Env env, Body&& body) {
  try {
    body();
  } catch (const Napi::Error&) {
    throw;
  } catch (const Error& e) {
    throw MakeError(env, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    throw MakeError(env, ErrorCode::Internal, "out of memory");
  } catch (const std::exception& e) {
    throw MakeError(env, ErrorCode::Internal, std::string("internal error: ") + e.what());
  }
}

}  // namespace tagmask::binding
