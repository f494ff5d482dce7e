// Turns the per-rule subset automata into the final pushdown automaton: global numbering,
// trimming (states that cannot reach an end, calls to rules that match nothing), minimization,
// byte classes, state flags and the left-recursion check.
#include <algorithm>
#include <functional>
#include <unordered_map>

#include "dfa_builder.h"
#include "minimize.h"
#include "tagmask/error.h"
#include "tagmask/ir.h"
#include "tagmask/tokenizer_info.h"

namespace tagmask {
namespace {

// Byte ranges the first continuation byte may take, by lead-byte type, then 0x80..0xBF.
struct LeadType {
  uint8_t leadLo, leadHi;
  int continuations;
  uint8_t lo, hi;
};
constexpr LeadType kLeadTypes[] = {
    {0xC2, 0xDF, 1, 0x80, 0xBF}, {0xE0, 0xE0, 2, 0xA0, 0xBF}, {0xE1, 0xEC, 2, 0x80, 0xBF}, {0xED, 0xED, 2, 0x80, 0x9F},
    {0xEE, 0xEF, 2, 0x80, 0xBF}, {0xF0, 0xF0, 3, 0x90, 0xBF}, {0xF1, 0xF3, 3, 0x80, 0xBF}, {0xF4, 0xF4, 3, 0x80, 0x8F},
};

// Distinct classes of the bytes in [lo, hi].
std::vector<uint32_t> ClassesIn(const Automaton& a, uint8_t lo, uint8_t hi) {
  std::vector<uint32_t> out;
  for (int b = lo; b <= hi; ++b) out.push_back(a.byteClass[b]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Whether every plain character leads from s back to s (see kAbsorbing).
bool IsAbsorbing(const Automaton& a, uint32_t s, const std::vector<std::vector<uint32_t>>& firstClasses,
                 const std::vector<uint32_t>& contClasses) {
  // Most states (a literal's, an enum's) fail on the first plain byte: checked before the loop,
  // which first has to pass the 32 control bytes (a fifth of a 10,000-value enum's assembly).
  if (a.Next(s, static_cast<uint8_t>(' ')) != s) return false;
  for (int b = 0x21; b < 0x80; ++b) {
    if (IsPlainAscii(static_cast<uint8_t>(b)) && a.Next(s, static_cast<uint8_t>(b)) != s) return false;
  }
  std::vector<uint32_t> cur, next;
  for (size_t t = 0; t < sizeof(kLeadTypes) / sizeof(kLeadTypes[0]); ++t) {
    const LeadType& lt = kLeadTypes[t];
    cur.clear();
    for (int b = lt.leadLo; b <= lt.leadHi; ++b) cur.push_back(a.Next(s, static_cast<uint8_t>(b)));
    for (int level = 0; level < lt.continuations; ++level) {
      const std::vector<uint32_t>& classes = level == 0 ? firstClasses[t] : contClasses;
      std::sort(cur.begin(), cur.end());
      cur.erase(std::unique(cur.begin(), cur.end()), cur.end());
      next.clear();
      for (uint32_t x : cur) {
        if (x == kDeadState) return false;
        for (uint32_t c : classes) next.push_back(a.NextByClass(x, c));
      }
      cur.swap(next);
    }
    for (uint32_t x : cur) {
      if (x != s) return false;
    }
  }
  return true;
}

// The op rows of the states whose transitions change or check the counter, one entry per class
// (`opRows`: per minimized state and segment, as the classes were made from).
void AssembleCountOps(Automaton* a, const std::vector<uint32_t>& opRows, uint32_t segCount, const std::vector<uint32_t>& firstSeg,
                      uint32_t count) {
  a->opRow.assign(count, Automaton::kNoOpRow);
  a->transOps.clear();
  for (uint32_t s = 1; s < count; ++s) {
    const uint32_t* ops = opRows.data() + static_cast<size_t>(s) * segCount;
    bool any = false;
    for (uint32_t c = 0; c < a->classCount && !any; ++c) any = ops[firstSeg[c]] != kNoCountOp;
    if (!any) continue;
    a->opRow[s] = static_cast<uint32_t>(a->transOps.size());
    for (uint32_t c = 0; c < a->classCount; ++c) a->transOps.push_back(ops[firstSeg[c]]);
  }
}

void CheckLeftRecursion(const Automaton& a) {
  const uint32_t n = static_cast<uint32_t>(a.rules.size());
  std::vector<std::vector<uint32_t>> edges(n);
  for (uint32_t r = 0; r < n; ++r) {
    const uint32_t s = a.rules[r].start;
    for (uint32_t e = a.callBegin[s]; e < a.callBegin[s + 1]; ++e) edges[r].push_back(a.calls[e].rule);
  }
  std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the path, 2 done
  std::vector<uint32_t> path;
  std::vector<std::pair<uint32_t, size_t>> dfs;
  for (uint32_t root = 0; root < n; ++root) {
    if (color[root] != 0) continue;
    dfs.push_back({root, 0});
    color[root] = 1;
    path.push_back(root);
    while (!dfs.empty()) {
      auto& [r, i] = dfs.back();
      if (i < edges[r].size()) {
        const uint32_t c = edges[r][i++];
        if (color[c] == 1) {
          std::string cycle;
          const auto at = std::find(path.begin(), path.end(), c);
          for (auto it = at; it != path.end(); ++it) cycle += "'" + a.rules[*it].name + "' -> ";
          cycle += "'" + a.rules[c].name + "'";
          throw Error(ErrorCode::InvalidGrammar,
                      "left recursion: rule '" + a.rules[c].name + "' can reach itself without consuming a byte (" + cycle +
                          "); rewrite it so that something is matched before the recursive reference");
        }
        if (color[c] == 0) {
          color[c] = 1;
          path.push_back(c);
          dfs.push_back({c, 0});
        }
        continue;
      }
      color[r] = 2;
      path.pop_back();
      dfs.pop_back();
    }
  }
}

// The token edges of the final states (their token-class columns), and the class tables.
void FillTokenEdges(const TokenClasses& tokens, uint32_t stateCount, const std::function<uint32_t(uint32_t, uint32_t)>& target,
                    TokenEdgeTable* out) {
  TokenEdgeTable& te = *out;
  te.classCount = tokens.count;
  std::vector<std::pair<uint32_t, uint32_t>> byId;
  te.classBegin.assign(tokens.count + 1, 0);
  for (uint32_t k = 0; k < tokens.count; ++k) {
    te.classBegin[k] = static_cast<uint32_t>(te.classIds.size());
    for (uint32_t id : tokens.ids[k]) {
      te.classIds.push_back(id);
      byId.emplace_back(id, k);
    }
  }
  te.classBegin[tokens.count] = static_cast<uint32_t>(te.classIds.size());
  std::sort(byId.begin(), byId.end());
  for (const auto& [id, k] : byId) {
    te.ids.push_back(id);
    te.idClass.push_back(k);
  }
  te.other = tokens.other == TokenClasses::kNone ? TokenEdgeTable::kNoClass : tokens.other;
  te.otherMask = tokens.otherMask;
  te.stateBegin.assign(stateCount + 1, 0);
  for (uint32_t s = 0; s < stateCount; ++s) {
    te.stateBegin[s] = static_cast<uint32_t>(te.edges.size());
    for (uint32_t k = 0; k < tokens.count; ++k) {
      const uint32_t t = target(s, k);
      if (t != kDeadState) te.edges.push_back({k, t});
    }
  }
  te.stateBegin[stateCount] = static_cast<uint32_t>(te.edges.size());
  if (te.edges.empty()) te = TokenEdgeTable();  // every token edge was trimmed: inactive
}

}  // namespace

Automaton AssembleAutomaton(const NfaProgram& program, std::vector<RuleDfa> dfas, const std::array<uint8_t, 256>& segOf,
                            uint32_t segCount, std::vector<CountOp> countOps, const TokenClasses* tokens) {
  const bool counters = countOps.size() > 1;
  const uint32_t ruleCount = static_cast<uint32_t>(program.rules.size());
  // Global numbering before trimming: 0 is dead, then each rule's states. Rows stay sparse
  // (runs of segments); only the minimized automaton gets a dense table.
  std::vector<uint32_t> offset(ruleCount + 1, 1);
  for (uint32_t r = 0; r < ruleCount; ++r) offset[r + 1] = offset[r] + static_cast<uint32_t>(dfas[r].final.size());
  const uint32_t total = offset[ruleCount];
  std::vector<uint32_t> runBegin(total + 1, 0);
  std::vector<SegmentRun> runs;
  std::vector<uint8_t> final(total, 0);
  std::vector<uint32_t> ruleOf(total, 0);
  std::vector<uint32_t> callBegin(total + 1, 0);
  std::vector<CallEdge> calls;
  // Counter operations per transition and per end (count_op.h), when there are any: dense per
  // segment (few rules are counted, and the operations must be compared column by column).
  std::vector<uint32_t> transOp(counters ? static_cast<size_t>(total) * segCount : 0, kNoCountOp);
  std::vector<uint32_t> finalOp(counters ? total : 0, kNoCountOp);
  std::vector<uint32_t> region(counters ? total : 0, 0);
  {
    size_t runCount = 0;
    for (const RuleDfa& d : dfas) runCount += d.runs.size();
    runs.reserve(runCount);
  }
  for (uint32_t r = 0; r < ruleCount; ++r) {
    const RuleDfa& d = dfas[r];
    for (uint32_t l = 0; l < d.final.size(); ++l) {
      const uint32_t s = offset[r] + l;
      final[s] = d.final[l];
      ruleOf[s] = r;
      runBegin[s] = static_cast<uint32_t>(runs.size());
      for (uint32_t i = d.runBegin[l]; i < d.runBegin[l + 1]; ++i) runs.push_back({d.runs[i].lo, d.runs[i].hi, offset[r] + d.runs[i].to - 1});
      if (!d.transOp.empty()) {
        std::copy(d.transOp.begin() + static_cast<size_t>(l) * segCount, d.transOp.begin() + static_cast<size_t>(l + 1) * segCount,
                  transOp.begin() + static_cast<size_t>(s) * segCount);
        finalOp[s] = d.finalOp[l];
        region[s] = d.region[l];
      }
      callBegin[s] = static_cast<uint32_t>(calls.size());
      for (uint32_t e = d.callBegin[l]; e < d.callBegin[l + 1]; ++e) {
        calls.push_back({d.calls[e].rule, offset[r] + d.calls[e].returnState, d.calls[e].op});
      }
    }
  }
  runBegin[0] = 0;
  runBegin[total] = static_cast<uint32_t>(runs.size());
  callBegin[0] = 0;
  callBegin[total] = static_cast<uint32_t>(calls.size());
  dfas.clear();
  const auto startOf = [&](uint32_t r) { return offset[r]; };  // local state 0 is the start

  // Co-reachability: states from which the rule can end, given which rules match something.
  std::vector<uint32_t> predBegin(total + 1, 0), preds;
  {
    // Predecessors by byte transitions, as compressed rows (a counting pass, then a fill pass);
    // a source appears once per distinct target.
    std::vector<uint32_t> lastSource(total, UINT32_MAX);
    const auto forEachEdge = [&](auto&& fn) {
      std::fill(lastSource.begin(), lastSource.end(), UINT32_MAX);
      for (uint32_t s = 1; s < total; ++s) {
        for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) {
          const uint32_t t = runs[i].to;
          if (lastSource[t] == s) continue;
          lastSource[t] = s;
          fn(t, s);
        }
      }
    };
    forEachEdge([&](uint32_t t, uint32_t) { ++predBegin[t + 1]; });
    for (uint32_t i = 0; i < total; ++i) predBegin[i + 1] += predBegin[i];
    preds.resize(predBegin[total]);
    std::vector<uint32_t> at(predBegin.begin(), predBegin.end() - 1);
    forEachEdge([&](uint32_t t, uint32_t s) { preds[at[t]++] = s; });
  }
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> callPreds(total);  // return state -> (caller, callee)
  for (uint32_t s = 1; s < total; ++s) {
    for (uint32_t e = callBegin[s]; e < callBegin[s + 1]; ++e) callPreds[calls[e].returnState].emplace_back(s, calls[e].rule);
  }
  std::vector<uint8_t> productive(ruleCount, 0), co(total, 0);
  for (;;) {
    std::fill(co.begin(), co.end(), 0);
    std::vector<uint32_t> queue;
    for (uint32_t s = 1; s < total; ++s) {
      if (final[s]) {
        co[s] = 1;
        queue.push_back(s);
      }
    }
    while (!queue.empty()) {
      const uint32_t t = queue.back();
      queue.pop_back();
      for (uint32_t i = predBegin[t]; i < predBegin[t + 1]; ++i) {
        if (!co[preds[i]]) {
          co[preds[i]] = 1;
          queue.push_back(preds[i]);
        }
      }
      for (const auto& [caller, callee] : callPreds[t]) {
        if (productive[callee] && !co[caller]) {
          co[caller] = 1;
          queue.push_back(caller);
        }
      }
    }
    bool changed = false;
    for (uint32_t r = 0; r < ruleCount; ++r) {
      if (!productive[r] && co[startOf(r)]) {
        productive[r] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  if (!productive[program.root]) {
    throw Error(ErrorCode::InvalidGrammar, "the grammar matches no string at all (root rule '" + program.rules[program.root].name + "')");
  }
  const auto liveCall = [&](const CallEdge& c) { return productive[c.rule] && co[c.returnState]; };
  // Forward reachability from the root's start through live edges.
  std::vector<uint8_t> keep(total, 0);
  {
    std::vector<uint32_t> queue{startOf(program.root)};
    keep[startOf(program.root)] = 1;
    while (!queue.empty()) {
      const uint32_t s = queue.back();
      queue.pop_back();
      const auto visit = [&](uint32_t t) {
        if (t != 0 && co[t] && !keep[t]) {
          keep[t] = 1;
          queue.push_back(t);
        }
      };
      for (uint32_t i = runBegin[s]; i < runBegin[s + 1]; ++i) visit(runs[i].to);
      for (uint32_t e = callBegin[s]; e < callBegin[s + 1]; ++e) {
        if (!liveCall(calls[e])) continue;
        visit(startOf(calls[e].rule));
        visit(calls[e].returnState);
      }
    }
  }

  // Minimize: states with the same future (per rule) merge. `block` maps old -> class id.
  MinimizeInput mi;
  mi.stateCount = total;
  mi.symbolCount = segCount;
  mi.keep = &keep;
  mi.runBegin = &runBegin;
  mi.runs = &runs;
  mi.final = &final;
  mi.ruleOf = &ruleOf;
  mi.callBegin = &callBegin;
  mi.calls = &calls;
  mi.liveCall = [&](const CallEdge& c) { return liveCall(c); };
  if (counters) {
    mi.transOp = &transOp;
    mi.finalOp = &finalOp;
    mi.region = &region;
  }
  const std::vector<uint32_t> block = MinimizeStates(mi);  // old -> representative old state, or 0

  // Compact numbering: rules in order, representative states in order, the start first.
  std::vector<uint32_t> newId(total, 0);
  Automaton a;
  a.rules.resize(ruleCount);
  uint32_t next = 1;
  for (uint32_t r = 0; r < ruleCount; ++r) {
    AutomatonRule& ar = a.rules[r];
    ar.name = program.rules[r].name;
    ar.nullable = program.rules[r].nullable;
    ar.maxTokens = program.rules[r].maxTokens;
    ar.isRoot = r == program.root;
    ar.firstState = next;
    for (uint32_t s = offset[r]; s < offset[r + 1]; ++s) {
      if (keep[s] && block[s] == s) newId[s] = next++;
    }
    ar.endState = next;
    ar.start = productive[r] && keep[startOf(r)] ? newId[block[startOf(r)]] : 0;
  }
  const uint32_t count = next;
  const auto mapState = [&](uint32_t s) { return (s != 0 && keep[s]) ? newId[block[s]] : 0; };

  // Byte classes: segments whose columns agree in every state. Made from the sparse rows (most
  // states of a literal or an enum's trie have one live segment): a column's hash sums a mix of
  // (state, target, counter operation) over its live entries, segments with equal hashes share
  // a class, and one pass over the rows confirms it (a hash collision, never seen, falls back to
  // comparing columns one by one). The dense table is written once, from the runs.
  std::vector<uint32_t> oldOf(count, 0);  // the representative (old) state of each new id
  for (uint32_t s = 1; s < total; ++s) {
    if (keep[s] && block[s] == s) oldOf[newId[s]] = s;
  }
  // Per state, its single live byte (-1: none, -2: several), which decides whether it keeps a row.
  // A state's live bytes are counted from its runs (token-class columns hold no byte).
  a.singleByte.assign(count, -1);  // the dead state has no live byte
  {
    std::vector<uint32_t> segBytes(segCount, 0);
    std::vector<int> segByte(segCount, -1);
    for (int b = 255; b >= 0; --b) {
      ++segBytes[segOf[b]];
      segByte[segOf[b]] = b;
    }
    for (uint32_t s = 1; s < count; ++s) {
      uint32_t live = 0;
      int byte = -1;
      const uint32_t old = oldOf[s];
      for (uint32_t i = runBegin[old]; i < runBegin[old + 1] && live < 2; ++i) {
        if (mapState(runs[i].to) == kDeadState) continue;
        for (uint32_t k = runs[i].lo; k <= runs[i].hi && live < 2; ++k) {
          if (segBytes[k] == 0) continue;
          live += segBytes[k];
          byte = segByte[k];
        }
      }
      a.singleByte[s] = static_cast<int16_t>(live == 1 ? byte : live == 0 ? -1 : -2);
    }
  }
  std::vector<uint32_t> segClass(segCount, 0);
  {
    // What each live transition does to the counter, per new state and segment (a class must also
    // agree on what its bytes do to the counter).
    std::vector<uint32_t> opRows(counters ? static_cast<size_t>(count) * segCount : 0, kNoCountOp);
    const auto opAt = [&](uint32_t old, uint32_t k) { return counters ? transOp[static_cast<size_t>(old) * segCount + k] : kNoCountOp; };
    // Calls fn(segment, target, operation) for the live entries of new state `id`'s row.
    const auto forEachLive = [&](uint32_t id, auto&& fn) {
      const uint32_t old = oldOf[id];
      for (uint32_t i = runBegin[old]; i < runBegin[old + 1]; ++i) {
        const uint32_t t = mapState(runs[i].to);
        if (t == kDeadState) continue;
        for (uint32_t k = runs[i].lo; k <= runs[i].hi; ++k) fn(k, t, opAt(old, k));
      }
    };
    std::vector<uint64_t> hash(segCount, 0);
    for (uint32_t id = 1; id < count; ++id) {
      forEachLive(id, [&](uint32_t k, uint32_t t, uint32_t op) {
        uint64_t m = (static_cast<uint64_t>(id) << 32 | t) * 0x9E3779B97F4A7C15ull;
        m ^= (m >> 29) + op * 0xBF58476D1CE4E5B9ull;
        hash[k] += m * 0x94D049BB133111EBull;
        if (counters) opRows[static_cast<size_t>(id) * segCount + k] = op;
      });
    }
    std::vector<uint32_t> firstSeg;  // per class, its first segment
    {
      std::unordered_map<uint64_t, uint32_t> classOfHash;
      for (uint32_t k = 0; k < segCount; ++k) {
        const auto [it, fresh] = classOfHash.emplace(hash[k], static_cast<uint32_t>(firstSeg.size()));
        if (fresh) firstSeg.push_back(k);
        segClass[k] = it->second;
      }
    }
    // The hash classes are checked before the table is written: in every state, a class's live
    // segments must be none or all of its segments, with one target and one operation. One pass
    // over the live entries (most states have one), not a pass over every joined segment of
    // every state.
    std::vector<uint32_t> classSize(firstSeg.size(), 0);
    for (uint32_t k = 0; k < segCount; ++k) ++classSize[segClass[k]];
    const auto hashClassesExact = [&]() {
      const size_t classes = firstSeg.size();
      std::vector<uint32_t> seen(classes, 0), target(classes, kDeadState), opOf(classes, kNoCountOp), live(classes, 0);
      bool same = true;
      for (uint32_t id = 1; id < count && same; ++id) {
        forEachLive(id, [&](uint32_t k, uint32_t t, uint32_t op) {
          const uint32_t c = segClass[k];
          if (seen[c] != id) {
            seen[c] = id;
            live[c] = 1;
            target[c] = t;
            opOf[c] = op;
          } else {
            ++live[c];
            same = same && target[c] == t && opOf[c] == op;
          }
        });
        forEachLive(id, [&](uint32_t k, uint32_t, uint32_t) { same = same && live[segClass[k]] == classSize[segClass[k]]; });
      }
      return same;
    };
    if (!hashClassesExact()) {  // a hash collision (never seen): compare columns one by one
      std::vector<uint32_t> rows(static_cast<size_t>(count) * segCount, kDeadState), ops(rows.size(), kNoCountOp);
      for (uint32_t id = 1; id < count; ++id) {
        forEachLive(id, [&](uint32_t k, uint32_t t, uint32_t op) {
          rows[static_cast<size_t>(id) * segCount + k] = t;
          ops[static_cast<size_t>(id) * segCount + k] = op;
        });
      }
      const auto sameColumn = [&](uint32_t x, uint32_t y) {
        for (uint32_t id = 0; id < count; ++id) {
          const size_t at = static_cast<size_t>(id) * segCount;
          if (rows[at + x] != rows[at + y] || ops[at + x] != ops[at + y]) return false;
        }
        return true;
      };
      firstSeg.clear();
      for (uint32_t k = 0; k < segCount; ++k) {
        uint32_t found = UINT32_MAX;
        for (uint32_t c = 0; c < firstSeg.size() && found == UINT32_MAX; ++c) {
          if (sameColumn(firstSeg[c], k)) found = c;
        }
        if (found == UINT32_MAX) {
          found = static_cast<uint32_t>(firstSeg.size());
          firstSeg.push_back(k);
        }
        segClass[k] = found;
      }
    }
    // The table, written once from the runs: a state whose live entries all lie in the class of
    // its one live byte (or that has none) keeps no row (Automaton::rowAt); the others get one.
    a.classCount = static_cast<uint32_t>(firstSeg.size());
    a.rowAt.assign(count, Automaton::kOneByteRow | kDeadState);
    uint32_t rows = 0;
    for (uint32_t id = 1; id < count; ++id) {
      const int16_t b = a.singleByte[id];
      const uint32_t own = b >= 0 ? segClass[segOf[static_cast<uint8_t>(b)]] : UINT32_MAX;
      bool oneByte = true;
      uint32_t target = kDeadState;
      forEachLive(id, [&](uint32_t k, uint32_t t, uint32_t) {
        oneByte = oneByte && segClass[k] == own;
        target = t;
      });
      if (oneByte) {
        a.rowAt[id] = Automaton::kOneByteRow | target;
      } else {
        a.rowAt[id] = rows * a.classCount;
        ++rows;
      }
    }
    if (static_cast<uint64_t>(rows) * a.classCount >= Automaton::kOneByteRow) {
      throw Error(ErrorCode::InvalidGrammar, "the grammar's automaton needs more than 2^31 transition entries (the grammar is too large)");
    }
    a.trans.assign(static_cast<size_t>(rows) * a.classCount, kDeadState);
    for (uint32_t id = 1; id < count; ++id) {
      if ((a.rowAt[id] & Automaton::kOneByteRow) != 0) continue;
      uint32_t* row = a.trans.data() + a.rowAt[id];
      forEachLive(id, [&](uint32_t k, uint32_t t, uint32_t) { row[segClass[k]] = t; });
    }
    if (counters) AssembleCountOps(&a, opRows, segCount, firstSeg, count);
  }
  for (int b = 0; b < 256; ++b) a.byteClass[b] = static_cast<uint8_t>(segClass[segOf[b]]);

  a.flags.assign(count, 0);
  a.ruleOf.assign(count, 0);
  if (counters) {
    a.countOps = std::move(countOps);
    a.finalOps.assign(count, kNoCountOp);
  } else {
    a.countOps.assign(1, CountOp{});
  }
  a.callBegin.assign(count + 1, 0);
  a.rootRule = program.root;
  for (uint32_t r = 0; r < ruleCount; ++r) {
    for (uint32_t s = offset[r]; s < offset[r + 1]; ++s) {
      if (!keep[s] || block[s] != s) continue;
      const uint32_t id = newId[s];
      a.ruleOf[id] = r;
      if (final[s]) a.flags[id] |= kFinal;
      if (program.rules[r].maxTokens != ir::kNone) a.flags[id] |= kLimitedText;
      a.callBegin[id] = static_cast<uint32_t>(a.calls.size());
      for (uint32_t e = callBegin[s]; e < callBegin[s + 1]; ++e) {
        if (liveCall(calls[e])) a.calls.push_back({calls[e].rule, mapState(calls[e].returnState), calls[e].op});
      }
      // Merged states may list a call twice.
      std::sort(a.calls.begin() + a.callBegin[id], a.calls.end(), [](const CallEdge& x, const CallEdge& y) {
        return x.rule != y.rule ? x.rule < y.rule : x.returnState != y.returnState ? x.returnState < y.returnState : x.op < y.op;
      });
      a.calls.erase(std::unique(a.calls.begin() + a.callBegin[id], a.calls.end(),
                                [](const CallEdge& x, const CallEdge& y) {
                                  return x.rule == y.rule && x.returnState == y.returnState && x.op == y.op;
                                }),
                    a.calls.end());
      if (a.calls.size() > a.callBegin[id]) a.flags[id] |= kHasCalls;
      if (counters) {
        a.finalOps[id] = final[s] ? finalOp[s] : kNoCountOp;
        bool counted = a.finalOps[id] != kNoCountOp || a.opRow[id] != Automaton::kNoOpRow;
        for (uint32_t e = a.callBegin[id]; e < a.calls.size(); ++e) counted = counted || a.calls[e].op != kNoCountOp;
        if (counted) a.flags[id] |= kCounted;
        if (program.rules[r].hasOps) a.rules[r].counted = true;
      }
    }
  }
  a.callBegin[count] = static_cast<uint32_t>(a.calls.size());
  if (tokens != nullptr && tokens->count > 0) {
    // Token-class columns come after the byte segments.
    const uint32_t base = segCount - tokens->count;
    FillTokenEdges(*tokens, count, [&](uint32_t s, uint32_t k) {
      if (s == 0) return kDeadState;
      // The run holding the column, if any (runs are sorted; token columns come last).
      const uint32_t column = base + k;
      for (uint32_t i = runBegin[oldOf[s] + 1]; i-- > runBegin[oldOf[s]];) {
        if (runs[i].hi < column) break;
        if (runs[i].lo <= column) return mapState(runs[i].to);
      }
      return kDeadState;
    }, &a.tokenEdges);
  }
  // States that were merged away keep callBegin consistent (they are never used).
  for (uint32_t s = count; s > 1; --s) {
    if (a.callBegin[s - 1] > a.callBegin[s]) a.callBegin[s - 1] = a.callBegin[s];
  }

  // Per state: absorbing.
  std::vector<std::vector<uint32_t>> firstClasses;
  for (const LeadType& lt : kLeadTypes) firstClasses.push_back(ClassesIn(a, lt.lo, lt.hi));
  const std::vector<uint32_t> contClasses = ClassesIn(a, 0x80, 0xBF);
  for (uint32_t s = 1; s < count; ++s) {
    if (IsAbsorbing(a, s, firstClasses, contClasses)) a.flags[s] |= kAbsorbing;
  }

  // Return states and escapes.
  for (uint32_t s = 1; s < count; ++s) {
    for (uint32_t e = a.callBegin[s]; e < a.callBegin[s + 1]; ++e) a.rules[a.calls[e].rule].returnStates.push_back(a.calls[e].returnState);
  }
  for (uint32_t r = 0; r < ruleCount; ++r) {
    AutomatonRule& ar = a.rules[r];
    std::sort(ar.returnStates.begin(), ar.returnStates.end());
    ar.returnStates.erase(std::unique(ar.returnStates.begin(), ar.returnStates.end()), ar.returnStates.end());
    ar.exactEscape = !ar.isRoot && ar.returnStates.size() == 1;
  }
  CheckLeftRecursion(a);
  if (!program.regions.empty()) {
    std::vector<uint32_t> stateRegion(count, 0);
    for (uint32_t s = 1; s < total; ++s) {
      if (keep[s] && block[s] == s) stateRegion[newId[s]] = region[s];
    }
    ComputeLiveness(program, stateRegion, &a);
  }
  if (counters) ComputeMarkLiveness(&a);
  return a;
}

}  // namespace tagmask
