// Exercises tagmask::ThreadPool directly (no Node): built and run by test/batch/thread-pool.test.ts.
// Prints one line per case ("ok NAME" or "FAIL NAME: why") and exits non-zero on any failure.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tagmask/error.h"
#include "tagmask/thread_pool.h"

namespace {

int failures = 0;

void Check(bool ok, const char* name, const std::string& why = "") {
  if (ok) {
    std::printf("ok %s\n", name);
  } else {
    ++failures;
    std::printf("FAIL %s: %s\n", name, why.c_str());
  }
}

using tagmask::ThreadPool;

void ParallelForCoversEveryIndexOnce() {
  for (size_t threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (size_t n : {0, 1, 2, 7, 64, 1000, 100003}) {
      for (size_t grain : {0, 1, 3, 64, 200000}) {
        std::vector<std::atomic<int>> hits(n);
        pool.ParallelFor(n, grain, [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        });
        for (size_t i = 0; i < n; ++i) {
          if (hits[i].load() != 1) {
            Check(false, "parallel-for covers every index once",
                  "threads=" + std::to_string(threads) + " n=" + std::to_string(n) + " grain=" + std::to_string(grain) +
                      " index " + std::to_string(i) + " ran " + std::to_string(hits[i].load()) + " times");
            return;
          }
        }
      }
    }
  }
  Check(true, "parallel-for covers every index once");
}

void ParallelForUsesAtMostSizeThreads() {
  ThreadPool pool(3);
  std::atomic<int> inside{0};
  std::atomic<int> peak{0};
  pool.ParallelFor(60, 1, [&](size_t, size_t) {
    const int now = inside.fetch_add(1) + 1;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    inside.fetch_sub(1);
  });
  Check(peak.load() >= 1 && peak.load() <= 3, "parallel-for uses at most Size() threads, caller included",
        "peak " + std::to_string(peak.load()));
}

void ParallelForRethrowsAfterAllChunks() {
  ThreadPool pool(2);
  std::atomic<size_t> ran{0};
  std::string message;
  try {
    pool.ParallelFor(100, 1, [&](size_t b, size_t) {
      ran.fetch_add(1);
      if (b % 10 == 3) throw std::runtime_error("chunk " + std::to_string(b));
    });
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  Check(ran.load() == 100 && message.rfind("chunk ", 0) == 0, "parallel-for runs every chunk, then rethrows",
        "ran " + std::to_string(ran.load()) + ", caught '" + message + "'");
}

void SubmitCapturesExceptionsPerTask() {
  ThreadPool pool(2);
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 50; ++i) {
    futures.push_back(pool.Submit([i]() -> int {
      if (i % 7 == 0) throw tagmask::Error(tagmask::ErrorCode::InvalidArgument, "task " + std::to_string(i));
      return i * i;
    }));
  }
  bool ok = true;
  std::string why;
  for (int i = 0; i < 50; ++i) {
    try {
      const int v = futures[static_cast<size_t>(i)].get();
      if (i % 7 == 0 || v != i * i) ok = false, why = "task " + std::to_string(i) + " returned " + std::to_string(v);
    } catch (const tagmask::Error& e) {
      if (i % 7 != 0 || e.code() != tagmask::ErrorCode::InvalidArgument || e.what() != "task " + std::to_string(i)) {
        ok = false, why = std::string("task ") + std::to_string(i) + " threw " + e.what();
      }
    }
  }
  Check(ok, "submit captures each task's exception in its own future", why);
}

void ShutdownRunsQueuedWork() {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 200; ++i) {
      pool.Submit([&done]() {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        done.fetch_add(1);
      });
    }
    pool.Shutdown();
    Check(done.load() == 200, "shutdown runs every queued task before joining", std::to_string(done.load()) + " of 200");
    // After shutdown, work runs inline instead of being dropped.
    auto f = pool.Submit([]() { return 42; });
    size_t sum = 0;
    pool.ParallelFor(10, 1, [&](size_t b, size_t e) { sum += e - b; });
    Check(f.get() == 42 && sum == 10, "work submitted after shutdown runs inline");
  }
  std::atomic<int> done2{0};
  {
    ThreadPool pool(3);
    for (int i = 0; i < 100; ++i) pool.Submit([&done2]() { done2.fetch_add(1); });
  }  // destructor
  Check(done2.load() == 100, "the destructor runs queued tasks", std::to_string(done2.load()) + " of 100");
}

