#include "js_args.h"

namespace tagmask::binding {
namespace {

// What an empty span points at: callers may pass it to memcpy and friends, which want a
// non-null pointer even for zero bytes.
alignas(16) unsigned char g_empty[16];

constexpr size_t kShownStringChars = 40;

}  // namespace

std::string DescribeValue(const Napi::Value& value) {
  switch (value.Type()) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return value.As<Napi::Boolean>().Value() ? "true" : "false";
    case napi_number: {
      // Converting a number primitive to text runs no user code.
      return value.ToString().Utf8Value();
    }
    case napi_bigint: return value.ToString().Utf8Value() + "n";
    case napi_string: {
      std::string text = value.As<Napi::String>().Utf8Value();
      if (text.size() > kShownStringChars) {
        size_t cut = kShownStringChars;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole characters
        text = text.substr(0, cut) + "...";
      }
      return "\"" + text + "\"";
    }
    case napi_symbol: return "a symbol";
    case napi_function: return "a function";
    case napi_external: return "an external";
    case napi_object:
      if (value.IsTypedArray()) return "a typed array";
      if (value.IsArray()) return "an array";
      if (value.IsArrayBuffer()) return "an ArrayBuffer";
      return "an object";
  }
  return "a value";
}

size_t TypedArrayArg::ElementSize() const noexcept {
  switch (type_) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array: return 1;
    case napi_int16_array:
    case napi_uint16_array: return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array: return 8;
    default: break;  // a newer element type (Float16Array): tagmask takes none of them
  }
  return 1;
}

void TypedArrayArg::ThrowWrongElementSize(const char* what, const char* name) {
  throw Error(ErrorCode::Internal, std::string(what) + ": " + name + " pinned as the wrong element type");
}

TypedArrayArg::UntypedSpan TypedArrayArg::PinUntyped(const char* what, const char* name, bool allow_empty) const {
  napi_typedarray_type type = napi_uint8_array;
  size_t length = 0;
  void* data = nullptr;
  napi_value buffer = nullptr;
  size_t offset = 0;
  // napi_get_typedarray_info gives the data pointer of ArrayBuffer- and SharedArrayBuffer-backed
  // arrays alike (Napi::ArrayBuffer::Data() fails on the latter).
  if (napi_get_typedarray_info(env_, value_, &type, &length, &data, &buffer, &offset) != napi_ok || type != type_) {
    ThrowInvalidArgument(std::string(what) + ": " + name + ": the typed array could not be read");
  }
  if (length != 0 && data != nullptr) return {data, length};
  // A detached buffer has no elements, so only an empty array needs the check.
  bool detached = false;
  if (napi_is_detached_arraybuffer(env_, buffer, &detached) != napi_ok) detached = false;
  if (detached) {
    ThrowInvalidArgument(std::string(what) + ": " + name +
                         " is detached: its ArrayBuffer was transferred (postMessage, structuredClone) or freed; pass "
                         "an array whose buffer is still usable");
  }
  // An empty array, or a view that lies outside a resizable buffer that shrank.
  if (!allow_empty) ThrowInvalidArgument(std::string(what) + ": " + name + " is empty; it must hold data");
  return {g_empty, 0};
}

bool TypedArrayArg::IsShared() const {
  napi_value buffer = nullptr;
  if (napi_get_typedarray_info(env_, value_, nullptr, nullptr, nullptr, &buffer, nullptr) != napi_ok) return true;
  bool plain = false;
  // A SharedArrayBuffer is not an ArrayBuffer to N-API.
  return napi_is_arraybuffer(env_, buffer, &plain) != napi_ok || !plain;
}

}  // namespace tagmask::binding
