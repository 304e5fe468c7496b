/**
 * Test helpers published for store packages: the store conformance suite.
 *
 * @example
 * import { storeConformanceCases } from "@zarr/core/testing";
 * for (const c of storeConformanceCases({ create: async (initial) => new MyStore(initial) })) {
 *   it(c.name, c.run);
 * }
 *
 * @module
 */

export { ConformanceFailure } from "./assert.js";
export { codecTestContext } from "./codec-context.js";
export {
  type ConformanceCase,
  type StoreConformanceOptions,
  storeConformanceCases,
} from "./store-conformance.js";
