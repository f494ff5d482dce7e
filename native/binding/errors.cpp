#include "errors.h"

#include <array>

#include "addon_data.h"

namespace tagmask::binding {
namespace {

constexpr std::array<ErrorCode, 7> kCodes = {ErrorCode::InvalidArgument, ErrorCode::InvalidGrammar,
                                             ErrorCode::InvalidTokenizer, ErrorCode::MatcherState,
                                             ErrorCode::Device, ErrorCode::Internal, ErrorCode::Aborted};

static_assert(kCodes.size() == AddonData::kErrorCodeCount, "one registered class per error code");

}  // namespace

Napi::Value SetErrorClasses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() != 1 || !info[0].IsObject()) {
      ThrowInvalidArgument("setErrorClasses expects one object mapping error codes to classes");
    }
    Napi::Object map = info[0].As<Napi::Object>();
    auto& classes = AddonData::Of(env).errorClasses;
    for (size_t i = 0; i < kCodes.size(); ++i) {
      Napi::Value ctor = map.Get(ErrorCodeName(kCodes[i]));
      if (!ctor.IsFunction()) {
        ThrowInvalidArgument(std::string("setErrorClasses: missing class for ") + ErrorCodeName(kCodes[i]));
      }
      classes[i] = Napi::Persistent(ctor.As<Napi::Function>());
    }
    return env.Undefined();
  });
}

Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message) {
  auto& classes = AddonData::Of(env).errorClasses;
  for (size_t i = 0; i < kCodes.size(); ++i) {
    if (kCodes[i] != code || classes[i].IsEmpty()) continue;
    Napi::Object err = classes[i].New({Napi::String::New(env, message)});
    return Napi::Error(env, err);
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, std::string("TAGMASK_") + ErrorCodeName(code)));
  return err;
}

void ThrowInvalidArgument(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

}  // namespace tagmask::binding
