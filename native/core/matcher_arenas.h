// The matcher's frame arenas (the Arena policy of pda_step.h): the real one, whose pushes are
// permanent until rollback, and the overlay used by checks that must leave the matcher as it
// was. Private to the matcher's sources (matcher.cpp, matcher_token_edges.cpp).
#pragma once

#include <cstdint>

#include "pda_step.h"
#include "tagmask/matcher.h"

namespace tagmask {

// The matcher's own arena: pushes are hash-consed and permanent (until rollback).
class Matcher::RealArena {
 public:
  explicit RealArena(Matcher& m) : m_(m) {}
  uint32_t Push(uint32_t ret, uint32_t parent, const Config& caller) {
    if (m_.frames_[parent].depth + 1 > m_.options_.maxStackDepth) {
      m_.depthExceeded_ = true;
      return kNoFrame;
    }
    return m_.InternFrame(ret, parent, caller.count, caller.marks);
  }
  bool IsBottom(uint32_t frame) const { return frame == 0; }
  uint32_t Ret(uint32_t frame) const { return m_.frames_[frame].ret; }
  uint32_t Parent(uint32_t frame) const { return m_.frames_[frame].parent; }
  void Restore(uint32_t frame, Config* c) const { m_.RestoreLevel(m_.frames_[frame], c); }
  template <class Fn>
  void Escape(const Automaton&, const Config&, Fn&&) {}  // the end of the grammar: no byte follows

 private:
  Matcher& m_;
};

// The matcher's arena plus scratch frames that are dropped after a check (fill, jump-forward).
class Matcher::OverlayArena {
 public:
  explicit OverlayArena(const Matcher& m) : m_(m), base_(static_cast<uint32_t>(m.frames_.size())) { m_.overlay_.clear(); }
  uint32_t Push(uint32_t ret, uint32_t parent, const Config& caller) {
    const uint32_t depth = At(parent).depth + 1;
    if (depth > m_.options_.maxStackDepth || m_.overlay_.size() >= (1u << 20)) return kNoFrame;
    m_.overlay_.push_back({ret, parent, depth, caller.count, caller.marks});
    return base_ + static_cast<uint32_t>(m_.overlay_.size()) - 1;
  }
  bool IsBottom(uint32_t frame) const { return frame == 0; }
  uint32_t Ret(uint32_t frame) const { return At(frame).ret; }
  uint32_t Parent(uint32_t frame) const { return At(frame).parent; }
  void Restore(uint32_t frame, Config* c) const { m_.RestoreLevel(At(frame), c); }
  template <class Fn>
  void Escape(const Automaton&, const Config&, Fn&&) {}

 private:
  const Frame& At(uint32_t frame) const { return frame < base_ ? m_.frames_[frame] : m_.overlay_[frame - base_]; }
  const Matcher& m_;
  uint32_t base_;
};

}  // namespace tagmask
