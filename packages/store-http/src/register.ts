/**
 * Registers the `http:` and `https:` URL schemes: `import "@zarr/store-http/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a URL of the scheme is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.httpStoreOpener) };

registerStore("http", opener);
registerStore("https", opener);
