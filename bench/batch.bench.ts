/**
 * Batch mask fill for 16, 64 and 256 sequences of the seed grammar (Kimi K3, tool_choice
 * "required", Llama 3 vocabulary with the K3 markers) at mid-generation states, as a batched
 * server runs it once per decoding step:
 *   - BatchMatcher.fillNextTokenBitmasks (synchronous: the calling thread plus the shared pool),
 *   - the same with parallel: false (one thread),
 *   - fillNextTokenBitmasksAsync (the event loop stays free; includes the hop back to it),
 *   - the peer: a plain loop of GrammarMatcher.fillNextTokenBitmask over the rows (what a user
 *     without the batch API writes).
 * Native xgrammar 0.2.5 on this kind of machine (../shared/notes/peers.md): 234 µs for 64 on
 * one thread, 203 µs on two; target here: ≤ 100 µs wall for 64 on 2 cores.
 */
import { BatchMatcher } from "../lib/engine/batch.js";
import { threadPoolSize } from "../lib/engine/batch-pool.js";
import { midGenerationMatchers, seedSetup } from "../test/batch/fixtures.js";
import { runSuite, saveReport, type BenchRow } from "./harness.js";

const setup = seedSetup();
console.log(`thread pool: ${threadPoolSize()} threads; vocabulary ${setup.vocab.data.vocabSize} tokens`);
const rows: BenchRow[] = [];
for (const n of [16, 64, 256]) {
  const { matchers } = midGenerationMatchers(setup, n);
  const parallel = new BatchMatcher(matchers);
  const single = new BatchMatcher(matchers, { parallel: false });
  const out = new Int32Array(n * parallel.maskWords);
  const loop = () => {
    for (let r = 0; r < n; r++) matchers[r]!.fillNextTokenBitmask(out, r);
  };
  rows.push(
    ...(await runSuite(`batch fill ${n}`, [
      { name: `batch ${n} sync, pool`, fn: () => parallel.fillNextTokenBitmasks(out), peer: `loop ${n}` },
      { name: `batch ${n} sync, 1 thread`, fn: () => single.fillNextTokenBitmasks(out), peer: `loop ${n}` },
      { name: `batch ${n} async, pool`, fn: async () => { await parallel.fillNextTokenBitmasksAsync(); }, peer: `loop ${n}` },
      { name: `loop ${n}`, fn: loop },
    ], { timeMs: 600 })),
  );
}
console.log(`report: ${saveReport("batch", rows, { threads: threadPoolSize() })}`);
