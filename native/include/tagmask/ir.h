// The grammar IR as the engine reads it: the binary form of docs/ir.md ("Serialization"),
// checked field by field. lib/compile/ir.ts writes it; ReadGrammar is its only reader here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tagmask::ir {

/// Marks an unbounded repeat max or an absent text limit.
constexpr uint32_t kNone = 0xFFFFFFFFu;
/// "TMIR" as a little-endian u32.
constexpr uint32_t kMagic = 0x52494D54u;
constexpr uint32_t kVersion = 1;
/// The largest Unicode code point.
constexpr uint32_t kMaxCodePoint = 0x10FFFF;

enum class Kind : uint32_t {
  Empty = 0,
  Never = 1,
  Bytes = 2,
  Class = 3,
  Seq = 4,
  Choice = 5,
  Repeat = 6,
  Ref = 7,
  Text = 8,
  /// a = item, b = min, c = max or kNone: matches of the item holding min..max units.
  Counted = 9,
  /// a = item: a match of the item that counts one unit for the innermost counted node.
  Unit = 10,
  /// a = item, b = required marks (a mask of up to 32 bits): matches of the item whose marks are
  /// pairwise different and include every required one.
  Marks = 11,
  /// a = item, b = index (< 32): a match of the item that uses one mark of the innermost marks
  /// node.
  Mark = 12,
  /// a = item, b = modulus m (2 <= m < 2^31, coprime to 10): matches of the item whose digits
  /// (folded by its `rdigit` nodes, as a decimal number) are a multiple of m. Docs/ir.md, "Remainders".
  Residue = 13,
  /// a = digit (0-9), b = budget t (< 255) or kNone, c = m: the byte '0' + a, folding the digit
  /// into the innermost residue's remainder, then requiring it to stay alive with t free digits.
  ResidueDigit = 14,
  /// a = 0, b = budget t (< 255), c = m: the empty string, requiring the remainder alive with t.
  ResidueLive = 15,
  // Token nodes (docs/ir.md, "Token nodes"): codes 16-23 are theirs; token_nodes.h reads them.
  Token = 16,
  ExcludeToken = 17,
  AnyTokens = 18,
};

/// One node, fields as in the binary table (meaning depends on `kind`, see docs/ir.md).
struct Node {
  Kind kind;
  uint32_t a;
  uint32_t b;
  uint32_t c;
};

struct Rule {
  std::string name;
  uint32_t body;
};

/// A validated grammar. Node ids, extra offsets and byte offsets are those of the buffer, and
/// every one of them has been checked against its pool, so the accessors need no checks.
struct Grammar {
  std::vector<Rule> rules;
  uint32_t root = 0;
  std::vector<Node> nodes;
  std::vector<uint32_t> extra;
  std::vector<uint8_t> bytes;

  /// Child ids of a seq or choice node.
  const uint32_t* Children(const Node& n) const { return extra.data() + n.a; }
  /// Literal bytes of a bytes node.
  const uint8_t* Literal(const Node& n) const { return bytes.data() + n.a; }
  /// Class ranges: pairs (lo, hi), n.b of them.
  const uint32_t* Ranges(const Node& n) const { return extra.data() + n.a; }
  bool Negated(const Node& n) const { return (n.c & 1u) != 0; }
  /// Text parameters.
  uint32_t TextMaxChars(const Node& n) const { return extra[n.a]; }
  uint32_t TextMaxTokens(const Node& n) const { return extra[n.a + 1]; }
  uint32_t TextExcludeCount(const Node& n) const { return n.b; }
  const uint8_t* TextExclude(const Node& n, uint32_t i, uint32_t* length) const {
    *length = extra[n.a + 3 + 2 * i];
    return bytes.data() + extra[n.a + 2 + 2 * i];
  }
  /// Token nodes: entry i is three words (tag, x, y), tag 0 = the id x, tag 1 = the text
  /// bytes [x, x + y). After ResolveTokenNodes (token_nodes.h) every entry is an id.
  uint32_t TokenEntryTag(const Node& n, uint32_t i) const { return extra[n.a + 3 * i]; }
  uint32_t TokenId(const Node& n, uint32_t i) const { return extra[n.a + 3 * i + 1]; }
  /// maxTokens of an AnyTokens node (kNone: unbounded).
  uint32_t AnyTokensMax(const Node& n) const { return n.c; }
};

/// Parses and validates a serialized grammar. Throws Error(InvalidGrammar) naming the header
/// field, rule or node that is wrong; never reads outside `data[0, size)`.
Grammar ReadGrammar(const uint8_t* data, size_t size);

}  // namespace tagmask::ir
