// BatchMatcher: N matchers stepped together (tagmask/batch.h). Synchronous calls run on the
// calling thread plus the shared pool; asynchronous ones copy their arguments into C++ values on
// the main thread, run entirely on the pool and settle their Promise back on the main thread
// (async_jobs.h).
//
// What the pool touches (the matchers and the batch's own bitmask) lives in a BatchCore shared
// by this object, every job in flight and the bitmask's ArrayBuffer, so no finalizer can free it
// under a running job. Arguments are read in phases (js_args.h): everything JS first, then the
// typed arrays' memory, then the busy checks, then the work.
#include "batch_matcher.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "addon_data.h"
#include "async_jobs.h"
#include "compiled_grammar.h"
#include "errors.h"
#include "js_args.h"
#include "js_integer.h"
#include "matcher.h"
#include "tagmask/batch.h"
#include "tagmask/thread_pool.h"

namespace tagmask::binding {
namespace {

constexpr const char* kClassName = "BatchMatcher";

// The state a batch operation touches, shared (see the file comment).
struct BatchCore {
  explicit BatchCore(std::vector<std::shared_ptr<Matcher>> owned)
      : matchers(std::move(owned)), batch(RawPointers(matchers)) {
    words = batch.size() * batch.MaskWords();
    bitmask = std::make_unique<uint32_t[]>(words);
  }
  static std::vector<Matcher*> RawPointers(const std::vector<std::shared_ptr<Matcher>>& owned) {
    std::vector<Matcher*> raw;
    raw.reserve(owned.size());
    for (const auto& m : owned) raw.push_back(m.get());
    return raw;
  }

  std::vector<std::shared_ptr<Matcher>> matchers;
  MatcherBatch batch;
  size_t words = 0;
  // The batch's own [N, words] bitmask, shown to JS as an Int32Array: asynchronous fills write
  // here, never into memory JS could detach or resize.
  std::unique_ptr<uint32_t[]> bitmask;
};

enum class JobKind { kFill, kAccept, kRollback };

class BatchMatcherWrap;

// A typed array or a plain array of integers, read in phase 1: a plain array's values are read
// then (its elements may be getters); a typed array is pinned and copied in phase 2.
struct IntListArg {
  std::optional<TypedArrayArg> typed;
};

// One asynchronous operation.
struct BatchJob final : AsyncJob {
  BatchJob(Napi::Env env, JobKind k) : kind(k), deferred(Napi::Promise::Deferred::New(env)) {}
  void Run() noexcept override;
  void Settle(Napi::Env env) override;
  void Abandon() noexcept override { keep_alive.SuppressDestruct(); }

