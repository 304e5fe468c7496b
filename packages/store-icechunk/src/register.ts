/**
 * Registers the `icechunk:` URL scheme: `import "@zarr/store-icechunk/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { icechunkStoreOpener } from "./opener.js";

registerStore("icechunk", icechunkStoreOpener);
