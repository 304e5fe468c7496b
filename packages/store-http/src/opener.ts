/**
 * The `http:`/`https:` URL opener registered by `@zarr/store-http/register`.
 *
 * @module
 */

import { type AnyStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { HttpStore, type HttpStoreOptions } from "./store.js";

function optionError(name: string, expected: string, value: unknown): StoreError {
  return new StoreError(`option "${name}" must be ${expected}, got ${JSON.stringify(value)}`);
}

/** Checks the options `openStore` passed through and keeps the ones {@link HttpStore} knows. */
export function httpStoreOptions(options: Record<string, unknown>): HttpStoreOptions {
  const out: HttpStoreOptions = {};
  const {
    fetch,
    headers,
    forbiddenIsMissing,
    suffixRanges,
    retry,
    timeouts,
    maxBodyBytes,
    requestInit,
  } = options;
  if (fetch !== undefined) {
    if (typeof fetch !== "function") throw optionError("fetch", "a function", typeof fetch);
    out.fetch = fetch as typeof globalThis.fetch;
  }
  if (headers !== undefined) {
    const ok =
      (typeof Headers !== "undefined" && headers instanceof Headers) ||
      Array.isArray(headers) ||
      (typeof headers === "object" &&
        headers !== null &&
        Object.values(headers).every((v) => typeof v === "string"));
    if (!ok) throw optionError("headers", "an object of strings, entries or Headers", headers);
    out.headers = headers as HttpStoreOptions["headers"];
  }
  for (const [name, value] of [
    ["forbiddenIsMissing", forbiddenIsMissing],
    ["suffixRanges", suffixRanges],
  ] as const) {
    if (value !== undefined && typeof value !== "boolean")
      throw optionError(name, "a boolean", value);
  }
  if (forbiddenIsMissing !== undefined) out.forbiddenIsMissing = forbiddenIsMissing as boolean;
  if (suffixRanges !== undefined) out.suffixRanges = suffixRanges as boolean;
  if (retry !== undefined) {
    if (typeof retry !== "object" || retry === null) throw optionError("retry", "an object", retry);
    for (const [k, v] of Object.entries(retry)) {
      if (!["retries", "baseDelay", "maxDelay", "timeout"].includes(k)) {
        throw optionError(`retry.${k}`, "one of retries, baseDelay, maxDelay, timeout", k);
      }
      if (typeof v !== "number" || !(v >= 0))
        throw optionError(`retry.${k}`, "a non-negative number", v);
    }
    out.retry = retry as HttpStoreOptions["retry"];
  }
  if (timeouts !== undefined) {
    if (typeof timeouts !== "object" || timeouts === null) {
      throw optionError("timeouts", "an object", timeouts);
    }
    for (const [k, v] of Object.entries(timeouts)) {
      if (!["response", "idle"].includes(k)) {
        throw optionError(`timeouts.${k}`, "one of response, idle", k);
      }
      if (typeof v !== "number" || !(v > 0)) {
        throw optionError(`timeouts.${k}`, "a positive number of milliseconds", v);
      }
    }
    out.timeouts = timeouts as HttpStoreOptions["timeouts"];
  }
  if (maxBodyBytes !== undefined) {
    if (
      typeof maxBodyBytes !== "number" ||
      !Number.isSafeInteger(maxBodyBytes) ||
      maxBodyBytes < 0
    ) {
      throw optionError("maxBodyBytes", "a non-negative integer", maxBodyBytes);
    }
    out.maxBodyBytes = maxBodyBytes;
  }
  if (requestInit !== undefined) {
    if (typeof requestInit !== "object" || requestInit === null) {
      throw optionError("requestInit", "an object", requestInit);
    }
    out.requestInit = requestInit as HttpStoreOptions["requestInit"];
  }
  return out;
}

/**
 * Opens `http:` and `https:` URLs as {@link HttpStore}s. Options (all
 * optional, others are ignored so that one options object can serve several
 * schemes): `fetch`, `headers`, `forbiddenIsMissing`, `suffixRanges`, `retry`,
 * `timeouts`, `maxBodyBytes`, `requestInit` — see {@link HttpStoreOptions}.
 */
export const httpStoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    return new HttpStore(url, httpStoreOptions(options));
  },
};
