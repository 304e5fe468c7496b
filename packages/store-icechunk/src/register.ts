/**
 * Registers the `icechunk:` URL scheme: `import "@zarr/store-icechunk/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a URL of the scheme is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.icechunkStoreOpener) };

registerStore("icechunk", opener);
