/**
 * Registers the `zip:` URL scheme (and, through `openStore`, paths with a
 * `.zip` segment): `import "@zarr/store-zip/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { zipStoreOpener } from "./opener.js";

registerStore("zip", zipStoreOpener);
