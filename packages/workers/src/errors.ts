/**
 * Rebuilds errors that crossed from a worker as the same typed errors.
 *
 * @module
 */
import {
  AbortError,
  CodecError,
  ContainsNodeError,
  IndexError,
  InvalidKeyError,
  MetadataError,
  NodeNotFoundError,
  NotRegisteredError,
  StoreCapabilityError,
  StoreError,
  UnsupportedError,
  ValueError,
  ZarrError,
} from "@zarr/core";
import type { WireError } from "./protocol.js";

type ZarrErrorClass = new (message: string, options?: { path?: string }) => ZarrError;

const CLASSES: Record<string, ZarrErrorClass> = {
  AbortError,
  CodecError,
  ContainsNodeError,
  IndexError,
  InvalidKeyError,
  MetadataError,
  NodeNotFoundError,
  StoreCapabilityError,
  StoreError,
  UnsupportedError,
  ValueError,
  ZarrError,
};

const STANDARD: Record<string, ErrorConstructor> = {
  RangeError,
  TypeError,
  SyntaxError,
  Error,
};

/** The error a worker reported, as an instance of the same class (plain `Error` subclasses too). */
export function reviveError(e: WireError): Error {
  if (e.name === "NotRegisteredError" && e.kind !== undefined && e.extension !== undefined) {
    const error = new NotRegisteredError(e.kind, e.extension, "", { path: e.path });
    error.message = e.message;
    return error;
  }
  const zarr = CLASSES[e.name];
  if (zarr) return new zarr(e.message, { path: e.path });
  const standard = STANDARD[e.name];
  if (standard) return new standard(e.message);
  // Codecs may throw their own Error subclasses: keep message and name.
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}
