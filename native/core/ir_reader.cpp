// Reads the binary grammar IR (docs/ir.md, "Serialization") and checks everything the spec
// lists, so the compiler behind it can index pools without further checks.
#include <cstring>
#include <string>
#include <unordered_set>

#include "tagmask/error.h"
#include "tagmask/ir.h"
#include "token_nodes.h"

namespace tagmask::ir {
namespace {

const char* KindName(uint32_t code) {
  static const char* const kNames[] = {"empty", "never", "bytes", "class", "seq",  "choice", "repeat",
                                       "ref",   "text",  "counted", "unit", "marks", "mark", "residue", "rdigit", "rlive"};
  return code <= 15 ? kNames[code] : "unknown";
}

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(ErrorCode::InvalidGrammar, "invalid grammar IR at " + where + ": " + what);
}

std::string NodeWhere(uint32_t id, uint32_t code) {
  return "node " + std::to_string(id) + " (" + KindName(code) + ")";
}

uint32_t ReadU32(const uint8_t* p) {
  // Little-endian regardless of the host.
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

// Whether [offset, offset + length) lies inside a pool of `size` entries (no overflow).
bool InPool(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

}  // namespace

Grammar ReadGrammar(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 32) {
    Fail("header", "the buffer has " + std::to_string(size) + " bytes; a grammar IR buffer has at least 32");
  }
  if (size % 4 != 0) Fail("header", "the buffer length " + std::to_string(size) + " is not a multiple of 4");
  const auto word = [&](uint64_t index) { return ReadU32(data + index * 4); };
  if (word(0) != kMagic) Fail("header", "bad magic (not a tagmask grammar IR buffer)");
  if (word(1) != kVersion) {
    Fail("header", "unsupported IR version " + std::to_string(word(1)) + " (this build reads version 1)");
  }
  const uint32_t ruleCount = word(2);
  const uint32_t root = word(3);
  const uint32_t nodeCount = word(4);
  const uint32_t extraCount = word(5);
  const uint32_t byteCount = word(6);
  if (word(7) != 0) Fail("header", "flags must be 0, got " + std::to_string(word(7)));
  if (ruleCount == 0) Fail("header", "a grammar needs at least one rule (ruleCount is 0)");
  if (root >= ruleCount) {
    Fail("header", "rootRule " + std::to_string(root) + " is not below ruleCount " + std::to_string(ruleCount));
  }
  const uint64_t words = 8ull + 3ull * ruleCount + 4ull * nodeCount + extraCount;
  const uint64_t expected = words * 4 + ((static_cast<uint64_t>(byteCount) + 3) & ~3ull);
  if (expected != size) {
    Fail("header", "the buffer has " + std::to_string(size) + " bytes but its counts (rules " +
                       std::to_string(ruleCount) + ", nodes " + std::to_string(nodeCount) + ", extra " +
                       std::to_string(extraCount) + ", bytes " + std::to_string(byteCount) + ") need " +
                       std::to_string(expected));
  }
  const uint64_t rulesAt = 8;
  const uint64_t nodesAt = rulesAt + 3ull * ruleCount;
  const uint64_t extraAt = nodesAt + 4ull * nodeCount;
  const uint64_t bytesAt = (extraAt + extraCount) * 4;

  Grammar g;
  g.root = root;
  g.extra.resize(extraCount);
  for (uint32_t i = 0; i < extraCount; ++i) g.extra[i] = word(extraAt + i);
  g.bytes.assign(data + bytesAt, data + bytesAt + byteCount);
  for (uint64_t i = bytesAt + byteCount; i < size; ++i) {
    if (data[i] != 0) Fail("bytes", "the padding after the byte pool must be zero");
  }

  g.nodes.resize(nodeCount);
  for (uint32_t id = 0; id < nodeCount; ++id) {
    const uint64_t base = nodesAt + 4ull * id;
    const uint32_t code = word(base);
    const uint32_t a = word(base + 1), b = word(base + 2), c = word(base + 3);
    if (IsTokenKindCode(code)) {  // token nodes (token_nodes.cpp)
      CheckTokenNode(g, id, code, a, b, c);
      g.nodes[id] = Node{static_cast<Kind>(code), a, b, c};
      continue;
    }
    const std::string where = NodeWhere(id, code);
    if (code > 15) Fail("node " + std::to_string(id), "unknown kind code " + std::to_string(code) + " (expected 0..15 or 16..18)");
    const Kind kind = static_cast<Kind>(code);
    switch (kind) {
      case Kind::Empty:
      case Kind::Never:
        if (a != 0 || b != 0 || c != 0) Fail(where, "fields a, b, c must be 0");
        break;
      case Kind::Bytes:
        if (b == 0) Fail(where, "a bytes node needs at least one byte (length is 0)");
        if (!InPool(a, b, byteCount)) {
          Fail(where, "bytes [" + std::to_string(a) + ", +" + std::to_string(b) + ") lie outside the byte pool of " +
                          std::to_string(byteCount));
        }
        if (c != 0) Fail(where, "field c must be 0");
        break;
      case Kind::Class: {
        if (b == 0) Fail(where, "a class needs at least one range");
        if (!InPool(a, 2ull * b, extraCount)) Fail(where, "its " + std::to_string(b) + " ranges lie outside the extra pool");
        if (c > 1) Fail(where, "flags other than bit 0 (negated) must be 0, got " + std::to_string(c));
        int64_t previous = -2;
        for (uint32_t i = 0; i < b; ++i) {
          const uint32_t lo = g.extra[a + 2 * i], hi = g.extra[a + 2 * i + 1];
          if (lo > hi || hi > kMaxCodePoint) {
            Fail(where, "range " + std::to_string(i) + " [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "] is not 0 <= lo <= hi <= 0x10FFFF");
          }
          if (static_cast<int64_t>(lo) <= previous + 1) {
            Fail(where, "range " + std::to_string(i) + " overlaps or touches the previous one (ranges must be sorted, "
                            "non-overlapping and non-adjacent)");
          }
          previous = hi;
        }
        break;
      }
      case Kind::Seq:
      case Kind::Choice:
        if (!InPool(a, b, extraCount)) Fail(where, "its " + std::to_string(b) + " child ids lie outside the extra pool");
        if (c != 0) Fail(where, "field c must be 0");
        for (uint32_t i = 0; i < b; ++i) {
          const uint32_t child = g.extra[a + i];
          if (child >= id) {
            Fail(where, "child " + std::to_string(i) + " is node " + std::to_string(child) +
                            ", which does not come before it (nodes must be in post-order)");
          }
        }
        break;
      case Kind::Repeat:
      case Kind::Counted:
        if (a >= id) {
          Fail(where, "its item is node " + std::to_string(a) + ", which does not come before it (nodes must be in post-order)");
        }
        if (b == kNone) Fail(where, "min must be below 2^32-1");
        if (c != kNone && c < b) Fail(where, "max " + std::to_string(c) + " is below min " + std::to_string(b));
        break;
      case Kind::Unit:
        if (a >= id) {
          Fail(where, "its item is node " + std::to_string(a) + ", which does not come before it (nodes must be in post-order)");
        }
        if (b != 0 || c != 0) Fail(where, "fields b and c must be 0");
        break;
      case Kind::Marks:
      case Kind::Mark:
        if (a >= id) {
          Fail(where, "its item is node " + std::to_string(a) + ", which does not come before it (nodes must be in post-order)");
        }
        if (kind == Kind::Mark && b >= 32) Fail(where, "mark index " + std::to_string(b) + " is not below 32");
        if (c != 0) Fail(where, "field c must be 0");
        break;
      case Kind::Residue:
        if (a >= id) {
          Fail(where, "its item is node " + std::to_string(a) + ", which does not come before it (nodes must be in post-order)");
        }
        if (b < 2 || b > 0x7FFFFFFFu || b % 2 == 0 || b % 5 == 0) Fail(where, "modulus " + std::to_string(b) + " is not 2..2^31-1 and coprime to 10");
        if (c != 0) Fail(where, "field c must be 0");
        break;
      case Kind::ResidueDigit:
      case Kind::ResidueLive:
        if (kind == Kind::ResidueDigit ? a > 9 : a != 0) Fail(where, kind == Kind::ResidueDigit ? "digit " + std::to_string(a) + " is not 0..9" : std::string("field a must be 0"));
        if ((b >= 255 && b != kNone) || (kind == Kind::ResidueLive && b == kNone)) Fail(where, "budget " + std::to_string(b) + " is not below 255");
        if (c < 2 || c > 0x7FFFFFFFu || c % 2 == 0 || c % 5 == 0) Fail(where, "modulus " + std::to_string(c) + " is not 2..2^31-1 and coprime to 10");
        break;
      case Kind::Ref:
        if (a >= ruleCount) {
          Fail(where, "refers to rule " + std::to_string(a) + ", but there are " + std::to_string(ruleCount) + " rules");
        }
        if (b != 0 || c != 0) Fail(where, "fields b and c must be 0");
        break;
      case Kind::Text:
        if (!InPool(a, 2ull + 2ull * b, extraCount)) Fail(where, "its parameters lie outside the extra pool");
        if (c != 0) Fail(where, "field c must be 0");
        for (uint32_t i = 0; i < b; ++i) {
          const uint32_t off = g.extra[a + 2 + 2 * i], len = g.extra[a + 3 + 2 * i];
          if (len == 0) Fail(where, "excluded string " + std::to_string(i) + " is empty");
          if (!InPool(off, len, byteCount)) Fail(where, "excluded string " + std::to_string(i) + " lies outside the byte pool");
        }
        break;
      case Kind::Token:
      case Kind::ExcludeToken:
      case Kind::AnyTokens:
        break;  // read above
    }
    g.nodes[id] = Node{kind, a, b, c};
  }

  g.rules.resize(ruleCount);
  std::unordered_set<std::string> names;
  for (uint32_t r = 0; r < ruleCount; ++r) {
    const uint64_t base = rulesAt + 3ull * r;
    const uint32_t nameOff = word(base), nameLen = word(base + 1), body = word(base + 2);
    const std::string where = "rule " + std::to_string(r);
    if (!InPool(nameOff, nameLen, byteCount)) Fail(where, "its name lies outside the byte pool");
    if (body >= nodeCount) {
      Fail(where, "its body is node " + std::to_string(body) + ", but there are " + std::to_string(nodeCount) + " nodes");
    }
    g.rules[r].name.assign(reinterpret_cast<const char*>(g.bytes.data()) + nameOff, nameLen);
    g.rules[r].body = body;
    if (!names.insert(g.rules[r].name).second) Fail(where, "duplicate rule name '" + g.rules[r].name + "'");
  }
  return g;
}

}  // namespace tagmask::ir
