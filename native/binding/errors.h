// Maps core failures to the typed JS error classes that lib/errors.ts defines.
//
// lib/native.ts registers the classes once (setErrorClasses); every binding entry point runs
// its body through Guarded(), which turns a tagmask::Error, a Napi::Error or any other C++
// exception into a thrown JS error. Nothing escapes into the Node process.
#pragma once

#include <napi.h>

#include <string>
#include <utility>

#include "tagmask/error.h"

namespace tagmask::binding {

/// Registers `{ InvalidArgument, InvalidGrammar, ... }` constructors keyed by ErrorCodeName.
Napi::Value SetErrorClasses(const Napi::CallbackInfo& info);

/// Builds the JS error object for a core error (typed class when registered).
Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message);

/// Throws an InvalidArgument error naming what was expected.
[[noreturn]] void ThrowInvalidArgument(const std::string& message);

template <typename Body>
auto Guarded(Napi::Env env, Body&& body) -> decltype(body()) {
  using Result = decltype(body());
  try {
    return body();
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  } catch (const Error& e) {
    MakeError(env, e.code(), e.what()).ThrowAsJavaScriptException();
  } catch (const std::bad_alloc&) {
    MakeError(env, ErrorCode::Internal, "out of memory").ThrowAsJavaScriptException();
  } catch (const std::exception& e) {
    MakeError(env, ErrorCode::Internal, std::string("internal error: ") + e.what())
        .ThrowAsJavaScriptException();
  } catch (...) {
    MakeError(env, ErrorCode::Internal, "internal error: unknown exception").ThrowAsJavaScriptException();
  }
  if constexpr (std::is_void_v<Result>) {
    return;
  } else {
    return Result();
  }
}

}  // namespace tagmask::binding
