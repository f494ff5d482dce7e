#include "tagmask/mask_store.h"

#include <algorithm>

#include "tagmask/bitmask.h"

namespace tagmask {

void MaskStore::Write(uint32_t m, const uint32_t* eligible, uint32_t* row) const {
  const StoredMask& sm = masks[m];
  switch (sm.form) {
    case MaskForm::Empty:
      std::fill(row, row + wordCount, 0u);
      return;
    case MaskForm::List: {
      std::fill(row, row + wordCount, 0u);
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) SetBit(row, p[i]);
      return;
    }
    case MaskForm::Complement: {
      std::copy(eligible, eligible + wordCount, row);
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) ClearBit(row, p[i]);
      return;
    }
    case MaskForm::Bitset:
      std::copy(words.data() + sm.offset, words.data() + sm.offset + wordCount, row);
      return;
  }
}

void MaskStore::OrInto(uint32_t m, const uint32_t* eligible, uint32_t* row, uint32_t* scratch) const {
  const StoredMask& sm = masks[m];
  switch (sm.form) {
    case MaskForm::Empty:
      return;
    case MaskForm::List: {
      const uint32_t* p = ids.data() + sm.offset;
      for (uint32_t i = 0; i < sm.size; ++i) SetBit(row, p[i]);
      return;
    }
    case MaskForm::Complement:
      Write(m, eligible, scratch);
      for (uint32_t i = 0; i < wordCount; ++i) row[i] |= scratch[i];
      return;
    case MaskForm::Bitset: {
      const uint32_t* w = words.data() + sm.offset;
      for (uint32_t i = 0; i < wordCount; ++i) row[i] |= w[i];
      return;
    }
  }
}

}  // namespace tagmask
