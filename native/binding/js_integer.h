// Integer arguments and options of the binding. JavaScript hands every number over as a double;
// each one is checked here the same way (a number, integral, within its range) before it is
// converted, so that no cast silently changes a value (or is undefined behaviour, for NaN and
// out-of-range doubles). The callers keep their own messages, which name the argument.
#pragma once

#include <napi.h>

#include <cmath>
#include <optional>

namespace tagmask::binding {

/// Number.MAX_SAFE_INTEGER: the largest integer every double up to it holds exactly.
inline constexpr double kMaxSafeInteger = 9007199254740991.0;

/// `v` as a T when it is a JS number holding an integer in [lo, hi]; nothing otherwise (a
/// non-number, NaN, an infinity, a fraction or a value out of range).
template <typename T>
std::optional<T> IntegerIn(const Napi::Value& v, double lo, double hi) {
  if (!v.IsNumber()) return std::nullopt;
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || std::floor(d) != d) return std::nullopt;
  return static_cast<T>(d);
}

}  // namespace tagmask::binding
