#include "tagmask/tokenizer_info.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <string>

#include "tagmask/bitmask.h"
#include "tagmask/error.h"
#include "utf8.h"

namespace tagmask {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(ErrorCode::InvalidTokenizer, "invalid vocabulary data: " + message);
}

// A simple, fast 64-bit hash (multiply-xorshift over 8-byte words); it only has to tell
// vocabularies apart for the compiler cache, not resist adversaries.
class Hasher {
 public:
  void Add(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      Mix(w);
    }
    uint64_t tail = 0;
    for (size_t k = 0; i < size; ++i, ++k) tail |= static_cast<uint64_t>(p[i]) << (8 * k);
    Mix(tail ^ (static_cast<uint64_t>(size) << 56));
  }
  uint64_t Value() const { return h_ ^ (h_ >> 31); }

 private:
  void Mix(uint64_t w) {
    h_ ^= w + 0x9E3779B97F4A7C15ull + (h_ << 6) + (h_ >> 2);
    h_ *= 0xBF58476D1CE4E5B9ull;
    h_ ^= h_ >> 29;
  }
  uint64_t h_ = 0x243F6A8885A308D3ull;
};

}  // namespace

uint16_t TokenizerInfo::ImpureEnd(const uint8_t* p, uint32_t len) {
  static const auto kPlain = [] {
    std::array<bool, 128> t{};
    for (int b = 0; b < 128; ++b) t[b] = IsPlainAscii(static_cast<uint8_t>(b));
    return t;
  }();
  return ImpureEndWith(p, len, kPlain.data());
}

uint16_t TokenizerInfo::ImpureEndWith(const uint8_t* p, uint32_t len, const bool* plainAscii) {
  uint32_t end = 0;
  uint32_t i = 0;
  while (i < len) {
    const uint8_t b = p[i];
    if (b < 0x80) {
      if (!plainAscii[b]) end = i + 1;
      ++i;
      continue;
    }
    int n = 0;  // Lead leaves it unset for an invalid lead byte
    uint8_t lo, hi;
    bool valid = utf8::Lead(b, &n, &lo, &hi);
    // A character cut off by the end of the token counts as plain when what is there is a valid
    // start: from a state where every character loops, such a prefix stays alive.
    const uint32_t have = std::min<uint32_t>(static_cast<uint32_t>(n), len - i - 1);
    if (valid && have > 0) valid = p[i + 1] >= lo && p[i + 1] <= hi;
    for (uint32_t k = 2; valid && k <= have; ++k) valid = (p[i + k] & 0xC0) == 0x80;
    if (valid) {
      i += have + 1;
    } else {
      // An invalid or truncated sequence: its lead byte is one impure unit, and whatever follows
      // is decoded afresh.
      end = i + 1;
      ++i;
    }
  }
  return end >= kImpureUnknown ? kImpureUnknown : static_cast<uint16_t>(end);
}

