/**
 * Registers every codec and data format the CLI reads and writes. Imported by
 * `main` just before a command runs, so that `zarr --help` loads none of them.
 * (Store URL schemes register in `stores.ts`, which every command imports.)
 *
 * @module
 */
import { CODEC_MODULES } from "./codec-modules.js";

await Promise.all(CODEC_MODULES.map((m) => import(m)));
