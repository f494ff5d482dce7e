// BatchMatcher: N matchers stepped together (tagmask/batch.h). Synchronous calls run on the
// calling thread plus the shared pool; asynchronous ones copy their arguments into C++ structs
// on the main thread, run entirely on the pool (touching only C++ memory: the matchers and the
// batch's own bitmask buffer), and settle their Promise back on the main thread through one
// thread-safe function per environment.
#include "batch_matcher.h"

#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "addon_data.h"
#include "compiled_grammar.h"
#include "errors.h"
#include "js_integer.h"
#include "matcher.h"
#include "tagmask/batch.h"
#include "tagmask/thread_pool.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "BatchMatcher";

class BatchMatcherWrap;

enum class JobKind { kFill, kAccept, kRollback };

// One asynchronous operation. Created and destroyed on the main thread; between the two only
// the pool thread running it touches it.
struct BatchJob {
  JobKind kind;
  BatchMatcherWrap* self = nullptr;
  Napi::ObjectReference keep_alive;  // the BatchMatcher JS object (and through it the matchers)
  Napi::Promise::Deferred deferred;
  std::vector<uint32_t> rows;        // fill: the rows to fill (empty: all)
  std::vector<int32_t> tokens;       // accept
  std::vector<uint32_t> counts;      // rollback
  std::vector<uint8_t> accepted;     // accept: result
  std::vector<BatchRowError> errors;
  std::string failure;               // a failure of the whole job (not of a row)
  explicit BatchJob(Napi::Env env) : kind(JobKind::kFill), deferred(Napi::Promise::Deferred::New(env)) {}
};

struct EnvState;
void SettleJob(Napi::Env env, Napi::Function, EnvState* state, BatchJob* job);
using Tsfn = Napi::TypedThreadSafeFunction<EnvState, BatchJob, SettleJob>;

// Per environment: the thread-safe function that carries finished jobs back, and counts of jobs
// in flight. `running` (jobs queued or running on the pool) is what the environment cleanup
// waits for; `pending` (jobs not yet settled) keeps the event loop alive while non-zero.
struct EnvState {
  Tsfn tsfn;
  std::mutex mutex;
  std::condition_variable idle;
  size_t running = 0;
  size_t pending = 0;
};

std::mutex g_envs_mutex;
std::unordered_map<napi_env, std::unique_ptr<EnvState>> g_envs;

void CleanupEnv(void* arg) {
  napi_env env = static_cast<napi_env>(arg);
  EnvState* state = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_envs_mutex);
    auto it = g_envs.find(env);
    if (it == g_envs.end()) return;
    state = it->second.get();
  }
  // The matchers belong to this environment's JS objects, which are freed after this hook:
  // every job that may still touch them has to finish first.
  {
    std::unique_lock<std::mutex> lock(state->mutex);
    state->idle.wait(lock, [state]() { return state->running == 0; });
  }
  state->tsfn.Release();
  // The state itself stays until the thread-safe function's finalizer (it is its context).
}

EnvState& StateOf(Napi::Env env) {
  std::lock_guard<std::mutex> lock(g_envs_mutex);
  auto it = g_envs.find(env);
  if (it != g_envs.end()) return *it->second;
  auto state = std::make_unique<EnvState>();
  EnvState* raw = state.get();
  raw->tsfn = Tsfn::New(env, "tagmask batch", 0, 1, raw, [](Napi::Env finalize_env, void*, EnvState* ctx) {
    std::lock_guard<std::mutex> lock(g_envs_mutex);
    auto found = g_envs.find(finalize_env);
    if (found != g_envs.end() && found->second.get() == ctx) g_envs.erase(found);
  });
  raw->tsfn.Unref(env);  // idle: does not keep the process alive
  g_envs.emplace(env, std::move(state));
  napi_add_env_cleanup_hook(env, CleanupEnv, env);
  return *raw;
}