std::shared_ptr<const TokenizerInfo> TokenizerInfo::Create(const VocabularyView& v) {
  if (v.kindCount == 0) Fail("kinds is empty: a vocabulary needs at least one token");
  if (v.kindCount >= (1u << 31)) Fail("too many tokens (" + std::to_string(v.kindCount) + ")");
  if (v.offsetCount != v.kindCount + 1) {
    Fail("offsets has " + std::to_string(v.offsetCount) + " entries; expected token count + 1 = " +
         std::to_string(v.kindCount + 1));
  }
  if (v.vocabSize < v.kindCount) {
    Fail("vocabSize " + std::to_string(v.vocabSize) + " is below the token count " + std::to_string(v.kindCount));
  }
  if (v.vocabSize > (1u << 31)) Fail("vocabSize " + std::to_string(v.vocabSize) + " is too large");
  for (size_t i = 0; i + 1 < v.offsetCount; ++i) {
    if (v.offsets[i + 1] < v.offsets[i]) {
      Fail("offsets must be non-decreasing, but offsets[" + std::to_string(i + 1) + "] = " +
           std::to_string(v.offsets[i + 1]) + " < offsets[" + std::to_string(i) + "] = " + std::to_string(v.offsets[i]));
    }
  }
  if (v.offsets[v.offsetCount - 1] != v.byteCount) {
    Fail("the last offset is " + std::to_string(v.offsets[v.offsetCount - 1]) + " but bytes has " +
         std::to_string(v.byteCount) + " bytes");
  }
  for (size_t i = 0; i < v.kindCount; ++i) {
    if (v.kinds[i] > 2) {
      Fail("kinds[" + std::to_string(i) + "] is " + std::to_string(v.kinds[i]) +
           "; expected 0 (Normal), 1 (SpecialText) or 2 (Control)");
    }
  }

  std::shared_ptr<TokenizerInfo> info(new TokenizerInfo());
  TokenizerInfo& t = *info;
  const uint32_t count = static_cast<uint32_t>(v.kindCount);
  t.vocabSize_ = v.vocabSize;
  t.maskWords_ = static_cast<uint32_t>(MaskWords(v.vocabSize));
  // Offsets are rebased so that token 0 starts at 0 (the contract allows a leading gap).
  const uint32_t base = v.offsets[0];
  t.bytes_.assign(v.bytes + base, v.bytes + v.byteCount);
  t.offsets_.resize(v.offsetCount);
  for (size_t i = 0; i < v.offsetCount; ++i) t.offsets_[i] = v.offsets[i] - base;
  t.kinds_.assign(v.kinds, v.kinds + v.kindCount);

  t.stopMask_.assign(t.maskWords_, 0);
  for (size_t i = 0; i < v.stopCount; ++i) {
    const uint32_t id = v.stopIds[i];
    if (id >= count) {
      Fail("stopTokenIds[" + std::to_string(i) + "] = " + std::to_string(id) + " is not a token id (token count " +
           std::to_string(count) + ")");
    }
    if (t.kinds_[id] != static_cast<uint8_t>(TokenKind::Control)) {
      Fail("stop token " + std::to_string(id) + " must be a Control token (kind 2), got kind " + std::to_string(t.kinds_[id]));
    }
    if (!TestBit(t.stopMask_.data(), id)) {
      SetBit(t.stopMask_.data(), id);
      t.stopIds_.push_back(id);
    }
  }
  std::sort(t.stopIds_.begin(), t.stopIds_.end());

  t.eligibleMask_.assign(t.maskWords_, 0);
  std::vector<uint32_t> plain, impure;
  plain.reserve(count);
  for (uint32_t id = 0; id < count; ++id) {
    const uint32_t len = t.offsets_[id + 1] - t.offsets_[id];
    // Control tokens and empty tokens are never text the grammar could match.
    if (t.kinds_[id] == static_cast<uint8_t>(TokenKind::Control) || len == 0) continue;
    SetBit(t.eligibleMask_.data(), id);
    ++t.eligibleCount_;
    t.maxTokenLength_ = std::max(t.maxTokenLength_, len);
    (ImpureEnd(t.bytes_.data() + t.offsets_[id], len) == 0 ? plain : impure).push_back(id);
  }
  t.plainTrie_.Build(plain, t.bytes_.data(), t.offsets_.data());
  t.impureTrie_.Build(impure, t.bytes_.data(), t.offsets_.data());

  Hasher h;
  h.Add(&t.vocabSize_, sizeof(t.vocabSize_));
  h.Add(t.offsets_.data(), t.offsets_.size() * 4);
  h.Add(t.bytes_.data(), t.bytes_.size());
  h.Add(t.kinds_.data(), t.kinds_.size());
  h.Add(t.stopIds_.data(), t.stopIds_.size() * 4);
  t.fingerprint_ = h.Value();
  return info;
}

