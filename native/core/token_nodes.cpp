#include "token_nodes.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tagmask/error.h"

namespace tagmask {
namespace {

constexpr uint32_t kEntryId = 0;
constexpr uint32_t kEntryText = 1;
constexpr uint32_t kMaxTokenId = 0x7FFFFFFFu;

const char* TokenKindName(uint32_t code) {
  switch (code) {
    case static_cast<uint32_t>(ir::Kind::Token):
      return "token";
    case static_cast<uint32_t>(ir::Kind::ExcludeToken):
      return "excludeToken";
    default:
      return "anyTokens";
  }
}

[[noreturn]] void FailNode(uint32_t id, uint32_t code, const std::string& what) {
  throw Error(ErrorCode::InvalidGrammar, "invalid grammar IR at node " + std::to_string(id) + " (" + TokenKindName(code) + "): " + what);
}

bool InPool(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

// A token text as messages show it: printable ASCII as is, other bytes as \xHH.
std::string ShowText(std::string_view text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    if (ch >= 0x20 && ch < 0x7F && ch != '"' && ch != '\\') {
      out.push_back(static_cast<char>(ch));
    } else {
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[ch >> 4]);
      out.push_back(kHex[ch & 15]);
    }
  }
  return out + "\"";
}

std::string ShowToken(const TokenizerInfo& tok, uint32_t id) {
  return std::to_string(id) + " " + ShowText(std::string_view(reinterpret_cast<const char*>(tok.TokenBytes(id)), tok.TokenLength(id)));
}

}  // namespace

bool IsTokenKindCode(uint32_t code) { return code >= 16 && code <= 23; }

void CheckTokenNode(const ir::Grammar& g, uint32_t id, uint32_t code, uint32_t a, uint32_t b, uint32_t c) {
  if (code > static_cast<uint32_t>(ir::Kind::AnyTokens)) {
    FailNode(id, code, "unknown kind code " + std::to_string(code) + " (codes 16-18 are token nodes; 19-23 are reserved)");
  }
  const uint64_t extraCount = g.extra.size(), byteCount = g.bytes.size();
  if (!InPool(a, 3ull * b, extraCount)) FailNode(id, code, "its " + std::to_string(b) + " token entries lie outside the extra pool");
  if (code == static_cast<uint32_t>(ir::Kind::Token) && b == 0) FailNode(id, code, "a token node needs at least one token");
  if (code != static_cast<uint32_t>(ir::Kind::AnyTokens) && c != 0) FailNode(id, code, "field c must be 0");
  for (uint32_t i = 0; i < b; ++i) {
    const uint32_t tag = g.extra[a + 3 * i], x = g.extra[a + 3 * i + 1], y = g.extra[a + 3 * i + 2];
    const std::string entry = "token entry " + std::to_string(i);
    if (tag == kEntryId) {
      if (x > kMaxTokenId) FailNode(id, code, entry + " names id " + std::to_string(x) + ", above the largest token id 2^31-1");
      if (y != 0) FailNode(id, code, entry + " is an id, so its third word must be 0");
    } else if (tag == kEntryText) {
      if (y == 0) FailNode(id, code, entry + " is an empty text");
      if (!InPool(x, y, byteCount)) FailNode(id, code, entry + " lies outside the byte pool");
    } else {
      FailNode(id, code, entry + " has the unknown tag " + std::to_string(tag) + " (0: an id, 1: a text)");
    }
  }
}

void ResolveTokenNodes(ir::Grammar* grammar, const TokenizerInfo& tok) {
  ir::Grammar& g = *grammar;
  // The texts named anywhere, then one pass over the vocabulary to find them.
  std::unordered_map<std::string_view, uint32_t> byText;  // text -> best id (UINT32_MAX: none yet)
  for (const ir::Node& n : g.nodes) {
    if (!IsTokenKindCode(static_cast<uint32_t>(n.kind))) continue;
    for (uint32_t i = 0; i < n.b; ++i) {
      if (g.TokenEntryTag(n, i) != kEntryText) continue;
      const uint32_t off = g.extra[n.a + 3 * i + 1], len = g.extra[n.a + 3 * i + 2];
      byText.emplace(std::string_view(reinterpret_cast<const char*>(g.bytes.data()) + off, len), UINT32_MAX);
    }
  }
  if (!byText.empty()) {
    for (uint32_t id = 0; id < tok.TokenCount(); ++id) {
      const auto it = byText.find(std::string_view(reinterpret_cast<const char*>(tok.TokenBytes(id)), tok.TokenLength(id)));
      if (it == byText.end()) continue;
      // A special token stands for its text before an ordinary token with the same bytes.
      const bool special = tok.Kind(id) != TokenKind::Normal;
      if (it->second == UINT32_MAX || (special && tok.Kind(it->second) == TokenKind::Normal)) it->second = id;
    }
  }
  for (ir::Node& n : g.nodes) {
    if (!IsTokenKindCode(static_cast<uint32_t>(n.kind))) continue;
    const bool matched = n.kind == ir::Kind::Token;
    for (uint32_t i = 0; i < n.b; ++i) {
      uint32_t* entry = g.extra.data() + n.a + 3 * i;
      if (entry[0] == kEntryText) {
        const std::string_view text(reinterpret_cast<const char*>(g.bytes.data()) + entry[1], entry[2]);
        const uint32_t id = byText.at(text);
        if (id == UINT32_MAX) {
          throw Error(ErrorCode::InvalidGrammar, "token " + ShowText(text) +
                                                     " is not a token of the vocabulary: no token has exactly these bytes "
                                                     "(a token given as text must be one whole token; give its id instead)");
        }
        entry[0] = kEntryId;
        entry[1] = id;
        entry[2] = 0;
      }
      const uint32_t id = entry[1];
      if (id >= tok.VocabSize() || (matched && id >= tok.TokenCount())) {
        throw Error(ErrorCode::InvalidGrammar, "token id " + std::to_string(id) + " is out of range: the vocabulary has " +
                                                   std::to_string(tok.TokenCount()) + " tokens" +
                                                   (tok.VocabSize() > tok.TokenCount() ? " (ids up to " + std::to_string(tok.VocabSize() - 1) + " are padding)" : ""));
      }
      if (matched && tok.IsStop(id)) {
        throw Error(ErrorCode::InvalidGrammar, "token " + ShowToken(tok, id) +
                                                   " is a stop token of this vocabulary: it ends the output, so a grammar cannot match it as a "
                                                   "token (end the grammar there instead, or build the vocabulary without it as a stop token)");
      }
    }
  }
}

}  // namespace tagmask
