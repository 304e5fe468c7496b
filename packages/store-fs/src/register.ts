/**
 * Registers the `file:` URL scheme: `import "@zarr/store-fs/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { fileStoreOpener } from "./opener.js";

registerStore("file", fileStoreOpener);
