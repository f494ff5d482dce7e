// Cancellation and progress of a compilation (CompiledGrammar::Compile): the caller keeps a
// CompileControl, the compilation checks it at checkpoints and reports how far it got.
//
// Checkpoints sit between phases and inside the long loops (subset construction, minimization,
// the mask-cache walks, on every thread that takes part), so a cancelled compilation stops within
// a few milliseconds, throws Error(Aborted) and frees what it built. The compilation installs its
// control for the calling thread (CompileControl::Scope); code deeper down reaches it through
// CompileCheckpoint() without taking it as a parameter, and hands CurrentCompileControl() to the
// pool threads it starts.
#pragma once

#include <atomic>
#include <cstdint>

namespace tagmask {

enum class CompilePhase : uint32_t { Waiting = 0, Read = 1, Automaton = 2, Masks = 3, Done = 4 };

class CompileControl {
 public:
  /// Asks the compilation to stop; safe from any thread, any number of times.
  void Cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  bool Cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
  /// Throws Error(Aborted) once cancelled.
  void Check() const;

  /// Records progress: `done` of `total` units of the phase (total 0: not known).
  void Report(CompilePhase phase, uint64_t done, uint64_t total) noexcept {
    done_.store(done, std::memory_order_relaxed);
    total_.store(total, std::memory_order_relaxed);
    phase_.store(static_cast<uint32_t>(phase), std::memory_order_relaxed);
  }
  /// Adds `units` to the phase's done count (threads working on one phase together).
  void Advance(uint64_t units) noexcept { done_.fetch_add(units, std::memory_order_relaxed); }

  CompilePhase phase() const noexcept { return static_cast<CompilePhase>(phase_.load(std::memory_order_relaxed)); }
  uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
  uint64_t total() const noexcept { return total_.load(std::memory_order_relaxed); }

  /// Installs a control for the calling thread while it lives (nullptr: none).
  class Scope {
   public:
    explicit Scope(CompileControl* control) noexcept;
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CompileControl* previous_;
  };

 private:
  std::atomic<bool> cancelled_{false};
  std::atomic<uint32_t> phase_{0};
  std::atomic<uint64_t> done_{0}, total_{0};
};

/// The control installed on the calling thread, or nullptr.
CompileControl* CurrentCompileControl() noexcept;

/// Throws Error(Aborted) when the calling thread's compilation was cancelled.
inline void CompileCheckpoint() {
  if (const CompileControl* c = CurrentCompileControl()) c->Check();
}

}  // namespace tagmask
