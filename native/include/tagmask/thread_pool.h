// A fixed pool of worker threads, shared process-wide by the parallel compile (mask cache
// construction) and the batch mask fill.
//
// Two kinds of work:
//   - Submit(fn): a task queued for one worker; its result or exception comes back through the
//     returned std::future. Used for work that outlives the call (async batch fills, async
//     compiles).
//   - ParallelFor(n, grain, body): body(begin, end) over [0, n) in chunks; the calling thread
//     runs chunks too, so a call from inside a worker (nested parallelism) cannot deadlock and a
//     pool of size 1 still makes progress. Nothing is allocated per call: the job lives on the
//     caller's stack and is referenced from a pre-reserved list until every helper has left it.
//
// Lifetime: Shutdown() (also run by the destructor) first runs every queued task, then joins the
// workers, so no submitted work is lost; submissions after shutdown run inline on the caller.
// The shared pool (SharedThreadPool) is created on first use with the configured size (default:
// TAGMASK_THREADS from the environment, else the number of hardware threads) and shut down by
// ShutdownSharedThreadPool(), which the Node binding calls when the last environment that loaded
// the addon is cleaned up; a later use creates a fresh pool.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace tagmask {

class ThreadPool {
 public:
  /// Starts `threads` workers; 0 means DefaultThreadCount().
  explicit ThreadPool(size_t threads = 0);
  /// Runs every queued task, then joins the workers (Shutdown()).
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Number of worker threads. ParallelFor uses at most this many threads, the caller included.
  size_t Size() const noexcept { return size_; }

  /// Whether the calling thread is one of this pool's workers.
  bool IsWorkerThread() const noexcept;

  /// Queues `fn` for one worker. The future holds its result, or the exception it threw.
  template <typename Fn>
  auto Submit(Fn&& fn) -> std::future<std::invoke_result_t<std::decay_t<Fn>>> {
    using Result = std::invoke_result_t<std::decay_t<Fn>>;
    // packaged_task captures the task's exception into its future; shared_ptr because
    // std::function needs a copyable target.
    auto task = std::make_shared<std::packaged_task<Result()>>(std::forward<Fn>(fn));
    std::future<Result> result = task->get_future();
    Enqueue([task]() { (*task)(); });
    return result;
  }

  /// Runs body(begin, end) over [0, n) in chunks of `grain` items (0 picks a grain that gives
  /// each thread a few chunks), on up to Size() threads including the caller. Returns when every
  /// chunk has run; if chunks threw, the other chunks still run and the first exception is then
  /// rethrown on the caller.
  template <typename Body>
  void ParallelFor(size_t n, size_t grain, Body&& body) {
    using Fn = std::remove_reference_t<Body>;
    RunParallel(n, grain, [](void* ctx, size_t begin, size_t end) { (*static_cast<Fn*>(ctx))(begin, end); },
                const_cast<void*>(static_cast<const void*>(&body)));
  }

  /// Runs every queued task and joins the workers. Idempotent. Later Submit/ParallelFor calls
  /// run inline on the calling thread. Must not be called from one of this pool's workers.
  void Shutdown();

  /// Hardware threads of this machine (at least 1), or TAGMASK_THREADS when set to a positive
  /// integer.
  static size_t DefaultThreadCount() noexcept;

 private:
  using ChunkFn = void (*)(void* ctx, size_t begin, size_t end);
  struct ParallelJob;

  void Enqueue(std::function<void()> task);
  void RunParallel(size_t n, size_t grain, ChunkFn fn, void* ctx);
  void WorkerLoop(size_t index);
  // Claims and runs chunks of `job` until none is left. Returns with the job's chunks all claimed.
  static void RunChunks(ParallelJob& job) noexcept;
  // With mutex_ held: removes `job` from jobs_ if it is still listed.
  void UnlistLocked(ParallelJob* job) noexcept;
  bool HasWorkLocked() const noexcept { return !jobs_.empty() || !tasks_.empty(); }

  const size_t size_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // workers wait here for tasks or jobs
  std::condition_variable done_cv_;  // ParallelFor callers wait here for helpers to leave
  std::deque<std::function<void()>> tasks_;
  // Parallel jobs with chunks left, oldest first. Non-owning: each job lives on its caller's
  // stack, and the caller unlists it (under mutex_) before returning. Reserved up front so that
  // listing a job does not allocate.
  std::vector<ParallelJob*> jobs_;
  size_t sleeping_ = 0;  // workers blocked on work_cv_ (guarded by mutex_)
  bool stopping_ = false;
  std::atomic<bool> stopped_{false};
  // Bumped whenever work is listed, so that spinning workers notice it without the lock.
  std::atomic<uint64_t> work_epoch_{0};
  std::vector<std::thread> workers_;
};

/// The process-wide pool (created on first use). Hold the returned pointer while using it: a
/// resize or shutdown replaces the shared instance, and the old one finishes its work and joins
/// once its last holder lets go.
std::shared_ptr<ThreadPool> SharedThreadPool();

/// Sets the size of the shared pool (0: DefaultThreadCount()). An existing pool of another size
/// is replaced; work already queued on it still runs.
void SetSharedThreadPoolSize(size_t threads);

/// The size the shared pool has (or will have when created).
size_t SharedThreadPoolSize() noexcept;

/// Drops the shared pool: runs its queued work and joins its workers (unless someone still holds
/// it, in which case that happens when they let go). A later SharedThreadPool() creates a new one.
void ShutdownSharedThreadPool();

}  // namespace tagmask
