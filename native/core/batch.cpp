#include "tagmask/batch.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <unordered_set>

namespace tagmask {

MatcherBatch::MatcherBatch(std::vector<Matcher*> matchers) : matchers_(std::move(matchers)) {
  std::unordered_set<const Matcher*> seen;
  for (size_t r = 0; r < matchers_.size(); ++r) {
    Matcher* m = matchers_[r];
    if (m == nullptr) throw Error(ErrorCode::InvalidArgument, "matchers[" + std::to_string(r) + "] is missing");
    if (!seen.insert(m).second) {
      throw Error(ErrorCode::InvalidArgument,
                  "matchers[" + std::to_string(r) +
                      "] appears twice in the batch; every row needs its own matcher (use fork() for a copy)");
    }
    if (r == 0) {
      words_ = m->MaskWordCount();
    } else if (m->MaskWordCount() != words_) {
      throw Error(ErrorCode::InvalidArgument, "matchers[" + std::to_string(r) + "] has bitmask rows of " +
                                                  std::to_string(m->MaskWordCount()) + " words, matchers[0] of " +
                                                  std::to_string(words_) + ": every matcher must use one vocabulary");
    }
  }
  failed_.assign(matchers_.size(), 0);
  mark_.assign(matchers_.size(), 0);
  slots_.resize(matchers_.size());
  compactRows_.reserve(matchers_.size());
  compactSlots_.reserve(matchers_.size());
}

template <typename PerRow>
void MatcherBatch::Run(size_t count, ThreadPool* pool, size_t grain, PerRow&& per_row,
                       std::vector<BatchRowError>& errors) {
  errors.clear();
  // Each row catches its own failure, so one row cannot stop the others and nothing is thrown
  // into the pool.
  const auto run_row = [&](size_t k) {
    try {
      per_row(k);
    } catch (const Error& e) {
      const uint32_t r = per_row.RowOf(k);
      failed_[r] = 1;
      slots_[r] = BatchRowError{r, e.code(), e.what()};
    } catch (const std::bad_alloc&) {
      const uint32_t r = per_row.RowOf(k);
      failed_[r] = 1;
      slots_[r] = BatchRowError{r, ErrorCode::Internal, "out of memory"};
    } catch (const std::exception& e) {
      const uint32_t r = per_row.RowOf(k);
      failed_[r] = 1;
      slots_[r] = BatchRowError{r, ErrorCode::Internal, std::string("internal error: ") + e.what()};
    }
  };
  if (pool == nullptr || pool->Size() <= 1 || count < 2) {
    for (size_t k = 0; k < count; ++k) run_row(k);
  } else {
    pool->ParallelFor(count, grain, [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) run_row(k);
    });
  }
  for (size_t k = 0; k < count; ++k) {
    const uint32_t r = per_row.RowOf(k);
    if (failed_[r] == 0) continue;
    failed_[r] = 0;
    errors.push_back(std::move(slots_[r]));
    slots_[r] = BatchRowError{};
  }
}

namespace {

// Rows per chunk: a few chunks per thread so that an expensive row does not leave the other
// threads idle, but not one row per claim when rows are cheap.
size_t GrainFor(size_t count, ThreadPool* pool) {
  const size_t threads = pool == nullptr ? 1 : pool->Size();
  return std::max<size_t>(1, count / (threads * 8));
}

}  // namespace

void MatcherBatch::Fill(uint32_t* out, const uint32_t* rows, size_t count, ThreadPool* pool,
                        std::vector<BatchRowError>& errors) {
  struct FillRow {
    MatcherBatch* self;
    uint32_t* out;
    const uint32_t* rows;
    uint32_t RowOf(size_t k) const { return rows == nullptr ? static_cast<uint32_t>(k) : rows[k]; }
    uint32_t operator()(size_t k) const {
      const uint32_t r = RowOf(k);
      uint32_t* dst = out + static_cast<size_t>(r) * self->words_;
      try {
        self->matchers_[r]->FillNextTokenBitmask(dst);
      } catch (...) {
        std::memset(dst, 0, sizeof(uint32_t) * self->words_);  // nothing allowed in a failed row
        throw;
      }
      return r;
    }
  };
  CheckRows(rows, count);
  if (rows == nullptr) count = matchers_.size();
  Run(count, pool, GrainFor(count, pool), FillRow{this, out, rows}, errors);
}

void MatcherBatch::CheckRows(const uint32_t* rows, size_t count) {
  if (rows == nullptr) return;
  // Checked before any row runs: a bad list changes nothing. A repeated row would put one
  // matcher on two threads at once.
  size_t k = 0;
  for (; k < count; ++k) {
    if (rows[k] >= matchers_.size() || mark_[rows[k]] != 0) break;
    mark_[rows[k]] = 1;
  }
  for (size_t j = 0; j < k; ++j) mark_[rows[j]] = 0;
  if (k < count) {
    if (rows[k] >= matchers_.size()) {
      throw Error(ErrorCode::InvalidArgument, "rows[" + std::to_string(k) + "] = " + std::to_string(rows[k]) +
                                                  " is not a row of the batch (expected 0 <= row < " +
                                                  std::to_string(matchers_.size()) + ")");
    }
    throw Error(ErrorCode::InvalidArgument,
                "rows[" + std::to_string(k) + "] = " + std::to_string(rows[k]) + " appears twice; list each row once");
  }
}

