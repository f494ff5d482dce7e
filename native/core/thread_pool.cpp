#include "tagmask/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#ifdef __linux__
#include <sched.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "tagmask/error.h"

namespace tagmask {

namespace {

// How long an idle worker (or a ParallelFor caller waiting for its helpers) spins before it
// blocks. Batch fills come in bursts of one per decoding step; spinning this long lets the next
// burst start without a futex wake-up (tens of microseconds on a loaded machine) while costing
// little CPU between steps that are milliseconds apart.
constexpr auto kSpinTime = std::chrono::microseconds(50);

// Jobs listed at once: one per thread that is inside ParallelFor at the same moment (nested
// calls included). Reserved so listing never allocates; more only costs an allocation.
constexpr size_t kReservedJobs = 64;

thread_local const ThreadPool* tls_pool = nullptr;

inline void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::this_thread::yield();
#endif
}

}  // namespace

struct ThreadPool::ParallelJob {
  ChunkFn fn;
  void* ctx;
  size_t n;
  size_t grain;
  size_t chunks;
  size_t max_helpers;                  // worker threads that may join besides the caller
  std::atomic<size_t> next_chunk{0};   // next chunk to claim
  std::atomic<size_t> helpers{0};      // workers currently inside the job (changed under mutex_)
  size_t joined = 0;                   // workers that ever joined (under mutex_)
  std::atomic<bool> failed{false};     // set by the first chunk that threw
  std::exception_ptr error;            // written once, by the thread that set `failed`
};

ThreadPool::ThreadPool(size_t threads) : size_(threads == 0 ? DefaultThreadCount() : threads) {
  jobs_.reserve(kReservedJobs);
  workers_.reserve(size_);
  try {
    for (size_t i = 0; i < size_; ++i) workers_.emplace_back([this, i]() { WorkerLoop(i); });
  } catch (...) {
    // A thread could not be started: stop the ones that did before reporting.
    Shutdown();
    throw Error(ErrorCode::Internal, "could not start " + std::to_string(size_) + " worker threads");
  }
}

ThreadPool::~ThreadPool() { Shutdown(); }

bool ThreadPool::IsWorkerThread() const noexcept { return tls_pool == this; }

size_t ThreadPool::DefaultThreadCount() noexcept {
  if (const char* env = std::getenv("TAGMASK_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0) return static_cast<size_t>(std::min(value, 1024L));
  }
#ifdef __linux__
  // The CPUs this process may run on (containers and taskset restrict them), not the machine's.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<size_t>(count);
  }
#endif
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

void ThreadPool::Enqueue(std::function<void()> task) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!stopping_) {
      tasks_.push_back(std::move(task));
      work_epoch_.fetch_add(1, std::memory_order_release);
      if (sleeping_ > 0) work_cv_.notify_one();
      return;
    }
  }
  // The pool is shut down: run it here rather than lose it.
  task();
}

void ThreadPool::RunChunks(ParallelJob& job) noexcept {
  for (;;) {
    const size_t chunk = job.next_chunk.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= job.chunks) return;
    const size_t begin = chunk * job.grain;
    const size_t end = std::min(job.n, begin + job.grain);
    try {
      job.fn(job.ctx, begin, end);
    } catch (...) {
      bool expected = false;
      if (job.failed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        job.error = std::current_exception();
      }
    }
  }
}

void ThreadPool::UnlistLocked(ParallelJob* job) noexcept {
  auto it = std::find(jobs_.begin(), jobs_.end(), job);
  if (it != jobs_.end()) jobs_.erase(it);
}

void ThreadPool::RunParallel(size_t n, size_t grain, ChunkFn fn, void* ctx) {
  if (n == 0) return;
  if (grain == 0) grain = std::max<size_t>(1, n / (size_ * 4));
  ParallelJob job;
  job.fn = fn;
  job.ctx = ctx;
  job.n = n;
  job.grain = grain;
  job.chunks = (n + grain - 1) / grain;
  job.max_helpers = std::min(size_ - 1, job.chunks - 1);

  bool listed = false;
  if (job.max_helpers > 0 && !stopped_.load(std::memory_order_acquire)) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!stopping_) {
      jobs_.push_back(&job);
      listed = true;
      work_epoch_.fetch_add(1, std::memory_order_release);
      for (size_t i = 0; i < std::min(sleeping_, job.max_helpers); ++i) work_cv_.notify_one();
    }
  }

  RunChunks(job);

  if (listed) {
    // Helpers still inside the job are finishing their last chunk: spin briefly, then block.
    const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      UnlistLocked(&job);  // no helper can join from here on
    }
    while (job.helpers.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < spin_until) {
      CpuRelax();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&job]() { return job.helpers.load(std::memory_order_acquire) == 0; });
  }
  if (job.failed.load(std::memory_order_acquire)) std::rethrow_exception(job.error);
}

