/**
 * Registers the `gs:` and `gcs:` URL schemes: `import "@zarr/store-gcs/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { gcsStoreOpener } from "./opener.js";

registerStore("gs", gcsStoreOpener);
registerStore("gcs", gcsStoreOpener);
