#include "rule_walks.h"

#include <unordered_map>

namespace tagmask {

size_t RuleWalks::Bytes() const {
  size_t bytes = sizeof(RuleWalks) + states.size() * sizeof(StateWalk);
  for (const StateWalk& w : states) {
    for (int t = 0; t < 2; ++t) bytes += w.accepted[t].r.size() * sizeof(w.accepted[t].r[0]);
    bytes += w.candidates.size() * sizeof(uint32_t);
  }
  return bytes;
}

namespace {

void Put(std::string* key, uint32_t v) {
  const char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
  key->append(b, 4);
}

}  // namespace

bool RuleClosureKey(const Automaton& a, uint32_t rule, uint32_t maxStates, std::vector<uint32_t>* closure, std::string* key) {
  const AutomatonRule& root = a.rules[rule];
  if (a.HasCounters() || a.tokenEdges.Active() || root.isRoot || root.exactEscape || root.returnStates.empty()) return false;
  closure->assign(1, rule);
  std::unordered_map<uint32_t, uint32_t> place{{rule, 0}};  // rule -> index in the closure
  std::vector<uint32_t> base(1, 0);  // per closure rule: its first state's place
  uint32_t states = 0;
  for (size_t i = 0; i < closure->size(); ++i) {
    const AutomatonRule& r = a.rules[(*closure)[i]];
    base.push_back(base.back() + (r.endState - r.firstState));
    states += r.endState - r.firstState;
    if (states > maxStates) return false;
    for (uint32_t s = r.firstState; s < r.endState; ++s) {
      if ((a.flags[s] & (kLimitedText | kCounted)) != 0) return false;
      for (uint32_t k = a.callBegin[s]; k < a.callBegin[s + 1]; ++k) {
        const CallEdge& c = a.calls[k];
        if (c.op != kNoCountOp || a.ruleOf[c.returnState] != (*closure)[i]) return false;
        if (place.emplace(c.rule, static_cast<uint32_t>(closure->size())).second) closure->push_back(c.rule);
      }
    }
  }
  const auto local = [&](uint32_t s, uint32_t ruleIndex) -> uint32_t {
    if (s == kDeadState) return 0xFFFFFFFEu;
    const AutomatonRule& r = a.rules[(*closure)[ruleIndex]];
    return base[ruleIndex] + (s - r.firstState);
  };
  // Runs of bytes of one class: the key names transitions by byte, whatever the class numbering.
  std::vector<std::pair<uint32_t, uint32_t>> segments;
  for (uint32_t b = 0; b < 256; ++b) {
    if (b == 0 || a.byteClass[b] != a.byteClass[b - 1]) segments.emplace_back(b, a.byteClass[b]);
  }
  key->clear();
  Put(key, 1);  // format version
  Put(key, static_cast<uint32_t>(closure->size()));
  for (size_t i = 0; i < closure->size(); ++i) {
    const AutomatonRule& r = a.rules[(*closure)[i]];
    const uint32_t ri = static_cast<uint32_t>(i);
    Put(key, r.endState - r.firstState);
    Put(key, local(r.start, ri));
    Put(key, r.nullable ? 1 : 0);
    for (uint32_t s = r.firstState; s < r.endState; ++s) {
      Put(key, a.flags[s] & (kFinal | kHasCalls | kAbsorbing));
      Put(key, static_cast<uint32_t>(static_cast<int32_t>(a.singleByte[s])));
      uint32_t last = 0xFFFFFFFFu;
      for (const auto& [b, cls] : segments) {
        const uint32_t t = a.NextByClass(s, cls);
        if (t != kDeadState && a.ruleOf[t] != (*closure)[i]) return false;  // byte edges stay in their rule
        const uint32_t lt = local(t, ri);
        if (lt != last) {
          Put(key, b);
          Put(key, lt);
          last = lt;
        }
      }
      Put(key, 0xFFFFFFFFu);
      Put(key, a.callBegin[s + 1] - a.callBegin[s]);
      for (uint32_t k = a.callBegin[s]; k < a.callBegin[s + 1]; ++k) {
        Put(key, place.at(a.calls[k].rule));
        Put(key, local(a.calls[k].returnState, ri));
      }
    }
  }
  return true;
}

Automaton ClosureAutomaton(const Automaton& a, const std::vector<uint32_t>& closure) {
  Automaton out;
  out.classCount = a.classCount;
  out.byteClass = a.byteClass;
  out.countOps = a.countOps;
  std::unordered_map<uint32_t, uint32_t> place;
  std::vector<uint32_t> base;
  uint32_t next = 1;
  for (size_t i = 0; i < closure.size(); ++i) {
    place.emplace(closure[i], static_cast<uint32_t>(i));
    base.push_back(next);
    next += a.rules[closure[i]].endState - a.rules[closure[i]].firstState;
  }
  const uint32_t escape = next;
  const uint32_t count = escape + 1;
  const auto map = [&](uint32_t s) {
    if (s == kDeadState) return kDeadState;
    const uint32_t i = place.at(a.ruleOf[s]);
    return base[i] + (s - a.rules[closure[i]].firstState);
  };
  // Every state of the (small) closure keeps a dense row.
  out.trans.assign(static_cast<size_t>(count) * a.classCount, kDeadState);
  out.rowAt.resize(count);
  for (uint32_t s = 0; s < count; ++s) out.rowAt[s] = s * a.classCount;
  out.flags.assign(count, 0);
  out.ruleOf.assign(count, 0);
  out.singleByte.assign(count, -1);
  out.callBegin.assign(1, 0);
  out.callBegin.push_back(0);  // the dead state
  for (size_t i = 0; i < closure.size(); ++i) {
    const AutomatonRule& r = a.rules[closure[i]];
    AutomatonRule nr;
    nr.name = r.name;
    nr.start = map(r.start);
    nr.firstState = base[i];
    nr.endState = base[i] + (r.endState - r.firstState);
    nr.nullable = r.nullable;
    nr.returnStates.assign(1, escape);
    out.rules.push_back(nr);
    for (uint32_t s = r.firstState; s < r.endState; ++s) {
      const uint32_t ns = map(s);
      for (uint32_t c = 0; c < a.classCount; ++c) out.trans[static_cast<size_t>(ns) * a.classCount + c] = map(a.NextByClass(s, c));
      out.flags[ns] = a.flags[s];
      out.ruleOf[ns] = static_cast<uint32_t>(i);
      out.singleByte[ns] = a.singleByte[s];
      for (uint32_t k = a.callBegin[s]; k < a.callBegin[s + 1]; ++k) {
        out.calls.push_back({place.at(a.calls[k].rule), map(a.calls[k].returnState), kNoCountOp});
      }
      out.callBegin.push_back(static_cast<uint32_t>(out.calls.size()));
    }
  }
  // The stand-in caller: whatever follows the rule's end is taken.
  AutomatonRule er;
  er.name = "(escape)";
  er.start = escape;
  er.firstState = escape;
  er.endState = count;
  er.isRoot = true;
  out.rules.push_back(er);
  for (uint32_t c = 0; c < a.classCount; ++c) out.trans[static_cast<size_t>(escape) * a.classCount + c] = escape;
  out.flags[escape] = kFinal | kAbsorbing;
  out.ruleOf[escape] = static_cast<uint32_t>(closure.size());
  out.singleByte[escape] = -2;
  out.callBegin.push_back(static_cast<uint32_t>(out.calls.size()));
  out.rootRule = static_cast<uint32_t>(closure.size());
  return out;
}

}  // namespace tagmask