void ThreadPool::WorkerLoop(size_t /*index*/) {
  tls_pool = this;
  // A job this worker may join: listed, chunks left, and below its helper limit.
  auto joinable = [this]() -> ParallelJob* {
    for (ParallelJob* job : jobs_) {
      if (job->joined < job->max_helpers && job->next_chunk.load(std::memory_order_relaxed) < job->chunks) {
        return job;
      }
    }
    return nullptr;
  };
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (ParallelJob* job = joinable()) {
      ++job->joined;
      job->helpers.fetch_add(1, std::memory_order_acq_rel);
      lock.unlock();
      RunChunks(*job);
      lock.lock();
      UnlistLocked(job);  // every chunk is claimed now
      if (job->helpers.fetch_sub(1, std::memory_order_acq_rel) == 1) done_cv_.notify_all();
      continue;
    }
    if (!tasks_.empty()) {
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      // Submit wraps every task in a packaged_task, which captures exceptions into the future;
      // the catch is a last line of defence so that no exception can end a worker.
      try {
        task();
      } catch (...) {
      }
      task = nullptr;  // release captured state outside the lock
      lock.lock();
      continue;
    }
    if (stopping_) return;

    // Idle: spin a little for the next burst, then sleep.
    const uint64_t seen = work_epoch_.load(std::memory_order_acquire);
    lock.unlock();
    const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
    while (work_epoch_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until) {
      for (int i = 0; i < 16; ++i) CpuRelax();
    }
    lock.lock();
    if (stopping_ || !tasks_.empty() || joinable() != nullptr) continue;
    ++sleeping_;
    work_cv_.wait(lock, [&]() { return stopping_ || !tasks_.empty() || joinable() != nullptr; });
    --sleeping_;
  }
}

void ThreadPool::Shutdown() {
  if (IsWorkerThread()) {
    throw Error(ErrorCode::Internal, "a thread pool cannot be shut down from one of its own workers");
  }
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    stopped_.store(true, std::memory_order_release);
  }
  work_cv_.notify_all();
  // Workers drain the task queue before they return, so joining waits for all queued work.
  std::vector<std::thread> workers;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) {
    if (t.joinable()) t.join();
  }
}

// ---- the shared pool ---------------------------------------------------------------------

namespace {

struct SharedPoolState {
  std::mutex mutex;
  std::shared_ptr<ThreadPool> pool;
  size_t configured = 0;  // 0: ThreadPool::DefaultThreadCount()
};

SharedPoolState& Shared() {
  static SharedPoolState state;
  return state;
}

}  // namespace

std::shared_ptr<ThreadPool> SharedThreadPool() {
  SharedPoolState& s = Shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.pool) s.pool = std::make_shared<ThreadPool>(s.configured);
  return s.pool;
}

void SetSharedThreadPoolSize(size_t threads) {
  SharedPoolState& s = Shared();
  std::shared_ptr<ThreadPool> old;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.configured = threads;
    const size_t wanted = threads == 0 ? ThreadPool::DefaultThreadCount() : threads;
    if (s.pool && s.pool->Size() != wanted) old.swap(s.pool);
  }
  // `old` is released here, outside the lock: if this was the last holder, its destructor runs
  // the queued work and joins.
}

size_t SharedThreadPoolSize() noexcept {
  SharedPoolState& s = Shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.pool) return s.pool->Size();
  return s.configured == 0 ? ThreadPool::DefaultThreadCount() : s.configured;
}

void ShutdownSharedThreadPool() {
  SharedPoolState& s = Shared();
  std::shared_ptr<ThreadPool> old;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    old.swap(s.pool);
  }
}

}  // namespace tagmask
