/**
 * A least-recently-used map bounded by a byte budget.
 *
 * @module
 */

/** Bytes charged per entry besides its value, so that many tiny entries stay bounded too. */
export const ENTRY_OVERHEAD = 64;

/**
 * Maps ids to byte values (or `undefined`, a remembered miss) and evicts the
 * least recently used entries once their total size exceeds `maxBytes`.
 * Map iteration order is insertion order, so "recently used" is "re-inserted".
 */
export class ByteLru {
  readonly #entries = new Map<string, Uint8Array | undefined>();
  #bytes = 0;

  constructor(
    readonly maxBytes: number,
    /** Called with the id of each entry that leaves the map (evicted or deleted). */
    private readonly onRemove: (id: string) => void,
  ) {}

  /** Total bytes charged (values plus per-entry overhead). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** `{value}` on a hit (marking it recently used), `undefined` on a miss. */
  lookup(id: string): { value: Uint8Array | undefined } | undefined {
    if (!this.#entries.has(id)) return undefined;
    const value = this.#entries.get(id);
    this.#entries.delete(id);
    this.#entries.set(id, value);
    return { value };
  }

  set(id: string, value: Uint8Array | undefined): void {
    this.delete(id);
    const cost = (value?.length ?? 0) + ENTRY_OVERHEAD;
    if (cost > this.maxBytes) return;
    this.#entries.set(id, value);
    this.#bytes += cost;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(id: string): void {
    if (!this.#entries.has(id)) return;
    const value = this.#entries.get(id);
    this.#entries.delete(id);
    this.#bytes -= (value?.length ?? 0) + ENTRY_OVERHEAD;
    this.onRemove(id);
  }

  clear(): void {
    for (const id of [...this.#entries.keys()]) this.delete(id);
  }
}
