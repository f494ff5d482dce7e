// GrammarMatcher: one sequence's parser state (tagmask/matcher.h) as a JS object.
// createMatcher(compiledGrammar, options?) creates one; fork() copies one. The batch binding
// unwraps matchers with MatcherWrap::Unwrap to step many of them on the thread pool.
#pragma once

#include <napi.h>

#include <memory>

#include "tagmask/matcher.h"

namespace tagmask::binding {

class MatcherWrap : public Napi::ObjectWrap<MatcherWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// The wrapped matcher behind `value`, or throws InvalidArgument naming `what`.
  static MatcherWrap* FromValue(const Napi::Value& value, const char* what);

  explicit MatcherWrap(const Napi::CallbackInfo& info);
  Matcher& matcher() { return *matcher_; }
  const std::shared_ptr<Matcher>& shared() const { return matcher_; }

  /// A BatchMatcher's asynchronous operation takes the matcher for the pool (main thread only):
  /// while held, every call on this matcher and every other batch holding it throws MatcherState.
  void Hold() { ++holds_; }
  void Release() { --holds_; }
  bool held() const { return holds_ != 0; }

 private:
  static Napi::Value Create(const Napi::CallbackInfo& info);
  Napi::Value AcceptToken(const Napi::CallbackInfo& info);
  Napi::Value AcceptBytes(const Napi::CallbackInfo& info);
  Napi::Value FillNextTokenBitmask(const Napi::CallbackInfo& info);
  Napi::Value CanTerminate(const Napi::CallbackInfo& info);
  Napi::Value IsTerminated(const Napi::CallbackInfo& info);
  Napi::Value Rollback(const Napi::CallbackInfo& info);
  Napi::Value Reset(const Napi::CallbackInfo& info);
  Napi::Value Fork(const Napi::CallbackInfo& info);
  Napi::Value FindJumpForwardString(const Napi::CallbackInfo& info);
  Napi::Value StepCount(const Napi::CallbackInfo& info);
  Napi::Value StackCount(const Napi::CallbackInfo& info);
  Napi::Value InError(const Napi::CallbackInfo& info);
  Napi::Value ErrorMessage(const Napi::CallbackInfo& info);
  Napi::Value MemoryBytes(const Napi::CallbackInfo& info);
  Napi::Value BenchTrace(const Napi::CallbackInfo& info);

  /// Throws MatcherState naming `what` while an asynchronous batch operation holds the matcher.
  void CheckNotHeld(const char* what) const;

  // Shared with the BatchMatchers that step this matcher: an asynchronous batch operation keeps
  // it alive even if this object is finalized while the operation runs.
  std::shared_ptr<Matcher> matcher_;
  uint32_t holds_ = 0;  // asynchronous batch operations in flight that step this matcher
};

}  // namespace tagmask::binding