  JobKind kind;
  std::shared_ptr<BatchCore> core;
  ThreadPool* pool = nullptr;        // the pool the job runs on, for its rows; nullptr: one thread
  BatchMatcherWrap* self = nullptr;  // main thread only (Settle)
  Napi::ObjectReference keep_alive;  // the BatchMatcher JS object, until settled
  Napi::Promise::Deferred deferred;
  std::vector<uint32_t> rows;        // fill: the rows to fill (empty: all)
  std::vector<int32_t> tokens;       // accept
  std::vector<uint32_t> counts;      // rollback
  std::vector<uint8_t> accepted;     // accept: result
  std::vector<BatchRowError> errors;
  std::string failure;               // a failure of the whole job (not of a row)
};

Napi::Value ErrorsToJs(Napi::Env env, const std::vector<BatchRowError>& errors) {
  Napi::Array out = Napi::Array::New(env, errors.size());
  // The error classes' constructors are JS: `errors` is read afresh on every iteration.
  for (size_t i = 0; i < errors.size(); ++i) {
    const uint32_t row = errors[i].row;
    Napi::Value error = MakeError(env, errors[i].code, "row " + std::to_string(row) + ": " + errors[i].message).Value();
    Napi::Object o = Napi::Object::New(env);
    o.Set("row", row);
    o.Set("error", error);
    out[i] = o;
  }
  return out;
}

Napi::Object AcceptResult(Napi::Env env, const std::vector<uint8_t>& accepted, const std::vector<BatchRowError>& errors) {
  Napi::Uint8Array flags = Napi::Uint8Array::New(env, accepted.size());
  if (!accepted.empty()) std::memcpy(flags.Data(), accepted.data(), accepted.size());
  Napi::Object out = Napi::Object::New(env);
  out.Set("accepted", flags);
  out.Set("errors", ErrorsToJs(env, errors));
  return out;
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

  // A job of this batch is done (main thread): the batch and its matchers are free again.
  void EndJob() {
    busy_ = false;
    for (MatcherWrap* w : wraps_) w->Release();
  }
  Napi::Value OwnBitmask() const { return own_array_.Value(); }

 private:
  // Marks a synchronous call in progress. Its arguments are read into the scratch vectors below
  // while user JS (getters) may run; that JS must not start another synchronous call on this
  // batch, which would overwrite them.
  class SyncCall {
   public:
    SyncCall(BatchMatcherWrap& self, const char* what) : self_(self) {
      if (self_.in_sync_call_) {
        throw Error(ErrorCode::MatcherState,
                    std::string(what) + ": called from JS (a getter or valueOf) that another call on this batch ran "
                                        "while reading its arguments; make the call before or after that one");
      }
      self_.in_sync_call_ = true;
    }
    ~SyncCall() { self_.in_sync_call_ = false; }
    SyncCall(const SyncCall&) = delete;
    SyncCall& operator=(const SyncCall&) = delete;

   private:
    BatchMatcherWrap& self_;
  };

  void CheckIdle(const char* what) const;
  ThreadPool* Pool();
  // Phase 1 readers: a plain array's values go into `values`; a typed array is kept in the arg.
  IntListArg ReadRows(const Napi::Value& v, const char* what, std::vector<uint32_t>& values) const;
  IntListArg ReadTokens(const Napi::Value& v, const char* what, std::vector<int32_t>& values) const;
  IntListArg ReadCounts(const Napi::Value& v, const char* what, std::vector<uint32_t>& values) const;
  // Phase 2: a typed array's values, checked, into `values` (read once each).
  void PinRows(const IntListArg& arg, const char* what, std::vector<uint32_t>& values) const;
  void PinTokens(const IntListArg& arg, const char* what, std::vector<int32_t>& values) const;
  void PinCounts(const IntListArg& arg, const char* what, std::vector<uint32_t>& values) const;
  Napi::Value Submit(Napi::Env env, std::unique_ptr<BatchJob> job, const char* what);

  std::vector<Napi::ObjectReference> matcher_refs_;  // keep the matchers' JS objects alive
  std::vector<MatcherWrap*> wraps_;                   // the same matchers' wraps, kept alive by matcher_refs_
  std::shared_ptr<BatchCore> core_;
  bool parallel_ = true;
  bool busy_ = false;          // an asynchronous operation is in flight (main thread only)
  bool in_sync_call_ = false;  // a synchronous call is reading its arguments or working
  Napi::Reference<Napi::Int32Array> own_array_;
  std::shared_ptr<ThreadPool> pool_;  // the pool this batch last used
  std::vector<BatchRowError> sync_errors_;
  std::vector<uint8_t> sync_accepted_;
  std::vector<uint32_t> sync_rows_;
  std::vector<uint32_t> sync_counts_;
  std::vector<int32_t> sync_tokens_;
};

void BatchJob::Run() noexcept {
  // A pool thread running this job calls ParallelFor on the same pool: it works on the rows
  // itself and the other workers join in.
  try {
    MatcherBatch& batch = core->batch;
    switch (kind) {
      case JobKind::kFill:
        batch.Fill(core->bitmask.get(), rows.empty() ? nullptr : rows.data(), rows.size(), pool, errors);
        break;
      case JobKind::kAccept:
        accepted.resize(batch.size());
        batch.Accept(tokens.data(), accepted.data(), pool, errors);
        break;
      case JobKind::kRollback:
        batch.Rollback(counts.data(), pool, errors);
        break;
    }
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
}

void BatchJob::Settle(Napi::Env env) {
  self->EndJob();
  if (!failure.empty()) {
    deferred.Reject(MakeError(env, ErrorCode::Internal, "batch operation failed: " + failure).Value());
    return;
  }
  switch (kind) {
    case JobKind::kFill: {
      Napi::Object out = Napi::Object::New(env);
      out.Set("bitmask", self->OwnBitmask());
      out.Set("errors", ErrorsToJs(env, errors));
      deferred.Resolve(out);
      break;
    }
    case JobKind::kAccept:
      deferred.Resolve(AcceptResult(env, accepted, errors));
      break;
    case JobKind::kRollback:
      deferred.Resolve(ErrorsToJs(env, errors));
      break;
  }
}

BatchMatcherWrap::BatchMatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BatchMatcherWrap>(info) {
  Napi::Env env = info.Env();
  try {
    constexpr const char* what = "new BatchMatcher(matchers, options)";
    if (!info[0].IsArray()) {
      ThrowInvalidArgument(std::string(what) + ": matchers must be an array of GrammarMatcher handles, got " +
                           DescribeValue(info[0]));
    }
    Napi::Array list = info[0].As<Napi::Array>();
    const uint32_t n = list.Length();
    if (n == 0) ThrowInvalidArgument(std::string(what) + ": matchers is empty; a batch needs at least one matcher");
    std::vector<std::shared_ptr<Matcher>> matchers;
    matchers.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const std::string name = "matchers[" + std::to_string(i) + "]";
      Napi::Value v = list.Get(i);
      MatcherWrap* wrap = MatcherWrap::FromValue(v, name.c_str());
      matchers.push_back(wrap->shared());
      wraps_.push_back(wrap);
      matcher_refs_.push_back(Napi::Persistent(v.As<Napi::Object>()));
    }
    if (info[1].IsObject()) {
      Napi::Value p = info[1].As<Napi::Object>().Get("parallel");
      if (!p.IsUndefined() && !p.IsBoolean()) {
        ThrowInvalidArgument(std::string(what) + ": options.parallel must be a boolean, got " + DescribeValue(p));
      }
      parallel_ = !p.IsBoolean() || p.As<Napi::Boolean>().Value();
    }
    core_ = std::make_shared<BatchCore>(std::move(matchers));
    // The ArrayBuffer shares the core: its finalizer (which Node may run during an environment's
    // teardown, before any cleanup hook) only drops that share.
    auto share = std::make_unique<std::shared_ptr<BatchCore>>(core_);
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(
        env, core_->bitmask.get(), core_->words * sizeof(uint32_t),
        [](Napi::Env, void*, std::shared_ptr<BatchCore>* owned) { std::unique_ptr<std::shared_ptr<BatchCore>> drop(owned); },
        share.get());
    share.release();  // owned by the ArrayBuffer now
    own_array_ = Napi::Persistent(Napi::Int32Array::New(env, core_->words, buffer, 0));
    const size_t rows = core_->batch.size();
    sync_errors_.reserve(4);
    sync_accepted_.resize(rows);
    sync_rows_.reserve(rows);
    sync_counts_.resize(rows);
    sync_tokens_.resize(rows);
    TagInstance(info, WrappedClass::kBatchMatcher);
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
  // A resize replaced the shared pool: follow it (the old one finishes and joins on release).
  std::shared_ptr<ThreadPool> current = SharedThreadPool();
  if (current != pool_) pool_ = std::move(current);
  return pool_.get();
}

IntListArg BatchMatcherWrap::ReadRows(const Napi::Value& v, const char* what, std::vector<uint32_t>& values) const {
  values.clear();
  IntListArg arg;
  if (v.IsUndefined() || v.IsNull()) return arg;
  arg.typed = TypedArrayArg::Of(v, {napi_int32_array, napi_uint32_array});
  if (arg.typed) return arg;
  if (!v.IsArray()) {
    ThrowInvalidArgument(std::string(what) + ": rows must be an Int32Array or an array of row numbers, got " +
                         DescribeValue(v));
  }
  Napi::Array a = v.As<Napi::Array>();
  const uint32_t n = a.Length();
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Value x = a.Get(i);
    const std::optional<uint32_t> row = IntegerIn<uint32_t>(x, 0, 4294967295.0);
    if (!row) {
      ThrowInvalidArgument(std::string(what) + ": rows[" + std::to_string(i) + "] must be a row number, got " +
                           DescribeValue(x));
    }
    values.push_back(*row);
  }
  return arg;
}

void BatchMatcherWrap::PinRows(const IntListArg& arg, const char* what, std::vector<uint32_t>& values) const {
  if (!arg.typed) return;
  // Copied: the rows are checked (range, repeats) and then used.
  const TypedSpan<const uint32_t> rows = arg.typed->Pin<const uint32_t>(what, "rows");
  values.assign(rows.data, rows.data + rows.length);  // as unsigned: -1 is out of range
}

IntListArg BatchMatcherWrap::ReadTokens(const Napi::Value& v, const char* what, std::vector<int32_t>& values) const {
  const size_t n = core_->batch.size();
  IntListArg arg;
  arg.typed = TypedArrayArg::Of(v, {napi_int32_array, napi_uint32_array});
  if (arg.typed) return arg;
  if (!v.IsArray() || v.As<Napi::Array>().Length() != n) {
    ThrowInvalidArgument(std::string(what) + ": tokens must be an Int32Array or an array of " + std::to_string(n) +
                         " token ids (one per row; -1 skips a row), got " + DescribeValue(v) +
                         (v.IsArray() ? " of " + std::to_string(v.As<Napi::Array>().Length()) : std::string()));
  }
  Napi::Array a = v.As<Napi::Array>();
  values.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Value x = a.Get(i);
    const std::optional<int32_t> token = IntegerIn<int32_t>(x, -1, 2147483647.0);
    if (!token) {
      ThrowInvalidArgument(std::string(what) + ": tokens[" + std::to_string(i) + "] must be a token id or -1, got " +
                           DescribeValue(x));
    }
    values[i] = *token;
  }
  return arg;
}

void BatchMatcherWrap::PinTokens(const IntListArg& arg, const char* what, std::vector<int32_t>& values) const {
  if (!arg.typed) return;
  const size_t n = core_->batch.size();
  const auto name = [what]() { return std::string(what) + ": tokens"; };  // messages only
  const bool is_unsigned = arg.typed->type() == napi_uint32_array;
  const TypedSpan<const uint32_t> tokens = arg.typed->Pin<const uint32_t>(what, "tokens");
  if (tokens.length != n) {
    ThrowInvalidArgument(name() + " must have one entry per row (" + std::to_string(n) + "), got " +
                         std::to_string(tokens.length));
  }
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = tokens.data[i];  // read once: a shared array may change under us
    // Ids are below 2^31; -1 (an Int32Array only) skips a row. Anything else is refused rather
    // than reinterpreted (a Uint32Array id of 2^31 or more would read as a negative "skip").
    if (is_unsigned ? bits > 0x7FFFFFFFu : static_cast<int32_t>(bits) < -1) {
      ThrowInvalidArgument(name() + "[" + std::to_string(i) + "] = " +
                           (is_unsigned ? std::to_string(bits) : std::to_string(static_cast<int32_t>(bits))) +
                           " is out of range: token ids are from 0 to " +
                           std::to_string(core_->matchers[0]->grammarPtr()->tokenizer().VocabSize() - 1) +
                           (is_unsigned ? "" : ", and -1 skips a row"));
    }
    values[i] = static_cast<int32_t>(bits);
  }
}

