// Code-point ranges to UTF-8 byte-range sequences: the classic split into pieces whose encodings
// are products of byte ranges, so a class becomes a handful of byte paths in the NFA.
#pragma once

#include <cstdint>
#include <vector>

namespace tagmask {

/// One byte-range sequence: byte k of the encoding lies in [lo[k], hi[k]], k < length.
struct Utf8Sequence {
  uint8_t length = 0;
  uint8_t lo[4] = {0, 0, 0, 0};
  uint8_t hi[4] = {0, 0, 0, 0};
};

/// Appends the sequences of code points in [lo, hi] (inclusive, hi <= 0x10FFFF); surrogates
/// (U+D800..U+DFFF) are left out.
void AppendUtf8Sequences(uint32_t lo, uint32_t hi, std::vector<Utf8Sequence>* out);

}  // namespace tagmask