Napi::Value ErrorsToJs(Napi::Env env, const std::vector<BatchRowError>& errors) {
  Napi::Array out = Napi::Array::New(env, errors.size());
  for (size_t i = 0; i < errors.size(); ++i) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("row", errors[i].row);
    o.Set("error", MakeError(env, errors[i].code, "row " + std::to_string(errors[i].row) + ": " + errors[i].message).Value());
    out[i] = o;
  }
  return out;
}

const uint32_t* TypedU32(const Napi::Value& v) {
  Napi::TypedArray a = v.As<Napi::TypedArray>();
  return reinterpret_cast<const uint32_t*>(static_cast<const char*>(a.ArrayBuffer().Data()) + a.ByteOffset());
}

class BatchMatcherWrap : public Napi::ObjectWrap<BatchMatcherWrap> {
 public:
  explicit BatchMatcherWrap(const Napi::CallbackInfo& info);

  Napi::Value Fill(const Napi::CallbackInfo& info);
  Napi::Value FillAsync(const Napi::CallbackInfo& info);
  Napi::Value FillRefs(const Napi::CallbackInfo& info);
  Napi::Value Accept(const Napi::CallbackInfo& info);
  Napi::Value AcceptAsync(const Napi::CallbackInfo& info);
  Napi::Value Rollback(const Napi::CallbackInfo& info);
  Napi::Value RollbackAsync(const Napi::CallbackInfo& info);
  Napi::Value Bitmask(const Napi::CallbackInfo& info);
  Napi::Value Size(const Napi::CallbackInfo& info);
  Napi::Value MaskWords(const Napi::CallbackInfo& info);
  Napi::Value Busy(const Napi::CallbackInfo& info);

  // Runs a job on the calling (pool) thread.
  void RunJob(BatchJob& job);
  void Settle(Napi::Env env, BatchJob& job);

 private:
  void CheckIdle(const char* what) const;
  ThreadPool* Pool();
  void ParseRows(const Napi::Value& v, const char* what, std::vector<uint32_t>& rows) const;
  void ParseTokens(const Napi::Value& v, const char* what, std::vector<int32_t>& tokens) const;
  void ParseCounts(const Napi::Value& v, const char* what, std::vector<uint32_t>& counts) const;
  Napi::Value Submit(Napi::Env env, std::unique_ptr<BatchJob> job);

  std::vector<Napi::ObjectReference> matcher_refs_;  // keep the matchers alive
  std::vector<MatcherWrap*> wraps_;                   // the same matchers' wraps, kept alive by matcher_refs_
  std::unique_ptr<MatcherBatch> batch_;
  bool parallel_ = true;
  bool busy_ = false;  // an asynchronous operation is in flight (main thread only)
  // The batch's own [N, words] bitmask (C++ memory shown to JS as an Int32Array): asynchronous
  // fills write here, so the pool never touches memory JS could detach or resize.
  uint32_t* own_ = nullptr;
  Napi::Reference<Napi::Int32Array> own_array_;
  std::shared_ptr<ThreadPool> pool_;  // held while an operation runs
  std::vector<BatchRowError> sync_errors_;
  std::vector<uint8_t> sync_accepted_;
  std::vector<uint32_t> sync_rows_;
  std::vector<uint32_t> sync_counts_;
  std::vector<int32_t> sync_tokens_;
};

