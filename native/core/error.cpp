#include "tagmask/error.h"

namespace tagmask {

const char* ErrorCodeName(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::InvalidGrammar: return "InvalidGrammar";
    case ErrorCode::InvalidTokenizer: return "InvalidTokenizer";
    case ErrorCode::MatcherState: return "MatcherState";
    case ErrorCode::Device: return "Device";
    case ErrorCode::Internal: return "Internal";
    case ErrorCode::Aborted: return "Aborted";
  }
  return "Internal";
}

void ThrowInternal(const char* file, int line, const char* condition, const std::string& detail) {
  throw Error(ErrorCode::Internal, std::string("internal error (a bug in tagmask, please report it): ") +
                                       condition + " failed at " + file + ":" + std::to_string(line) +
                                       (detail.empty() ? "" : ": " + detail));
}

}  // namespace tagmask
