/**
 * Registers the `reference:`, `reference+json:` and `reference+parquet:` URL
 * schemes: `import "@zarr/store-reference/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { referenceStoreOpener } from "./opener.js";

registerStore("reference", referenceStoreOpener);
registerStore("reference+json", referenceStoreOpener);
registerStore("reference+parquet", referenceStoreOpener);
