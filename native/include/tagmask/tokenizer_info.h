// A vocabulary as the engine uses it: every token's bytes and kind, the stop tokens, and the
// token tries the mask builder walks. Built once per vocabulary and shared (immutable) by every
// grammar compiled against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <map>
#include <memory>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tagmask/token_trie.h"

namespace tagmask {

/// What the mask builder keeps per vocabulary for one rule (mask_builder.cpp); opaque here.
struct RuleWalks;

enum class TokenKind : uint8_t { Normal = 0, SpecialText = 1, Control = 2 };

/// Whether an ASCII byte is "plain": not a control character, DEL, `"`, `\`, `<`, `[` or `{`.
/// A plain token is made of plain ASCII bytes and valid multi-byte UTF-8 characters (the last one
/// may be cut off by the end of the token).
/// Grammar states that loop on every plain character (free text, string bodies) accept every
/// plain token, which lets the mask builder skip walking them (docs/token-trie.md).
constexpr bool IsPlainAscii(uint8_t b) {
  return b >= 0x20 && b < 0x7F && b != '"' && b != '\\' && b != '<' && b != '[' && b != '{';
}

/// The plain data a vocabulary loader produces (lib/tokenizer/vocabulary.ts), borrowed.
struct VocabularyView {
  uint32_t vocabSize = 0;
  const uint8_t* bytes = nullptr;
  size_t byteCount = 0;
  const uint32_t* offsets = nullptr;  // tokenCount + 1 entries
  size_t offsetCount = 0;
  const uint8_t* kinds = nullptr;  // tokenCount entries
  size_t kindCount = 0;
  const uint32_t* stopIds = nullptr;
  size_t stopCount = 0;
};

class TokenizerInfo {
 public:
  /// ImpureEnd of tokens longer than 65534 bytes.
  static constexpr uint16_t kImpureUnknown = 0xFFFF;

  /// Validates and copies the vocabulary and builds its tries. Throws Error(InvalidTokenizer)
  /// naming the inconsistent field.
  static std::shared_ptr<const TokenizerInfo> Create(const VocabularyView& view);

  /// Ids the logits cover (token count plus padding).
  uint32_t VocabSize() const { return vocabSize_; }
  uint32_t TokenCount() const { return static_cast<uint32_t>(kinds_.size()); }
  /// 32-bit words of one mask row.
  uint32_t MaskWordCount() const { return maskWords_; }

  const uint8_t* TokenBytes(uint32_t id) const { return bytes_.data() + offsets_[id]; }
  uint32_t TokenLength(uint32_t id) const { return offsets_[id + 1] - offsets_[id]; }
  TokenKind Kind(uint32_t id) const { return static_cast<TokenKind>(kinds_[id]); }
  const uint8_t* Bytes() const { return bytes_.data(); }
  const uint32_t* Offsets() const { return offsets_.data(); }

  const std::vector<uint32_t>& StopIds() const { return stopIds_; }
  bool IsStop(uint32_t id) const { return id < TokenCount() && ((stopMask_[id >> 5] >> (id & 31)) & 1u); }
  /// Tokens that can ever be allowed as text: Normal or SpecialText, at least one byte.
  bool IsEligible(uint32_t id) const { return id < TokenCount() && ((eligibleMask_[id >> 5] >> (id & 31)) & 1u); }
  const uint32_t* EligibleMask() const { return eligibleMask_.data(); }
  const uint32_t* StopMask() const { return stopMask_.data(); }
  uint32_t EligibleCount() const { return eligibleCount_; }
  /// Bytes of the longest eligible token.
  uint32_t MaxTokenLength() const { return maxTokenLength_; }

  /// Eligible tokens made only of plain characters, and the other eligible tokens.
  const TokenTrie& PlainTrie() const { return plainTrie_; }
  const TokenTrie& ImpureTrie() const { return impureTrie_; }

  /// A 64-bit hash of the whole vocabulary (ids, bytes, kinds, stops, vocabSize): the compiler
  /// cache key.
  uint64_t Fingerprint() const { return fingerprint_; }
  size_t MemoryBytes() const;

  /// Length of the shortest prefix of `p[0, len)` after which the rest is plain characters
  /// (0 for a plain token), saturated at kImpureUnknown (which never permits a cut).
  static uint16_t ImpureEnd(const uint8_t* p, uint32_t len);
  /// The same with another set of plain ASCII bytes (`plainAscii[b]` for b < 0x80).
  static uint16_t ImpureEndWith(const uint8_t* p, uint32_t len, const bool* plainAscii);

  /// Per node of the impure trie: the largest ImpureEndWith(plainAscii) of the tokens below it.
  /// Built on first use for each set and cached (thread-safe); grammars of one family share sets.
  std::shared_ptr<const std::vector<uint16_t>> ImpureNodeMaxima(const std::array<bool, 128>& plainAscii) const;

  /// The mask builder's per-vocabulary cache of rule walks, keyed by a rule's canonical text
  /// (docs/engine.md, "Rule walks kept per vocabulary"). Thread-safe; bounded by entry count and
  /// bytes, the oldest entries going first (a compile holding one keeps it alive).
  std::shared_ptr<const RuleWalks> FindRuleWalks(const std::string& key) const;
  void StoreRuleWalks(const std::string& key, std::shared_ptr<const RuleWalks> walks, size_t bytes) const;
  /// Whether a rule with this key was noted before (by hash); notes it. Rules are kept from their
  /// second compile on, so a rule only one schema has costs no extra walk.
  bool NoteRuleSeen(const std::string& key) const;
  /// Entries and bytes held now (tests and stats).
  size_t RuleWalkEntries() const;
  size_t RuleWalkBytes() const;
  static constexpr size_t kRuleWalkMaxEntries = 256;
  static constexpr size_t kRuleWalkMaxBytes = size_t{16} << 20;

 private:
  TokenizerInfo() = default;

  uint32_t vocabSize_ = 0;
  uint32_t maskWords_ = 0;
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> offsets_;
  std::vector<uint8_t> kinds_;
  std::vector<uint32_t> stopIds_;
  std::vector<uint32_t> stopMask_;
  std::vector<uint32_t> eligibleMask_;
  uint32_t eligibleCount_ = 0;
  uint32_t maxTokenLength_ = 0;
  TokenTrie plainTrie_;
  TokenTrie impureTrie_;
  uint64_t fingerprint_ = 0;
  mutable std::mutex maximaMutex_;
  mutable std::map<std::array<bool, 128>, std::shared_ptr<const std::vector<uint16_t>>> maxima_;
  struct RuleWalkSlot {
    std::shared_ptr<const RuleWalks> walks;
    size_t bytes = 0;
  };
  mutable std::mutex ruleWalkMutex_;
  mutable std::unordered_map<std::string, RuleWalkSlot> ruleWalks_;
  mutable std::list<std::string> ruleWalkAge_;  // oldest first
  mutable size_t ruleWalkBytes_ = 0;
  mutable std::unordered_set<size_t> ruleSeen_;
};

}  // namespace tagmask
