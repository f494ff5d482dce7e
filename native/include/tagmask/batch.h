// Many matchers stepped together: their masks filled into one [N, ceil(V/32)] bitmask, N tokens
// accepted, N rollbacks, on the shared thread pool. A failure in one row (a matcher in its error
// state, a token id out of range, a rollback past the start) is recorded for that row; the other
// rows complete normally. A failed fill leaves its row all zero (nothing allowed).
//
// Threads: the batch never touches Node; callers give it plain pointers. One batch operation at
// a time per batch, and the matchers must not be used elsewhere while it runs (each matcher is
// used by exactly one thread during an operation: rows are distinct matchers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tagmask/error.h"
#include "tagmask/matcher.h"
#include "tagmask/thread_pool.h"

namespace tagmask {

/// What went wrong in one row.
struct BatchRowError {
  uint32_t row;
  ErrorCode code;
  std::string message;
};

class MatcherBatch {
 public:
  /// Non-owning: the matchers must outlive every operation. Throws InvalidArgument when two rows
  /// are the same matcher or the matchers' vocabularies have different mask widths.
  explicit MatcherBatch(std::vector<Matcher*> matchers);

  size_t size() const noexcept { return matchers_.size(); }
  /// Words per bitmask row (every matcher's MaskWordCount()).
  uint32_t MaskWords() const noexcept { return words_; }
  Matcher& matcher(size_t row) const { return *matchers_[row]; }

  /// Fills rows `rows[0..count)` (every row when rows == nullptr) into `out`, row r at
  /// out + r * MaskWords(). Splits rows over `pool` (nullptr or a pool of size 1: the calling
  /// thread alone). Failed rows are zeroed and reported in `errors` (cleared first).
  void Fill(uint32_t* out, const uint32_t* rows, size_t count, ThreadPool* pool, std::vector<BatchRowError>& errors);

  /// Mask references for masking with device-resident masks (docs/masking.md, "Resident
  /// masks"). For each row r of rows[0..count) (every row when rows == nullptr): refs[r] = the
  /// id of the row of grammar->residentMasks() equal to row r's mask, or ~k (negative) when the
  /// mask is none of them; its mask is then written as compact row k, at compact + k *
  /// MaskWords(). Compact rows are numbered from 0 in the order of the rows; a row whose matcher
  /// uses another grammar always gets one. `compact` must have room for `count` rows. A failed
  /// row gets a zeroed compact row (nothing allowed) and an entry in `errors`. Returns the number
  /// of compact rows written. Allocation-free when no row fails.
  size_t FillRefs(const CompiledGrammar& grammar, int32_t* refs, uint32_t* compact, const uint32_t* rows, size_t count,
                  ThreadPool* pool, std::vector<BatchRowError>& errors);

  /// Accepts tokens[r] for every row r (a negative id skips the row): accepted[r] = 1 when the
  /// matcher took it, 0 when the grammar rejected it (state unchanged) or the row was skipped
  /// or failed.
  void Accept(const int32_t* tokens, uint8_t* accepted, ThreadPool* pool, std::vector<BatchRowError>& errors);

  /// Rolls row r back counts[r] steps (0: untouched).
  void Rollback(const uint32_t* counts, ThreadPool* pool, std::vector<BatchRowError>& errors);

 private:
  void CheckRows(const uint32_t* rows, size_t count);
  template <typename PerRow>
  void Run(size_t count, ThreadPool* pool, size_t grain, PerRow&& per_row, std::vector<BatchRowError>& errors);

  std::vector<Matcher*> matchers_;
  uint32_t words_ = 0;
  // One slot per row, written only by the thread that runs the row; reused between calls so a
  // successful operation allocates nothing.
  std::vector<uint8_t> failed_;
  std::vector<uint8_t> mark_;  // duplicate check of a row list (all zero between calls)
  std::vector<BatchRowError> slots_;
  // FillRefs: the rows whose mask goes to a compact row, and the slot each one gets.
  std::vector<uint32_t> compactRows_, compactSlots_;
  std::vector<BatchRowError> refErrors_;
};

}  // namespace tagmask
