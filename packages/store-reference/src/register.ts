/**
 * Registers the `reference:`, `reference+json:` and `reference+parquet:` URL
 * schemes: `import "@zarr/store-reference/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a URL of the scheme is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.referenceStoreOpener) };

registerStore("reference", opener);
registerStore("reference+json", opener);
registerStore("reference+parquet", opener);
