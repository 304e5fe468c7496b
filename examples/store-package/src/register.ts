/**
 * Registers the `cache:` URL scheme: `import "zarr-store-cache/register"`, then
 * `openStore("cache:https://host/data.zarr")`.
 *
 * @module
 */
import { registerStore } from "@zarr/core";
import { cacheStoreOpener } from "./opener.js";

registerStore("cache", cacheStoreOpener);