BatchMatcherWrap::BatchMatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BatchMatcherWrap>(info) {
  Napi::Env env = info.Env();
  try {
    constexpr const char* what = "new BatchMatcher(matchers, options)";
    if (!info[0].IsArray()) ThrowInvalidArgument(std::string(what) + ": matchers must be an array of GrammarMatcher handles");
    Napi::Array list = info[0].As<Napi::Array>();
    if (list.Length() == 0) ThrowInvalidArgument(std::string(what) + ": matchers is empty; a batch needs at least one matcher");
    std::vector<Matcher*> matchers;
    matchers.reserve(list.Length());
    for (uint32_t i = 0; i < list.Length(); ++i) {
      const std::string name = "matchers[" + std::to_string(i) + "]";
      Napi::Value v = list.Get(i);
      MatcherWrap* wrap = MatcherWrap::FromValue(v, name.c_str());
      matchers.push_back(&wrap->matcher());
      wraps_.push_back(wrap);
      matcher_refs_.push_back(Napi::Persistent(v.As<Napi::Object>()));
    }
    if (info[1].IsObject()) {
      Napi::Value p = info[1].As<Napi::Object>().Get("parallel");
      if (!p.IsUndefined() && !p.IsBoolean()) ThrowInvalidArgument(std::string(what) + ": options.parallel must be a boolean");
      parallel_ = !p.IsBoolean() || p.As<Napi::Boolean>().Value();
    }
    batch_ = std::make_unique<MatcherBatch>(std::move(matchers));
    const size_t words = batch_->size() * batch_->MaskWords();
    auto storage = std::make_unique<uint32_t[]>(words);
    own_ = storage.get();
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(
        env, storage.get(), words * sizeof(uint32_t),
        [](Napi::Env, void* data) { std::unique_ptr<uint32_t[]> drop(static_cast<uint32_t*>(data)); });
    storage.release();  // owned by the ArrayBuffer now
    own_array_ = Napi::Persistent(Napi::Int32Array::New(env, words, buffer, 0));
    sync_errors_.reserve(4);
    sync_accepted_.resize(batch_->size());
    sync_rows_.reserve(batch_->size());
    sync_counts_.resize(batch_->size());
    sync_tokens_.resize(batch_->size());
  } catch (const Napi::Error&) {
    throw;
  } catch (const Error& e) {
    throw MakeError(env, e.code(), e.what());
  } catch (const std::exception& e) {
    throw MakeError(env, ErrorCode::Internal, std::string("internal error: ") + e.what());
  }
}

void BatchMatcherWrap::CheckIdle(const char* what) const {
  if (busy_) {
    throw Error(ErrorCode::MatcherState, std::string(what) +
                                             ": an asynchronous batch operation is still running; await it before "
                                             "starting another one on this batch");
  }
  for (size_t i = 0; i < wraps_.size(); ++i) {
    if (wraps_[i]->held()) {
      throw Error(ErrorCode::MatcherState, std::string(what) + ": matchers[" + std::to_string(i) +
                                               "] is being stepped by another BatchMatcher's asynchronous operation; "
                                               "await that operation first");
    }
  }
}

ThreadPool* BatchMatcherWrap::Pool() {
  if (!parallel_) return nullptr;
  if (!pool_) pool_ = SharedThreadPool();
  // A resize replaced the shared pool: follow it (the old one finishes and joins on release).
  std::shared_ptr<ThreadPool> current = SharedThreadPool();
  if (current != pool_) pool_ = std::move(current);
  return pool_.get();
}

void BatchMatcherWrap::ParseRows(const Napi::Value& v, const char* what, std::vector<uint32_t>& rows) const {
  rows.clear();
  if (v.IsUndefined() || v.IsNull()) return;
  if (v.IsTypedArray() && (v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array ||
                           v.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array)) {
    const size_t n = v.As<Napi::TypedArray>().ElementLength();
    const uint32_t* src = TypedU32(v);
    rows.assign(src, src + n);  // range-checked (as unsigned: -1 is out of range) by MatcherBatch
    return;
  }
  if (!v.IsArray()) ThrowInvalidArgument(std::string(what) + ": rows must be an Int32Array or an array of row numbers");
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value x = a.Get(i);
    const std::optional<uint32_t> row = IntegerIn<uint32_t>(x, 0, 4294967295.0);
    if (!row) {
      ThrowInvalidArgument(std::string(what) + ": rows[" + std::to_string(i) + "] must be a row number, got " +
                           x.ToString().Utf8Value());
    }
    rows.push_back(*row);
  }
}

