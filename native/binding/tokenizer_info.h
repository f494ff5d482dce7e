// TokenizerInfo: the native vocabulary handle (token bytes, kinds, stop tokens, token tries).
// Created by createTokenizerInfo(VocabularyData) (lib/tokenizer/vocabulary.ts).
#pragma once

#include <napi.h>

#include <memory>

#include "tagmask/tokenizer_info.h"

namespace tagmask::binding {

class TokenizerInfoWrap : public Napi::ObjectWrap<TokenizerInfoWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// The wrapped object behind `value`, or throws InvalidArgument naming `what`.
  static TokenizerInfoWrap* FromValue(const Napi::Value& value, const char* what);

  explicit TokenizerInfoWrap(const Napi::CallbackInfo& info);
  const std::shared_ptr<const TokenizerInfo>& info() const { return info_; }

 private:
  static Napi::Value Create(const Napi::CallbackInfo& info);
  Napi::Value VocabSize(const Napi::CallbackInfo& info);
  Napi::Value TokenCount(const Napi::CallbackInfo& info);
  Napi::Value MaskWordCount(const Napi::CallbackInfo& info);
  Napi::Value EligibleCount(const Napi::CallbackInfo& info);
  Napi::Value MemoryBytes(const Napi::CallbackInfo& info);
  Napi::Value Fingerprint(const Napi::CallbackInfo& info);
  Napi::Value StopTokenIds(const Napi::CallbackInfo& info);
  Napi::Value TrieStats(const Napi::CallbackInfo& info);
  Napi::Value RuleWalkCache(const Napi::CallbackInfo& info);

  std::shared_ptr<const TokenizerInfo> info_;
};

}  // namespace tagmask::binding