IntListArg BatchMatcherWrap::ReadCounts(const Napi::Value& v, const char* what, std::vector<uint32_t>& values) const {
  const size_t n = core_->batch.size();
  IntListArg arg;
  if (v.IsNumber()) {
    const std::optional<uint32_t> steps = IntegerIn<uint32_t>(v, 0, 4294967295.0);
    if (!steps) {
      ThrowInvalidArgument(std::string(what) + ": steps must be a non-negative integer, got " + DescribeValue(v));
    }
    values.assign(n, *steps);
    return arg;
  }
  arg.typed = TypedArrayArg::Of(v, {napi_int32_array});
  if (arg.typed) return arg;
  if (v.IsArray() && v.As<Napi::Array>().Length() == n) {
    Napi::Array a = v.As<Napi::Array>();
    values.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      Napi::Value x = a.Get(i);
      const std::optional<uint32_t> steps = IntegerIn<uint32_t>(x, 0, 4294967295.0);
      if (!steps) {
        ThrowInvalidArgument(std::string(what) + ": steps[" + std::to_string(i) + "] must be a non-negative integer, got " +
                             DescribeValue(x));
      }
      values[i] = *steps;
    }
    return arg;
  }
  ThrowInvalidArgument(std::string(what) + ": steps must be a number (every row) or an Int32Array / array of " +
                       std::to_string(n) + " counts (one per row), got " + DescribeValue(v));
}

