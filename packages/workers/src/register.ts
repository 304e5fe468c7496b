/**
 * Makes the shared {@link defaultPool} the worker pool of every array that
 * does not pass `workers` (pass `workers: false` to opt out per call).
 *
 * @module
 */
import { ZarrArray } from "@zarr/core";
import { defaultPool } from "./shared.js";

ZarrArray.defaultWorkers = defaultPool();