void BatchMatcherWrap::ParseTokens(const Napi::Value& v, const char* what, std::vector<int32_t>& tokens) const {
  const size_t n = batch_->size();
  tokens.resize(n);
  if (v.IsTypedArray() && (v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array ||
                           v.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array)) {
    if (v.As<Napi::TypedArray>().ElementLength() != n) {
      ThrowInvalidArgument(std::string(what) + ": tokens must have one entry per row (" + std::to_string(n) + "), got " +
                           std::to_string(v.As<Napi::TypedArray>().ElementLength()));
    }
    std::memcpy(tokens.data(), TypedU32(v), n * sizeof(int32_t));
    return;
  }
  if (!v.IsArray() || v.As<Napi::Array>().Length() != n) {
    ThrowInvalidArgument(std::string(what) + ": tokens must be an Int32Array or an array of " + std::to_string(n) +
                         " token ids (one per row; -1 skips a row)");
  }
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Value x = a.Get(i);
    const std::optional<int32_t> token = IntegerIn<int32_t>(x, -1, 2147483647.0);
    if (!token) {
      ThrowInvalidArgument(std::string(what) + ": tokens[" + std::to_string(i) + "] must be a token id or -1, got " +
                           x.ToString().Utf8Value());
    }
    tokens[i] = *token;
  }
}

void BatchMatcherWrap::ParseCounts(const Napi::Value& v, const char* what, std::vector<uint32_t>& counts) const {
  const size_t n = batch_->size();
  counts.assign(n, 0);
  if (v.IsNumber()) {
    const std::optional<uint32_t> steps = IntegerIn<uint32_t>(v, 0, 4294967295.0);
    if (!steps) {
      ThrowInvalidArgument(std::string(what) + ": steps must be a non-negative integer, got " + v.ToString().Utf8Value());
    }
    counts.assign(n, *steps);
    return;
  }
  if (v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array &&
      v.As<Napi::TypedArray>().ElementLength() == n) {
    const int32_t* src = reinterpret_cast<const int32_t*>(TypedU32(v));
    for (size_t i = 0; i < n; ++i) {
      if (src[i] < 0) {
        ThrowInvalidArgument(std::string(what) + ": steps[" + std::to_string(i) + "] = " + std::to_string(src[i]) +
                             " is negative");
      }
      counts[i] = static_cast<uint32_t>(src[i]);
    }
    return;
  }
  if (v.IsArray() && v.As<Napi::Array>().Length() == n) {
    Napi::Array a = v.As<Napi::Array>();
    for (uint32_t i = 0; i < n; ++i) {
      const std::optional<uint32_t> steps = IntegerIn<uint32_t>(a.Get(i), 0, 4294967295.0);
      if (!steps) {
        ThrowInvalidArgument(std::string(what) + ": steps[" + std::to_string(i) + "] must be a non-negative integer");
      }
      counts[i] = *steps;
    }
    return;
  }
  ThrowInvalidArgument(std::string(what) + ": steps must be a number (every row) or an Int32Array / array of " +
                       std::to_string(n) + " counts (one per row)");
}

Napi::Value BatchMatcherWrap::Fill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillNextTokenBitmasks(out, rows)";
    CheckIdle(what);
    uint32_t* out = own_;
    if (!info[0].IsUndefined() && !info[0].IsNull()) {
      if (!info[0].IsTypedArray() || (info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array &&
                                      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)) {
        ThrowInvalidArgument(std::string(what) + ": out must be an Int32Array");
      }
      const uint64_t need = static_cast<uint64_t>(batch_->size()) * batch_->MaskWords();
      const uint64_t got = info[0].As<Napi::TypedArray>().ElementLength();
      if (got < need) {
        ThrowInvalidArgument(std::string(what) + ": out must have at least N*ceil(V/32) = " +
                             std::to_string(batch_->size()) + "*" + std::to_string(batch_->MaskWords()) + " = " +
                             std::to_string(need) + " int32 words, got " + std::to_string(got));
      }
      out = const_cast<uint32_t*>(TypedU32(info[0]));
    }
    ParseRows(info[1], what, sync_rows_);
    const bool every_row = info[1].IsUndefined() || info[1].IsNull();
    if (!every_row && sync_rows_.empty()) return Napi::Array::New(env, 0);  // an empty row list fills nothing
    batch_->Fill(out, every_row ? nullptr : sync_rows_.data(), sync_rows_.size(), Pool(), sync_errors_);
    return ErrorsToJs(env, sync_errors_);
  });
}