std::shared_ptr<const std::vector<uint16_t>> TokenizerInfo::ImpureNodeMaxima(const std::array<bool, 128>& plainAscii) const {
  {
    std::lock_guard<std::mutex> lock(maximaMutex_);
    auto it = maxima_.find(plainAscii);
    if (it != maxima_.end()) return it->second;
  }
  const TokenTrie& trie = impureTrie_;
  const uint32_t nodes = trie.NodeCount();
  const uint32_t* ids = trie.TokenIds();
  auto out = std::make_shared<std::vector<uint16_t>>(nodes, 0);
  std::vector<uint16_t>& m = *out;
  for (uint32_t i = 0; i < nodes; ++i) {
    for (uint32_t k = trie.TokenBegin(i); k < trie.TokenBegin(i + 1); ++k) {
      m[i] = std::max(m[i], ImpureEndWith(TokenBytes(ids[k]), TokenLength(ids[k]), plainAscii.data()));
    }
  }
  // Subtree maxima: a pre-order pass folds each finished subtree into its parent.
  std::vector<uint32_t> open;
  const auto fold = [&]() {
    const uint32_t done = open.back();
    open.pop_back();
    if (!open.empty()) m[open.back()] = std::max(m[open.back()], m[done]);
  };
  for (uint32_t i = 0; i < nodes; ++i) {
    while (!open.empty() && trie.SubtreeEnd(open.back()) <= i) fold();
    open.push_back(i);
  }
  while (!open.empty()) fold();
  std::lock_guard<std::mutex> lock(maximaMutex_);
  if (maxima_.size() >= 64) maxima_.clear();  // bounded: grammars rarely need more than a few
  maxima_.emplace(plainAscii, out);
  return out;
}

size_t TokenizerInfo::MemoryBytes() const {
  return sizeof(*this) + bytes_.capacity() + offsets_.capacity() * 4 + kinds_.capacity() + stopIds_.capacity() * 4 +
         stopMask_.capacity() * 4 + eligibleMask_.capacity() * 4 + plainTrie_.MemoryBytes() + impureTrie_.MemoryBytes() +
         maxima_.size() * impureTrie_.NodeCount() * 2;
}

}  // namespace tagmask

namespace tagmask {

std::shared_ptr<const RuleWalks> TokenizerInfo::FindRuleWalks(const std::string& key) const {
  std::lock_guard<std::mutex> lock(ruleWalkMutex_);
  const auto it = ruleWalks_.find(key);
  return it == ruleWalks_.end() ? nullptr : it->second.walks;
}

void TokenizerInfo::StoreRuleWalks(const std::string& key, std::shared_ptr<const RuleWalks> walks, size_t bytes) const {
  bytes += key.size();
  if (bytes > kRuleWalkMaxBytes) return;
  std::lock_guard<std::mutex> lock(ruleWalkMutex_);
  if (ruleWalks_.count(key) != 0) return;  // another compile stored the same rule first
  while (!ruleWalkAge_.empty() && (ruleWalks_.size() >= kRuleWalkMaxEntries || ruleWalkBytes_ + bytes > kRuleWalkMaxBytes)) {
    const auto old = ruleWalks_.find(ruleWalkAge_.front());
    ruleWalkBytes_ -= old->second.bytes;
    ruleWalks_.erase(old);
    ruleWalkAge_.pop_front();
  }
  ruleWalkAge_.push_back(key);
  ruleWalks_.emplace(key, RuleWalkSlot{std::move(walks), bytes});
  ruleWalkBytes_ += bytes;
}

bool TokenizerInfo::NoteRuleSeen(const std::string& key) const {
  const size_t h = std::hash<std::string>()(key);
  std::lock_guard<std::mutex> lock(ruleWalkMutex_);
  if (ruleSeen_.count(h) != 0) return true;
  if (ruleSeen_.size() >= 16 * kRuleWalkMaxEntries) ruleSeen_.clear();
  ruleSeen_.insert(h);
  return false;
}

size_t TokenizerInfo::RuleWalkEntries() const {
  std::lock_guard<std::mutex> lock(ruleWalkMutex_);
  return ruleWalks_.size();
}

size_t TokenizerInfo::RuleWalkBytes() const {
  std::lock_guard<std::mutex> lock(ruleWalkMutex_);
  return ruleWalkBytes_;
}

}  // namespace tagmask
