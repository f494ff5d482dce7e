// Merging structurally equal rules. Front ends emit one copy of a shared sub-grammar per use
// (e.g. a JSON value rule per schema); equal rules compile to equal automata, so each reference
// is pointed at one representative before compiling, and the copies cost nothing.
#pragma once

#include "tagmask/ir.h"

namespace tagmask {

/// Points every `ref` at the smallest rule structurally equal to its target (same node trees,
/// references to equal rules; names do not count), the coarsest such equivalence.
void MergeEqualRules(ir::Grammar* grammar);

}  // namespace tagmask
