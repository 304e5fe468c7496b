/**
 * Registers the `s3:` URL scheme: `import "@zarr/store-s3/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { s3StoreOpener } from "./opener.js";

registerStore("s3", s3StoreOpener);