Napi::Value BatchMatcherWrap::FillRefs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillMaskRefs(refs, compact, options)";
    // Every argument and option is read before any typed-array pointer is taken.
    const auto is_words = [](const Napi::Value& v) {
      return v.IsTypedArray() && (v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array ||
                                  v.As<Napi::TypedArray>().TypedArrayType() == napi_uint32_array);
    };
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
      ThrowInvalidArgument(std::string(what) + ": refs must be an Int32Array with one entry per row of the batch");
    }
    if (!is_words(info[1])) {
      ThrowInvalidArgument(std::string(what) + ": compact must be an Int32Array (the dense rows of rows whose mask is " +
                           "not a stored one)");
    }
    Napi::Value rows_value = env.Undefined();
    Napi::Value grammar_value = env.Undefined();
    if (!info[2].IsUndefined() && !info[2].IsNull()) {
      if (!info[2].IsObject()) ThrowInvalidArgument(std::string(what) + ": options must be an object");
      rows_value = info[2].As<Napi::Object>().Get("rows");
      grammar_value = info[2].As<Napi::Object>().Get("grammar");
    }
    ParseRows(rows_value, what, sync_rows_);
    const bool every_row = rows_value.IsUndefined() || rows_value.IsNull();
    const CompiledGrammar* grammar = nullptr;
    if (!grammar_value.IsUndefined() && !grammar_value.IsNull()) {
      grammar = CompiledGrammarWrap::FromValue(grammar_value, (std::string(what) + ": options.grammar").c_str())->grammar().get();
    } else {
      grammar = &batch_->matcher(0).grammar();
      for (size_t r = 1; r < batch_->size(); ++r) {
        if (&batch_->matcher(r).grammar() != grammar) {
          ThrowInvalidArgument(std::string(what) + ": matchers[0] and matchers[" + std::to_string(r) +
                               "] use different compiled grammars; pass options.grammar to say whose mask store the " +
                               "refs name (rows of other grammars get compact rows)");
        }
      }
    }
    const size_t n = batch_->size();
    const size_t count = every_row ? n : sync_rows_.size();
    const uint64_t words = batch_->MaskWords();
    Napi::TypedArray refs = info[0].As<Napi::TypedArray>();
    Napi::TypedArray compact = info[1].As<Napi::TypedArray>();
    if (refs.ElementLength() < n) {
      ThrowInvalidArgument(std::string(what) + ": refs must have at least " + std::to_string(n) +
                           " entries (one per row of the batch), got " + std::to_string(refs.ElementLength()));
    }
    if (compact.ElementLength() < count * words) {
      ThrowInvalidArgument(std::string(what) + ": compact must have at least " + std::to_string(count) + "*" +
                           std::to_string(words) + " = " + std::to_string(count * words) + " int32 words (room for " +
                           std::to_string(count) + " rows of ceil(V/32) = " + std::to_string(words) +
                           " words: every filled row may need one), got " + std::to_string(compact.ElementLength()));
    }
    int32_t* refs_data = reinterpret_cast<int32_t*>(static_cast<char*>(refs.ArrayBuffer().Data()) + refs.ByteOffset());
    uint32_t* compact_data = const_cast<uint32_t*>(TypedU32(compact));
    CheckIdle(what);
    size_t compact_rows = 0;
    sync_errors_.clear();
    if (every_row || !sync_rows_.empty()) {  // an empty row list fills nothing
      compact_rows = batch_->FillRefs(*grammar, refs_data, compact_data, every_row ? nullptr : sync_rows_.data(),
                                      sync_rows_.size(), Pool(), sync_errors_);
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("compactRows", static_cast<double>(compact_rows));
    out.Set("errors", ErrorsToJs(env, sync_errors_));
    return out;
  });
}

