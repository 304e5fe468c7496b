/**
 * Latent arrays: `lo` holds each latent (8-, 16- and 32-bit latents) or its
 * low 32 bits; `hi` the high 32 bits of 64-bit latents (empty otherwise).
 * Narrow arithmetic is masked to the latent width, so it wraps as the spec's
 * unsigned latents do.
 *
 * @module
 */
import type { LatentBits } from "./metadata.js";

/** A sequence of latents of one width. */
export interface Latents {
  readonly bits: LatentBits;
  readonly lo: Uint32Array;
  readonly hi: Uint32Array;
}

/** Allocates `n` zero latents. */
export function allocLatents(bits: LatentBits, n: number): Latents {
  return { bits, lo: new Uint32Array(n), hi: new Uint32Array(bits === 64 ? n : 0) };
}

/** The mask of a narrow latent width (all 32 bits for 64-bit latents' words). */
export function maskOf(bits: LatentBits): number {
  return bits >= 32 ? 0xffffffff : 2 ** bits - 1;
}

/** The top bit of a narrow width (`MID`), or of the high word of 64-bit latents. */
export function midOf(bits: LatentBits): number {
  return bits >= 32 ? 0x80000000 : 2 ** (bits - 1);
}
