#include "tokenizer_info.h"

#include <cstdio>
#include <string>

#include "addon_data.h"
#include "errors.h"
#include "js_integer.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "TokenizerInfo";

// A typed array field of the vocabulary data, checked for its type.
Napi::TypedArray Field(const Napi::Object& data, const char* name, napi_typedarray_type type, const char* typeName) {
  Napi::Value v = data.Get(name);
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type) {
    ThrowInvalidArgument(std::string("createTokenizerInfo: data.") + name + " must be a " + typeName);
  }
  return v.As<Napi::TypedArray>();
}

template <typename T>
const T* Data(const Napi::TypedArray& a) {
  return reinterpret_cast<const T*>(static_cast<const uint8_t*>(a.ArrayBuffer().Data()) + a.ByteOffset());
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
                                    });
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set(kClassName, ctor);
  exports.Set("createTokenizerInfo", Napi::Function::New(env, Create, "createTokenizerInfo"));
}

TokenizerInfoWrap* TokenizerInfoWrap::FromValue(const Napi::Value& value, const char* what) {
  if (!IsWrapped(value, kClassName)) {
    ThrowInvalidArgument(std::string(what) + " must be a native TokenizerInfo (from createTokenizerInfo)");
  }
  return ObjectWrap<TokenizerInfoWrap>::Unwrap(value.As<Napi::Object>());
}

TokenizerInfoWrap::TokenizerInfoWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TokenizerInfoWrap>(info) {
  Napi::Env env = info.Env();
  Guarded(env, [&]() {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      ThrowInvalidArgument("TokenizerInfo cannot be constructed directly; use createTokenizerInfo(data)");
    }
    info_ = *info[0].As<Napi::External<std::shared_ptr<const TokenizerInfo>>>().Data();
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
      ThrowInvalidArgument("createTokenizerInfo: data.vocabSize must be a positive integer, got " + vs.ToString().Utf8Value());
    }
    Napi::TypedArray bytes = Field(data, "bytes", napi_uint8_array, "Uint8Array");
    Napi::TypedArray offsets = Field(data, "offsets", napi_uint32_array, "Uint32Array");
    Napi::TypedArray kinds = Field(data, "kinds", napi_uint8_array, "Uint8Array");
    Napi::TypedArray stops = Field(data, "stopTokenIds", napi_uint32_array, "Uint32Array");
    VocabularyView view;
    view.vocabSize = *vocabSize;
    view.bytes = Data<uint8_t>(bytes);
    view.byteCount = bytes.ElementLength();
    view.offsets = Data<uint32_t>(offsets);
    view.offsetCount = offsets.ElementLength();
    view.kinds = Data<uint8_t>(kinds);
    view.kindCount = kinds.ElementLength();
    view.stopIds = Data<uint32_t>(stops);
    view.stopCount = stops.ElementLength();
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

}  // namespace tagmask::binding