void MatcherBatch::Accept(const int32_t* tokens, uint8_t* accepted, ThreadPool* pool,
                          std::vector<BatchRowError>& errors) {
  struct AcceptRow {
    MatcherBatch* self;
    const int32_t* tokens;
    uint8_t* accepted;
    uint32_t RowOf(size_t k) const { return static_cast<uint32_t>(k); }
    uint32_t operator()(size_t k) const {
      accepted[k] = 0;
      if (tokens[k] < 0) return static_cast<uint32_t>(k);
      accepted[k] = self->matchers_[k]->AcceptToken(static_cast<uint32_t>(tokens[k])) ? 1 : 0;
      return static_cast<uint32_t>(k);
    }
  };
  // Accepting a token costs well under a microsecond: waking helpers only pays off for large
  // batches.
  const size_t n = matchers_.size();
  Run(n, n >= 256 ? pool : nullptr, std::max<size_t>(32, GrainFor(n, pool)), AcceptRow{this, tokens, accepted}, errors);
}

void MatcherBatch::Rollback(const uint32_t* counts, ThreadPool* pool, std::vector<BatchRowError>& errors) {
  struct RollbackRow {
    MatcherBatch* self;
    const uint32_t* counts;
    uint32_t RowOf(size_t k) const { return static_cast<uint32_t>(k); }
    uint32_t operator()(size_t k) const {
      if (counts[k] != 0) self->matchers_[k]->Rollback(counts[k]);
      return static_cast<uint32_t>(k);
    }
  };
  const size_t n = matchers_.size();
  Run(n, n >= 256 ? pool : nullptr, std::max<size_t>(32, GrainFor(n, pool)), RollbackRow{this, counts}, errors);
}

size_t MatcherBatch::FillRefs(const CompiledGrammar& grammar, int32_t* refs, uint32_t* compact, const uint32_t* rows,
                              size_t count, ThreadPool* pool, std::vector<BatchRowError>& errors) {
  CheckRows(rows, count);
  if (rows == nullptr) count = matchers_.size();
  grammar.residentMasks();  // built here, once, rather than inside a row (its failure is the call's)
  // 1. The reference of every row, on this thread: a few comparisons a row, so waking helpers
  // costs more than it saves (256 seed-grammar rows: 77 µs with the pool, 23 µs without, on the
  // loaded 2-core machine). Rows with residual checks cost more, but far less than a dense fill.
  struct RefRow {
    MatcherBatch* self;
    const CompiledGrammar* grammar;
    int32_t* refs;
    const uint32_t* rows;
    uint32_t RowOf(size_t k) const { return rows == nullptr ? static_cast<uint32_t>(k) : rows[k]; }
    uint32_t operator()(size_t k) const {
      const uint32_t r = RowOf(k);
      refs[r] = -1;
      const Matcher& m = *self->matchers_[r];
      if (&m.grammar() == grammar) refs[r] = m.ResidentMaskRef();
      return r;
    }
  };
  Run(count, nullptr, count,
      RefRow{this, &grammar, refs, rows}, refErrors_);
  // 2. Compact rows in row order, so the numbering does not depend on the threads.
  for (const BatchRowError& e : refErrors_) mark_[e.row] = 1;
  compactRows_.clear();
  compactSlots_.clear();
  size_t slots = 0;
  for (size_t k = 0; k < count; ++k) {
    const uint32_t r = rows == nullptr ? static_cast<uint32_t>(k) : rows[k];
    if (mark_[r] == 0 && refs[r] >= 0) continue;
    const size_t slot = slots++;
    refs[r] = ~static_cast<int32_t>(slot);
    if (mark_[r] != 0) {
      std::memset(compact + slot * words_, 0, sizeof(uint32_t) * words_);  // failed: nothing allowed
      mark_[r] = 0;
      continue;
    }
    compactRows_.push_back(r);
    compactSlots_.push_back(static_cast<uint32_t>(slot));
  }
  // 3. The dense masks of the compact rows.
  struct CompactRow {
    MatcherBatch* self;
    uint32_t* compact;
    uint32_t RowOf(size_t k) const { return self->compactRows_[k]; }
    uint32_t operator()(size_t k) const {
      uint32_t* dst = compact + static_cast<size_t>(self->compactSlots_[k]) * self->words_;
      try {
        self->matchers_[RowOf(k)]->FillNextTokenBitmask(dst);
      } catch (...) {
        std::memset(dst, 0, sizeof(uint32_t) * self->words_);
        throw;
      }
      return RowOf(k);
    }
  };
  const size_t dense = compactRows_.size();
  Run(dense, pool, GrainFor(dense, pool), CompactRow{this, compact}, errors);
  errors.insert(errors.begin(), std::make_move_iterator(refErrors_.begin()), std::make_move_iterator(refErrors_.end()));
  refErrors_.clear();
  return slots;
}

}  // namespace tagmask
