// Strict UTF-8 (RFC 3629): what may follow a lead byte. Overlong forms, surrogates and code
// points above U+10FFFF are invalid.
#pragma once

#include <cstdint>

namespace tagmask::utf8 {

/// For a lead byte: how many continuation bytes follow (0 for ASCII), and the allowed range of
/// the first continuation byte (the later ones are always 0x80..0xBF). Returns false for a byte
/// that cannot start a character.
inline bool Lead(uint8_t b, int* continuations, uint8_t* lo, uint8_t* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (b < 0x80) {
    *continuations = 0;
    return true;
  }
  if (b >= 0xC2 && b <= 0xDF) {
    *continuations = 1;
    return true;
  }
  if (b >= 0xE0 && b <= 0xEF) {
    *continuations = 2;
    if (b == 0xE0) *lo = 0xA0;
    if (b == 0xED) *hi = 0x9F;  // no surrogates
    return true;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    *continuations = 3;
    if (b == 0xF0) *lo = 0x90;
    if (b == 0xF4) *hi = 0x8F;
    return true;
  }
  return false;
}

/// Encodes a code point (no surrogate checks); returns the length (1..4).
inline int Encode(uint32_t cp, uint8_t out[4]) {
  if (cp < 0x80) {
    out[0] = static_cast<uint8_t>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<uint8_t>(0xC0 | (cp >> 6));
    out[1] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<uint8_t>(0xE0 | (cp >> 12));
    out[1] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<uint8_t>(0xF0 | (cp >> 18));
  out[1] = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace tagmask::utf8
