/**
 * Registers the `zip:` URL scheme (and, through `openStore`, paths with a
 * `.zip` segment): `import "@zarr/store-zip/register"`.
 *
 * The registration is lazy: the store's implementation is imported the first
 * time a URL of the scheme is opened.
 *
 * @module
 */

import { registerStore } from "@zarr/core";

const opener = { load: () => import("./opener.js").then((m) => m.zipStoreOpener) };

registerStore("zip", opener);