void NestedParallelForDoesNotDeadlock() {
  ThreadPool pool(2);
  std::atomic<size_t> total{0};
  auto outer = pool.Submit([&]() {
    pool.ParallelFor(8, 1, [&](size_t, size_t) {
      pool.ParallelFor(100, 7, [&](size_t b, size_t e) { total.fetch_add(e - b); });
    });
  });
  pool.ParallelFor(4, 1, [&](size_t, size_t) {
    pool.ParallelFor(50, 1, [&](size_t b, size_t e) { total.fetch_add(e - b); });
  });
  outer.get();
  Check(total.load() == 800 + 200, "nested parallel-for (from workers and callers) completes",
        std::to_string(total.load()));
}

void ConcurrentCallersShareThePool() {
  ThreadPool pool(2);
  std::vector<std::thread> callers;
  std::atomic<size_t> total{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&]() {
      for (int round = 0; round < 200; ++round) {
        pool.ParallelFor(37, 2, [&](size_t b, size_t e) { total.fetch_add(e - b); });
      }
    });
  }
  for (auto& t : callers) t.join();
  Check(total.load() == 4u * 200u * 37u, "concurrent parallel-for callers", std::to_string(total.load()));
}

void SharedPoolResizes() {
  tagmask::SetSharedThreadPoolSize(3);
  auto a = tagmask::SharedThreadPool();
  const bool sized = a->Size() == 3 && tagmask::SharedThreadPoolSize() == 3;
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) a->Submit([&done]() { done.fetch_add(1); });
  tagmask::SetSharedThreadPoolSize(1);  // replaces the shared pool; `a` stays valid
  auto b = tagmask::SharedThreadPool();
  const bool replaced = b->Size() == 1 && a.get() != b.get();
  a.reset();  // last holder: runs its queue and joins
  const bool drained = done.load() == 20;
  tagmask::ShutdownSharedThreadPool();
  auto c = tagmask::SharedThreadPool();
  const bool recreated = c.get() != b.get() && c->Size() == 1;
  tagmask::SetSharedThreadPoolSize(0);
  auto d = tagmask::SharedThreadPool();
  const bool defaulted = d->Size() == ThreadPool::DefaultThreadCount();
  Check(sized && replaced && drained && recreated && defaulted, "the shared pool resizes, drains and recreates",
        std::string("sized=") + std::to_string(sized) + " replaced=" + std::to_string(replaced) +
            " drained=" + std::to_string(drained) + " recreated=" + std::to_string(recreated) +
            " defaulted=" + std::to_string(defaulted));
}

void ShutdownFromWorkerIsRefused() {
  ThreadPool pool(1);
  auto f = pool.Submit([&pool]() { pool.Shutdown(); });
  bool refused = false;
  try {
    f.get();
  } catch (const tagmask::Error& e) {
    refused = e.code() == tagmask::ErrorCode::Internal;
  }
  Check(refused, "shutdown from a worker throws instead of deadlocking");
}

}  // namespace

int main() {
  ParallelForCoversEveryIndexOnce();
  ParallelForUsesAtMostSizeThreads();
  ParallelForRethrowsAfterAllChunks();
  SubmitCapturesExceptionsPerTask();
  ShutdownRunsQueuedWork();
  NestedParallelForDoesNotDeadlock();
  ConcurrentCallersShareThePool();
  SharedPoolResizes();
  ShutdownFromWorkerIsRefused();
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