void BatchMatcherWrap::PinCounts(const IntListArg& arg, const char* what, std::vector<uint32_t>& values) const {
  if (!arg.typed) return;
  const size_t n = core_->batch.size();
  const auto name = [what]() { return std::string(what) + ": steps"; };  // messages only
  const TypedSpan<const int32_t> steps = arg.typed->Pin<const int32_t>(what, "steps");
  if (steps.length != n) {
    ThrowInvalidArgument(name() + " must have one count per row (" + std::to_string(n) + "), got " +
                         std::to_string(steps.length));
  }
  values.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int32_t count = steps.data[i];  // read once
    if (count < 0) ThrowInvalidArgument(name() + "[" + std::to_string(i) + "] = " + std::to_string(count) + " is negative");
    values[i] = static_cast<uint32_t>(count);
  }
}

Napi::Value BatchMatcherWrap::Fill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillNextTokenBitmasks(out, rows)";
    SyncCall call(*this, what);
    // Phase 1: read.
    std::optional<TypedArrayArg> out_arg;
    if (!info[0].IsUndefined() && !info[0].IsNull()) {
      out_arg = TypedArrayArg::Of(info[0], {napi_int32_array, napi_uint32_array});
      if (!out_arg) ThrowInvalidArgument(std::string(what) + ": out must be an Int32Array, got " + DescribeValue(info[0]));
    }
    const bool every_row = info[1].IsUndefined() || info[1].IsNull();
    const IntListArg rows = ReadRows(info[1], what, sync_rows_);
    // Phase 2: pin; no JS runs from here on.
    uint32_t* out = core_->bitmask.get();
    if (out_arg) {
      const TypedSpan<uint32_t> span = out_arg->Pin<uint32_t>(what, "out");
      const uint64_t need = static_cast<uint64_t>(core_->words);
      if (span.length < need) {
        ThrowInvalidArgument(std::string(what) + ": out must have at least N*ceil(V/32) = " +
                             std::to_string(core_->batch.size()) + "*" + std::to_string(core_->batch.MaskWords()) +
                             " = " + std::to_string(need) + " int32 words, got " + std::to_string(span.length));
      }
      out = span.data;
    }
    PinRows(rows, what, sync_rows_);
    // Phase 3: the busy checks right before the work (a getter may have started an operation).
    CheckIdle(what);
    if (!every_row && sync_rows_.empty()) return Napi::Array::New(env, 0);  // an empty row list fills nothing
    core_->batch.Fill(out, every_row ? nullptr : sync_rows_.data(), sync_rows_.size(), Pool(), sync_errors_);
    return ErrorsToJs(env, sync_errors_);
  });
}