Napi::Value BatchMatcherWrap::Accept(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.acceptTokens(tokens)";
    CheckIdle(what);
    ParseTokens(info[0], what, sync_tokens_);
    batch_->Accept(sync_tokens_.data(), sync_accepted_.data(), Pool(), sync_errors_);
    Napi::Uint8Array accepted = Napi::Uint8Array::New(env, batch_->size());
    std::memcpy(accepted.Data(), sync_accepted_.data(), batch_->size());
    Napi::Object out = Napi::Object::New(env);
    out.Set("accepted", accepted);
    out.Set("errors", ErrorsToJs(env, sync_errors_));
    return out;
  });
}

Napi::Value BatchMatcherWrap::Rollback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.rollback(steps)";
    CheckIdle(what);
    ParseCounts(info[0], what, sync_counts_);
    batch_->Rollback(sync_counts_.data(), Pool(), sync_errors_);
    return ErrorsToJs(env, sync_errors_);
  });
}

Napi::Value BatchMatcherWrap::Submit(Napi::Env env, std::unique_ptr<BatchJob> job) {
  EnvState& state = StateOf(env);
  ThreadPool* pool = Pool();
  std::shared_ptr<ThreadPool> holder = pool != nullptr ? pool_ : SharedThreadPool();
  job->self = this;
  job->keep_alive = Napi::Persistent(Value());
  Napi::Promise promise = job->deferred.Promise();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    ++state.running;
  }
  if (state.pending++ == 0) state.tsfn.Ref(env);
  busy_ = true;
  for (MatcherWrap* w : wraps_) w->Hold();
  BatchJob* raw = job.release();  // owned by the task until SettleJob takes it back
  EnvState* st = &state;
  holder->Submit([raw, st]() {
    try {
      raw->self->RunJob(*raw);
    } catch (const std::exception& e) {
      raw->failure = e.what();
    }
    // Queue the settlement first, then report "not running": once running is 0 the
    // environment may be torn down, so nothing here may touch it afterwards.
    const napi_status queued = st->tsfn.BlockingCall(raw);
    if (queued != napi_ok) {
      // The environment is closing: nobody will settle the promise. Its references die with
      // the environment, so they must not be released from this thread.
      raw->keep_alive.SuppressDestruct();
      std::unique_ptr<BatchJob> drop(raw);
    }
    std::lock_guard<std::mutex> lock(st->mutex);
    if (--st->running == 0) st->idle.notify_all();
  });
  return promise;
}

void BatchMatcherWrap::RunJob(BatchJob& job) {
  // The pool thread running this job calls ParallelFor on the same pool: it works on the rows
  // itself and the other workers join in.
  ThreadPool* pool = parallel_ ? pool_.get() : nullptr;
  switch (job.kind) {
    case JobKind::kFill:
      batch_->Fill(own_, job.rows.empty() ? nullptr : job.rows.data(), job.rows.size(), pool, job.errors);
      break;
    case JobKind::kAccept:
      job.accepted.resize(batch_->size());
      batch_->Accept(job.tokens.data(), job.accepted.data(), pool, job.errors);
      break;
    case JobKind::kRollback:
      batch_->Rollback(job.counts.data(), pool, job.errors);
      break;
  }
}

void BatchMatcherWrap::Settle(Napi::Env env, BatchJob& job) {
  busy_ = false;
  for (MatcherWrap* w : wraps_) w->Release();
  if (!job.failure.empty()) {
    job.deferred.Reject(MakeError(env, ErrorCode::Internal, "batch operation failed: " + job.failure).Value());
    return;
  }
  switch (job.kind) {
    case JobKind::kFill: {
      Napi::Object out = Napi::Object::New(env);
      out.Set("bitmask", own_array_.Value());
      out.Set("errors", ErrorsToJs(env, job.errors));
      job.deferred.Resolve(out);
      break;
    }
    case JobKind::kAccept: {
      Napi::Uint8Array accepted = Napi::Uint8Array::New(env, job.accepted.size());
      std::memcpy(accepted.Data(), job.accepted.data(), job.accepted.size());
      Napi::Object out = Napi::Object::New(env);
      out.Set("accepted", accepted);
      out.Set("errors", ErrorsToJs(env, job.errors));
      job.deferred.Resolve(out);
      break;
    }
    case JobKind::kRollback:
      job.deferred.Resolve(ErrorsToJs(env, job.errors));
      break;
  }
}

