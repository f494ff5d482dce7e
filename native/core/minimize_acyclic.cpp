// Minimization of an acyclic automaton bottom-up (Revuz): a state's class is decided by its
// rule, finality and the classes its live transitions lead to, which are known once every
// successor is done. A string enum compiles to such an automaton (its value trie, one state per
// byte position): hash-consing the states in post-order is linear, where partition refinement
// keeps sorting and splitting blocks of a hundred thousand states.
#include <algorithm>

#include "minimize.h"
#include "signature_table.h"
#include "tagmask/compile_control.h"

namespace tagmask {

bool MinimizeAcyclic(const MinimizeInput& in, std::vector<uint32_t>* rep) {
  // Counter or mark operations and calls are symbols of their own: partition refinement.
  if (in.transOp != nullptr) return false;
  const uint32_t n = in.stateCount;
  const std::vector<uint8_t>& keep = *in.keep;
  const std::vector<uint32_t>& runBegin = *in.runBegin;
  const std::vector<SegmentRun>& runs = *in.runs;
  const auto target = [&](uint32_t t) { return (t != 0 && keep[t]) ? t : 0u; };
  for (uint32_t s = 1; s < n; ++s) {
    if (!keep[s]) continue;
    for (uint32_t e = (*in.callBegin)[s]; e < (*in.callBegin)[s + 1]; ++e) {
      if (in.liveCall((*in.calls)[e])) return false;
    }
  }

  // Post-order of the live graph; a state met again while on the path is a cycle.
  enum : uint8_t { kNew = 0, kOnPath = 1, kDone = 2 };
  std::vector<uint8_t> color(n, kNew);
  std::vector<uint32_t> post;
  post.reserve(n);
  std::vector<std::pair<uint32_t, uint32_t>> path;  // (state, next run)
  for (uint32_t root = 1; root < n; ++root) {
    if (!keep[root] || color[root] != kNew) continue;
    path.emplace_back(root, runBegin[root]);
    color[root] = kOnPath;
    while (!path.empty()) {
      auto& [s, i] = path.back();
      if (i < runBegin[s + 1]) {
        const uint32_t t = target(runs[i++].to);
        if (t == 0 || color[t] == kDone) continue;
        if (color[t] == kOnPath) return false;
        color[t] = kOnPath;
        path.emplace_back(t, runBegin[t]);
        continue;
      }
      color[s] = kDone;
      post.push_back(s);
      if ((post.size() & 65535) == 0) CompileCheckpoint();
      path.pop_back();
    }
  }

  // A state's signature: rule, finality, then its live transitions as maximal segment
  // intervals per target class (the same function of segments, the same list).
  std::vector<uint32_t> cls(n, 0);         // class + 1, per state
  std::vector<uint32_t> smallest;          // per class
  SignatureTable classes(post.size());
  std::vector<uint32_t> sig;
  for (size_t k = 0; k < post.size(); ++k) {
    if ((k & 65535) == 65535) CompileCheckpoint();
    const uint32_t s = post[k];
    sig.clear();
    sig.push_back((*in.ruleOf)[s]);
    sig.push_back((*in.final)[s]);
    for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) {
      const uint32_t t = target(runs[i].to);
      if (t == 0) continue;
      const uint32_t c = cls[t];
      const size_t z = sig.size();
      if (z > 2 && sig[z - 1] == c && sig[z - 2] + 1 == runs[i].lo) {
        sig[z - 2] = runs[i].hi;
      } else {
        sig.push_back(runs[i].lo);
        sig.push_back(runs[i].hi);
        sig.push_back(c);
      }
    }
    bool added = false;
    const uint32_t found = classes.Intern(sig, &added);
    if (added) {
      smallest.push_back(s);
    } else if (s < smallest[found]) {
      smallest[found] = s;
    }
    cls[s] = found + 1;
  }
  rep->assign(n, 0);
  for (uint32_t s : post) (*rep)[s] = smallest[cls[s] - 1];
  return true;
}

}  // namespace tagmask
