// The token bitmask layout shared with JavaScript, xgrammar and the CUDA kernels: token t is
// bit (t & 31) of 32-bit word (t >> 5); 1 = allowed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tagmask {

/// Number of 32-bit words a mask over `vocabSize` tokens needs.
inline constexpr size_t MaskWords(size_t vocabSize) { return (vocabSize + 31) / 32; }

inline void SetBit(uint32_t* words, uint32_t id) { words[id >> 5] |= 1u << (id & 31); }
inline void ClearBit(uint32_t* words, uint32_t id) { words[id >> 5] &= ~(1u << (id & 31)); }
inline bool TestBit(const uint32_t* words, uint32_t id) { return (words[id >> 5] >> (id & 31)) & 1u; }

}  // namespace tagmask
