// Errors raised by the tagmask engine core.
//
// Three levels of checks:
//   - user input (a grammar buffer, a token id, a buffer size): throw tagmask::Error with a
//     code the binding maps to a typed JS error class, and a message that names what was wrong
//     and what was expected;
//   - internal invariants that must hold whatever the input: TAGMASK_CHECK, which throws an
//     Error with code Internal (never aborts the process);
//   - debug-only checks on hot paths: TAGMASK_DCHECK, compiled out unless TAGMASK_DEBUG.
#pragma once

#include <stdexcept>
#include <string>

namespace tagmask {

enum class ErrorCode {
  InvalidArgument,  // a caller passed a bad value (size, range, id): InvalidArgumentError in JS
  InvalidGrammar,   // a grammar buffer is corrupt or describes an unsupported grammar
  InvalidTokenizer, // token data is inconsistent
  MatcherState,     // the matcher is in its error state, or an operation is not allowed now
  Device,           // CUDA unavailable or a device call failed
  Internal,         // an invariant did not hold: a bug in tagmask
  Aborted,          // the caller cancelled the work (a compilation's AbortSignal): AbortError in JS
};

/// The one exception type of the core. The binding catches it at every entry point.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

/// Name of an error code, as used by the JS side to pick an error class.
const char* ErrorCodeName(ErrorCode code) noexcept;

[[noreturn]] void ThrowInternal(const char* file, int line, const char* condition, const std::string& detail);

}  // namespace tagmask

#define TAGMASK_CHECK(cond, detail)                                        \
  do {                                                                     \
    if (!(cond)) ::tagmask::ThrowInternal(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

#ifdef TAGMASK_DEBUG
#define TAGMASK_DCHECK(cond) TAGMASK_CHECK(cond, "debug check")
#else
#define TAGMASK_DCHECK(cond) \
  do {                       \
  } while (0)
#endif
