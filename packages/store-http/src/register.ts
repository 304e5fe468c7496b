/**
 * Registers the `http:` and `https:` URL schemes: `import "@zarr/store-http/register"`.
 *
 * @module
 */

import { registerStore } from "@zarr/core";
import { httpStoreOpener } from "./opener.js";

registerStore("http", httpStoreOpener);
registerStore("https", httpStoreOpener);
