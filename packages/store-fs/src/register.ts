/**
 * Registers the `file:` URL scheme: `import "@zarr/store-fs/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a path or `file:` URL is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.fileStoreOpener) };

registerStore("file", opener);