Napi::Value BatchMatcherWrap::FillRefs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillMaskRefs(refs, compact, options)";
    SyncCall call(*this, what);
    // Phase 1: read.
    const std::optional<TypedArrayArg> refs_arg = TypedArrayArg::Of(info[0], {napi_int32_array});
    if (!refs_arg) {
      ThrowInvalidArgument(std::string(what) + ": refs must be an Int32Array with one entry per row of the batch, got " +
                           DescribeValue(info[0]));
    }
    const std::optional<TypedArrayArg> compact_arg = TypedArrayArg::Of(info[1], {napi_int32_array, napi_uint32_array});
    if (!compact_arg) {
      ThrowInvalidArgument(std::string(what) + ": compact must be an Int32Array (the dense rows of rows whose mask is " +
                           "not a stored one), got " + DescribeValue(info[1]));
    }
    Napi::Value rows_value = env.Undefined();
    Napi::Value grammar_value = env.Undefined();
    if (!info[2].IsUndefined() && !info[2].IsNull()) {
      if (!info[2].IsObject()) {
        ThrowInvalidArgument(std::string(what) + ": options must be an object, got " + DescribeValue(info[2]));
      }
      Napi::Object options = info[2].As<Napi::Object>();
      rows_value = options.Get("rows");
      grammar_value = options.Get("grammar");
    }
    const bool every_row = rows_value.IsUndefined() || rows_value.IsNull();
    const IntListArg rows = ReadRows(rows_value, what, sync_rows_);
    // The grammar is shared, not borrowed: nothing below depends on the JS object staying alive.
    std::shared_ptr<const CompiledGrammar> grammar;
    if (!grammar_value.IsUndefined() && !grammar_value.IsNull()) {
      grammar = CompiledGrammarWrap::FromValue(grammar_value, (std::string(what) + ": options.grammar").c_str())->grammar();
    } else {
      MatcherBatch& batch = core_->batch;
      for (size_t r = 1; r < batch.size(); ++r) {
        if (&batch.matcher(r).grammar() != &batch.matcher(0).grammar()) {
          ThrowInvalidArgument(std::string(what) + ": matchers[0] and matchers[" + std::to_string(r) +
                               "] use different compiled grammars; pass options.grammar to say whose mask store the " +
                               "refs name (rows of other grammars get compact rows)");
        }
      }
      grammar = core_->matchers[0]->grammarPtr();
    }
    // Phase 2: pin; no JS runs from here on.
    PinRows(rows, what, sync_rows_);
    const size_t n = core_->batch.size();
    const size_t count = every_row ? n : sync_rows_.size();
    const uint64_t words = core_->batch.MaskWords();
    const TypedSpan<int32_t> refs = refs_arg->Pin<int32_t>(what, "refs");
    const TypedSpan<uint32_t> compact = compact_arg->Pin<uint32_t>(what, "compact");
    if (refs.length < n) {
      ThrowInvalidArgument(std::string(what) + ": refs must have at least " + std::to_string(n) +
                           " entries (one per row of the batch), got " + std::to_string(refs.length));
    }
    if (compact.length < count * words) {
      ThrowInvalidArgument(std::string(what) + ": compact must have at least " + std::to_string(count) + "*" +
                           std::to_string(words) + " = " + std::to_string(count * words) + " int32 words (room for " +
                           std::to_string(count) + " rows of ceil(V/32) = " + std::to_string(words) +
                           " words: every filled row may need one), got " + std::to_string(compact.length));
    }
    // Phase 3: the busy checks right before the work (a getter may have started an operation).
    CheckIdle(what);
    size_t compact_rows = 0;
    sync_errors_.clear();
    if (every_row || !sync_rows_.empty()) {  // an empty row list fills nothing
      compact_rows = core_->batch.FillRefs(*grammar, refs.data, compact.data, every_row ? nullptr : sync_rows_.data(),
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
    SyncCall call(*this, what);
    const IntListArg tokens = ReadTokens(info[0], what, sync_tokens_);
    PinTokens(tokens, what, sync_tokens_);
    CheckIdle(what);
    core_->batch.Accept(sync_tokens_.data(), sync_accepted_.data(), Pool(), sync_errors_);
    return AcceptResult(env, sync_accepted_, sync_errors_);
  });
}

