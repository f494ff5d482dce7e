/**
 * The byte pool of serialized IR (docs/ir.md, "Serialization"): literal bytes, excluded strings
 * and rule names, each distinct content written once. Contents are found again through an
 * open-addressing table of their hashes compared against the pool itself, so a grammar of
 * 100,000 literals (a large enum) costs no string key and no map entry per literal.
 */

/** FNV-1a over the bytes. */
function hashBytes(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

export class BytePool {
  /** The pool; its first {@link length} bytes are written. */
  bytes = new Uint8Array(1024);
  length = 0;
  /** Hash table slots: 1 + offset of a content in the pool (0: free), its length and hash. */
  private offsets = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  private hashes = new Uint32Array(1024);
  /** Per slot, a number the caller keeps with that content (-1 until set): a bytes leaf's node id. */
  private tags = new Int32Array(1024).fill(-1);
  private used = 0;
  /** The slot {@link add} last found or filled. */
  private last = -1;

  /** Appends bytes (not indexed: rule names); returns their offset. */
  append(b: Uint8Array): number {
    if (this.length + b.length > this.bytes.length) {
      const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + b.length));
      next.set(this.bytes.subarray(0, this.length));
      this.bytes = next;
    }
    const off = this.length;
    this.bytes.set(b, off);
    this.length += b.length;
    return off;
  }

  /**
   * The offset of content equal to `b` added before, or else of `b` appended now. Distinct
   * non-empty contents get distinct offsets.
   */
  add(b: Uint8Array): number {
    const h = hashBytes(b);
    const mask = this.offsets.length - 1;
    let slot = h & mask;
    for (;;) {
      const off = this.offsets[slot]! - 1;
      if (off < 0) break;
      if (this.hashes[slot] === h && this.lengths[slot] === b.length && this.holds(off, b)) {
        this.last = slot;
        return off;
      }
      slot = (slot + 1) & mask;
    }
    const off = this.append(b);
    this.offsets[slot] = off + 1;
    this.lengths[slot] = b.length;
    this.hashes[slot] = h;
    this.last = slot;
    if (++this.used * 2 > this.offsets.length) this.rehash();
    return off;
  }

  /** The tag of the content {@link add} last returned (-1: none yet). */
  lastTag(): number {
    return this.tags[this.last]!;
  }

  /** Tags the content {@link add} last returned. */
  setLastTag(tag: number): void {
    this.tags[this.last] = tag;
  }

  private holds(off: number, b: Uint8Array): boolean {
    const pool = this.bytes;
    for (let i = 0; i < b.length; i++) if (pool[off + i] !== b[i]) return false;
    return true;
  }

  private rehash(): void {
    const { offsets, lengths, hashes, tags } = this;
    // Four times larger: few rehashes on the way to 10^5 contents (each runs cold, interpreted).
    const size = offsets.length * 4;
    this.offsets = new Int32Array(size);
    this.lengths = new Int32Array(size);
    this.hashes = new Uint32Array(size);
    this.tags = new Int32Array(size).fill(-1);
    const mask = size - 1;
    let moved = -1;
    for (let k = 0; k < offsets.length; k++) {
      if (offsets[k] === 0) continue;
      let slot = hashes[k]! & mask;
      while (this.offsets[slot] !== 0) slot = (slot + 1) & mask;
      this.offsets[slot] = offsets[k]!;
      this.lengths[slot] = lengths[k]!;
      this.hashes[slot] = hashes[k]!;
      this.tags[slot] = tags[k]!;
      if (k === this.last) moved = slot;
    }
    this.last = moved;
  }
}
