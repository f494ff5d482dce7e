#include "tokenizer_info.h"

#include <cstdio>
#include <string>
#include <vector>

#include "addon_data.h"
#include "errors.h"
#include "js_args.h"
#include "js_integer.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "TokenizerInfo";

// A typed array field of the vocabulary data (phase 1: read and checked for its type).
TypedArrayArg Field(const Napi::Object& data, const char* name, napi_typedarray_type type, const char* typeName) {
  Napi::Value v = data.Get(name);
  std::optional<TypedArrayArg> arg = TypedArrayArg::Of(v, {type});
  if (!arg) {
    ThrowInvalidArgument(std::string("createTokenizerInfo: data.") + name + " must be a " + typeName + ", got " +
                         DescribeValue(v));
  }
  return *arg;
}

// Phase 2: a field's elements, in private memory (the vocabulary is checked, then copied).
template <typename T>
TypedSpan<const T> Pinned(const TypedArrayArg& field, const char* name, std::vector<T>& storage) {
  return field.PinPrivate<T>("createTokenizerInfo", name, storage);
}

}  // namespace

void TokenizerInfoWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, kClassName,
                                    {
                                        InstanceAccessor<&TokenizerInfoWrap::VocabSize>("vocabSize"),
                                        InstanceAccessor<&TokenizerInfoWrap::TokenCount>("tokenCount"),
                                        InstanceAccessor<&TokenizerInfoWrap::MaskWordCount>("maskWordCount"),
                                        InstanceAccessor<&TokenizerInfoWrap::EligibleCount>("eligibleCount"),
                                        InstanceAccessor<&TokenizerInfoWrap::MemoryBytes>("memoryBytes"),
                                        InstanceAccessor<&TokenizerInfoWrap::Fingerprint>("fingerprint"),
                                        InstanceAccessor<&TokenizerInfoWrap::StopTokenIds>("stopTokenIds"),
                                        InstanceMethod<&TokenizerInfoWrap::TrieStats>("trieStats"),
                                        InstanceMethod<&TokenizerInfoWrap::RuleWalkCache>("ruleWalkCache"),
                                    });
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set(kClassName, ctor);
  exports.Set("createTokenizerInfo", Napi::Function::New(env, Create, "createTokenizerInfo"));
}

TokenizerInfoWrap* TokenizerInfoWrap::FromValue(const Napi::Value& value, const char* what) {
  TokenizerInfoWrap* wrap = UnwrapTagged<TokenizerInfoWrap>(value, WrappedClass::kTokenizerInfo);
  if (wrap == nullptr) {
    ThrowInvalidArgument(std::string(what) + " must be a native TokenizerInfo (from createTokenizerInfo), got " +
                         DescribeValue(value));
  }
  return wrap;
}

TokenizerInfoWrap::TokenizerInfoWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TokenizerInfoWrap>(info) {
  Napi::Env env = info.Env();
  Guarded(env, [&]() {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("TokenizerInfo cannot be constructed directly; use createTokenizerInfo(data)");
    }
    info_ = *info[0].As<Napi::External<std::shared_ptr<const TokenizerInfo>>>().Data();
    TagInstance(info, WrappedClass::kTokenizerInfo);
  });
}

Napi::Value TokenizerInfoWrap::Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsObject()) {
      ThrowInvalidArgument("createTokenizerInfo expects a VocabularyData object {vocabSize, bytes, offsets, kinds, stopTokenIds}");
    }
    Napi::Object data = info[0].As<Napi::Object>();
    Napi::Value vs = data.Get("vocabSize");
    const std::optional<uint32_t> vocabSize = IntegerIn<uint32_t>(vs, 1, 2147483648.0);
    if (!vocabSize) {
      ThrowInvalidArgument("createTokenizerInfo: data.vocabSize must be a positive integer, got " + DescribeValue(vs));
    }
    const TypedArrayArg bytes = Field(data, "bytes", napi_uint8_array, "Uint8Array");
    const TypedArrayArg offsets = Field(data, "offsets", napi_uint32_array, "Uint32Array");
    const TypedArrayArg kinds = Field(data, "kinds", napi_uint8_array, "Uint8Array");
    const TypedArrayArg stops = Field(data, "stopTokenIds", napi_uint32_array, "Uint32Array");
    // Phase 2 (js_args.h): every getter has run; no JS runs from here on.
    std::vector<uint8_t> bytes_copy, kinds_copy;
    std::vector<uint32_t> offsets_copy, stops_copy;
    const TypedSpan<const uint8_t> b = Pinned(bytes, "data.bytes", bytes_copy);
    const TypedSpan<const uint32_t> o = Pinned(offsets, "data.offsets", offsets_copy);
    const TypedSpan<const uint8_t> k = Pinned(kinds, "data.kinds", kinds_copy);
    const TypedSpan<const uint32_t> s = Pinned(stops, "data.stopTokenIds", stops_copy);
    VocabularyView view;
    view.vocabSize = *vocabSize;
    view.bytes = b.data;
    view.byteCount = b.length;
    view.offsets = o.data;
    view.offsetCount = o.length;
    view.kinds = k.data;
    view.kindCount = k.length;
    view.stopIds = s.data;
    view.stopCount = s.length;
    std::shared_ptr<const TokenizerInfo> created = TokenizerInfo::Create(view);
    Napi::FunctionReference& ctor = AddonData::Of(env).constructors[kClassName];
    return ctor.New({Napi::External<std::shared_ptr<const TokenizerInfo>>::New(env, &created)});
  });
}

Napi::Value TokenizerInfoWrap::VocabSize(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), info_->VocabSize()); }
Napi::Value TokenizerInfoWrap::TokenCount(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), info_->TokenCount()); }
Napi::Value TokenizerInfoWrap::MaskWordCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), info_->MaskWordCount());
}
Napi::Value TokenizerInfoWrap::EligibleCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), info_->EligibleCount());
}
Napi::Value TokenizerInfoWrap::MemoryBytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(info_->MemoryBytes()));
}
Napi::Value TokenizerInfoWrap::Fingerprint(const Napi::CallbackInfo& info) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(info_->Fingerprint()));
  return Napi::String::New(info.Env(), hex);
}
Napi::Value TokenizerInfoWrap::StopTokenIds(const Napi::CallbackInfo& info) {
  const auto& ids = info_->StopIds();
  Napi::Uint32Array out = Napi::Uint32Array::New(info.Env(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) out[i] = ids[i];
  return out;
}
Napi::Value TokenizerInfoWrap::TrieStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("plainTokens", info_->PlainTrie().TokenCount());
  out.Set("plainNodes", info_->PlainTrie().NodeCount());
  out.Set("impureTokens", info_->ImpureTrie().TokenCount());
  out.Set("impureNodes", info_->ImpureTrie().NodeCount());
  out.Set("maxTokenLength", info_->MaxTokenLength());
  out.Set("trieBytes", static_cast<double>(info_->PlainTrie().MemoryBytes() + info_->ImpureTrie().MemoryBytes()));
  return out;
}

Napi::Value TokenizerInfoWrap::RuleWalkCache(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("entries", static_cast<double>(info_->RuleWalkEntries()));
  out.Set("bytes", static_cast<double>(info_->RuleWalkBytes()));
  out.Set("maxEntries", static_cast<double>(TokenizerInfo::kRuleWalkMaxEntries));
  out.Set("maxBytes", static_cast<double>(TokenizerInfo::kRuleWalkMaxBytes));
  return out;
}

}  // namespace tagmask::binding
