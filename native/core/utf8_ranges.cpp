#include "utf8_ranges.h"

#include "utf8.h"

namespace tagmask {
namespace {

// Splits [lo, hi] (all encoded with the same length, no surrogates) until each piece's
// encodings form a product of byte ranges: all but the bytes below some position must agree.
void SplitSameLength(uint32_t lo, uint32_t hi, int length, std::vector<Utf8Sequence>* out) {
  for (int i = 1; i < length; ++i) {
    const uint32_t m = (1u << (6 * i)) - 1;  // the low i continuation bytes
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        SplitSameLength(lo, lo | m, length, out);
        SplitSameLength((lo | m) + 1, hi, length, out);
        return;
      }
      if ((hi & m) != m) {
        SplitSameLength(lo, (hi & ~m) - 1, length, out);
        SplitSameLength(hi & ~m, hi, length, out);
        return;
      }
    }
  }
  uint8_t a[4], b[4];
  utf8::Encode(lo, a);
  utf8::Encode(hi, b);
  Utf8Sequence seq;
  seq.length = static_cast<uint8_t>(length);
  for (int k = 0; k < length; ++k) {
    seq.lo[k] = a[k];
    seq.hi[k] = b[k];
  }
  out->push_back(seq);
}

}  // namespace

void AppendUtf8Sequences(uint32_t lo, uint32_t hi, std::vector<Utf8Sequence>* out) {
  if (lo > hi) return;
  if (lo <= 0xDFFF && hi >= 0xD800) {
    if (lo < 0xD800) AppendUtf8Sequences(lo, 0xD7FF, out);
    if (hi > 0xDFFF) AppendUtf8Sequences(0xE000, hi, out);
    return;
  }
  static const uint32_t kLimits[] = {0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
  uint32_t start = lo;
  for (int length = 1; length <= 4 && start <= hi; ++length) {
    const uint32_t limit = kLimits[length - 1];
    if (start > limit) continue;
    const uint32_t end = hi < limit ? hi : limit;
    SplitSameLength(start, end, length, out);
    start = end + 1;
  }
}

}  // namespace tagmask