void SettleJob(Napi::Env env, Napi::Function, EnvState* state, BatchJob* job) {
  std::unique_ptr<BatchJob> owned(job);
  if (env == nullptr) {
    // The thread-safe function is being finalized with this job still queued.
    owned->keep_alive.SuppressDestruct();
    return;
  }
  // Nothing may escape a thread-safe function callback. While a worker thread is being
  // terminated, JS cannot run and every N-API call fails (node-addon-api throws for it): the
  // promise then simply stays unsettled, as the environment is going away.
  try {
    owned->self->Settle(env, *owned);
  } catch (const Napi::Error& e) {
    try {
      owned->deferred.Reject(e.Value());
    } catch (...) {
    }
  } catch (...) {
  }
  if (--state->pending == 0) state->tsfn.Unref(env);
}

Napi::Value BatchMatcherWrap::FillAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillNextTokenBitmasksAsync(rows)";
    CheckIdle(what);
    auto job = std::make_unique<BatchJob>(env);
    job->kind = JobKind::kFill;
    ParseRows(info[0], what, job->rows);
    if (job->rows.empty() && !(info[0].IsUndefined() || info[0].IsNull())) {
      // An explicit empty row list fills nothing; resolve at once rather than fill everything.
      Napi::Object out = Napi::Object::New(env);
      out.Set("bitmask", own_array_.Value());
      out.Set("errors", Napi::Array::New(env, 0));
      job->deferred.Resolve(out);
      return job->deferred.Promise();
    }
    return Submit(env, std::move(job));
  });
}

Napi::Value BatchMatcherWrap::AcceptAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.acceptTokensAsync(tokens)";
    CheckIdle(what);
    auto job = std::make_unique<BatchJob>(env);
    job->kind = JobKind::kAccept;
    ParseTokens(info[0], what, job->tokens);
    return Submit(env, std::move(job));
  });
}

Napi::Value BatchMatcherWrap::RollbackAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.rollbackAsync(steps)";
    CheckIdle(what);
    auto job = std::make_unique<BatchJob>(env);
    job->kind = JobKind::kRollback;
    ParseCounts(info[0], what, job->counts);
    return Submit(env, std::move(job));
  });
}

Napi::Value BatchMatcherWrap::Bitmask(const Napi::CallbackInfo& /*info*/) { return own_array_.Value(); }

Napi::Value BatchMatcherWrap::Size(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(batch_->size()));
}

Napi::Value BatchMatcherWrap::MaskWords(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), batch_->MaskWords());
}

Napi::Value BatchMatcherWrap::Busy(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), busy_); }

}  // namespace

void InitBatchMatcher(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = BatchMatcherWrap::DefineClass(
      env, kClassName,
      {BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::Fill>("fill"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::FillAsync>("fillAsync"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::FillRefs>("fillRefs"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::Accept>("accept"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::AcceptAsync>("acceptAsync"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::Rollback>("rollback"),
       BatchMatcherWrap::InstanceMethod<&BatchMatcherWrap::RollbackAsync>("rollbackAsync"),
       BatchMatcherWrap::InstanceAccessor<&BatchMatcherWrap::Bitmask>("bitmask"),
       BatchMatcherWrap::InstanceAccessor<&BatchMatcherWrap::Size>("size"),
       BatchMatcherWrap::InstanceAccessor<&BatchMatcherWrap::MaskWords>("maskWords"),
       BatchMatcherWrap::InstanceAccessor<&BatchMatcherWrap::Busy>("busy")});
  AddonData::Of(env).constructors[kClassName] = Napi::Persistent(ctor);
  exports.Set(kClassName, ctor);
}

}  // namespace tagmask::binding
