/**
 * Browsers and other engines: no native CRC-32, the TypeScript one is used.
 *
 * @module
 */

/** No native engine here. */
export const nativeCrc32: ((data: Uint8Array) => number) | undefined = undefined;
