// Reading JS arguments safely: the order every binding entry point follows.
//
//   1. Read. Every argument, option field and array element becomes a plain C++ value. This is
//      the only phase where JS may run (getters, proxies, valueOf), and that JS can do anything:
//      transfer (detach) a buffer, shrink a resizable one, trigger a GC, call back into tagmask.
//      Typed-array arguments are only checked for their element type here and kept as a
//      TypedArrayArg: no pointer, no length yet.
//   2. Pin. TypedArrayArg::Pin takes each typed array's pointer and length, refusing a detached
//      buffer. From here on nothing may run JS, so the pointers stay valid; sizes are checked
//      against the pinned lengths, never against lengths read in phase 1.
//   3. Work. Plain C++ on the pinned memory; JS results are created afterwards.
//
// Arrays backed by a SharedArrayBuffer are used in place, but another thread may write them at
// any moment: an input the native side validates and then uses (indices, offsets, token ids) is
// copied into private memory first (PinPrivate), so the value checked is the value used.
#pragma once

#include <napi.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "errors.h"

namespace tagmask::binding {

/// What a JS value is, for an error message, without running any JS (no toString, no getters):
/// numbers and short strings as they are, other values by their kind.
std::string DescribeValue(const Napi::Value& value);

/// The pinned memory of a typed array: `length` elements at `data`.
template <typename T>
struct TypedSpan {
  T* data = nullptr;  // never null: an empty array gets a pointer to a static, unused byte
  size_t length = 0;
};

/// A typed-array argument between phase 1 (its element type checked) and phase 2 (Pin).
/// Messages name the call (`what`, e.g. "applyTokenBitmask") and the argument (`name`, e.g.
/// "logits"); they are only built when a check fails, so pinning allocates nothing.
class TypedArrayArg {
 public:
  /// `value` as a TypedArrayArg when it is a typed array with one of `types` as its element
  /// type; nothing otherwise. Runs no JS.
  static std::optional<TypedArrayArg> Of(const Napi::Value& value, std::initializer_list<napi_typedarray_type> types) {
    if (!value.IsTypedArray()) return std::nullopt;
    const napi_typedarray_type type = value.As<Napi::TypedArray>().TypedArrayType();
    for (napi_typedarray_type t : types) {
      if (t == type) return TypedArrayArg(value.Env(), value, type);
    }
    return std::nullopt;
  }

  napi_typedarray_type type() const noexcept { return type_; }
  /// Bytes per element.
  size_t ElementSize() const noexcept;

  /// Phase 2: the array's memory as it is now. Throws InvalidArgument when its buffer was
  /// detached (transferred or freed), or when it is empty and `allow_empty` is false.
  template <typename T>
  TypedSpan<T> Pin(const char* what, const char* name, bool allow_empty = true) const {
    static_assert(sizeof(T) <= 8, "a typed array element");
    if (sizeof(T) != ElementSize()) ThrowWrongElementSize(what, name);
    const UntypedSpan raw = PinUntyped(what, name, allow_empty);
    return {static_cast<T*>(raw.data), raw.length};
  }

  /// Pin() for an input that is checked and then used: when the array is on a SharedArrayBuffer
  /// (another thread may write it at any moment) its elements are copied into `storage` first,
  /// so the value checked is the value used.
  template <typename T>
  TypedSpan<const T> PinPrivate(const char* what, const char* name, std::vector<T>& storage) const {
    const TypedSpan<const T> span = Pin<const T>(what, name);
    if (span.length == 0 || !IsShared()) return span;
    storage.assign(span.data, span.data + span.length);
    return {storage.data(), storage.size()};
  }

  /// Pin() for code that handles several element types: `length` counts elements.
  struct UntypedSpan {
    void* data;
    size_t length;
  };
  UntypedSpan PinUntyped(const char* what, const char* name, bool allow_empty = true) const;

 private:
  TypedArrayArg(napi_env env, napi_value value, napi_typedarray_type type) : env_(env), value_(value), type_(type) {}
  [[noreturn]] static void ThrowWrongElementSize(const char* what, const char* name);
  bool IsShared() const;

  napi_env env_;
  napi_value value_;  // a handle of the calling scope: it keeps the array (and its buffer) alive
  napi_typedarray_type type_;
};

}  // namespace tagmask::binding