Napi::Value BatchMatcherWrap::Rollback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.rollback(steps)";
    SyncCall call(*this, what);
    const IntListArg counts = ReadCounts(info[0], what, sync_counts_);
    PinCounts(counts, what, sync_counts_);
    CheckIdle(what);
    core_->batch.Rollback(sync_counts_.data(), Pool(), sync_errors_);
    return ErrorsToJs(env, sync_errors_);
  });
}

Napi::Value BatchMatcherWrap::Submit(Napi::Env env, std::unique_ptr<BatchJob> job, const char* what) {
  // Right before the work: JS run while the arguments were read may have started an operation.
  CheckIdle(what);
  ThreadPool* pool = Pool();
  std::shared_ptr<ThreadPool> runner = pool != nullptr ? pool_ : SharedThreadPool();
  job->core = core_;
  job->pool = pool;
  job->self = this;
  job->keep_alive = Napi::Persistent(Value());
  Napi::Promise promise = job->deferred.Promise();
  SubmitAsyncJob(env, *runner, std::move(job));
  busy_ = true;
  for (MatcherWrap* w : wraps_) w->Hold();
  return promise;
}

Napi::Value BatchMatcherWrap::FillAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.fillNextTokenBitmasksAsync(rows)";
    auto job = std::make_unique<BatchJob>(env, JobKind::kFill);
    const IntListArg rows = ReadRows(info[0], what, job->rows);
    PinRows(rows, what, job->rows);
    if (job->rows.empty() && !(info[0].IsUndefined() || info[0].IsNull())) {
      // An explicit empty row list fills nothing; resolve at once rather than fill everything.
      CheckIdle(what);
      Napi::Object out = Napi::Object::New(env);
      out.Set("bitmask", own_array_.Value());
      out.Set("errors", Napi::Array::New(env, 0));
      job->deferred.Resolve(out);
      return job->deferred.Promise();
    }
    return Submit(env, std::move(job), what);
  });
}

Napi::Value BatchMatcherWrap::AcceptAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.acceptTokensAsync(tokens)";
    auto job = std::make_unique<BatchJob>(env, JobKind::kAccept);
    const IntListArg tokens = ReadTokens(info[0], what, job->tokens);
    PinTokens(tokens, what, job->tokens);
    return Submit(env, std::move(job), what);
  });
}

Napi::Value BatchMatcherWrap::RollbackAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    constexpr const char* what = "BatchMatcher.rollbackAsync(steps)";
    auto job = std::make_unique<BatchJob>(env, JobKind::kRollback);
    const IntListArg counts = ReadCounts(info[0], what, job->counts);
    PinCounts(counts, what, job->counts);
    return Submit(env, std::move(job), what);
  });
}

Napi::Value BatchMatcherWrap::Bitmask(const Napi::CallbackInfo& /*info*/) { return own_array_.Value(); }

Napi::Value BatchMatcherWrap::Size(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(core_->batch.size()));
}

Napi::Value BatchMatcherWrap::MaskWords(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), core_->batch.MaskWords());
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
