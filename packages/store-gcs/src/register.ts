/**
 * Registers the `gs:` and `gcs:` URL schemes: `import "@zarr/store-gcs/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a URL of the scheme is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.gcsStoreOpener) };

registerStore("gs", opener);
registerStore("gcs", opener);
