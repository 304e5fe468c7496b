/**
 * @zarr/remote-store: the code the network store packages share (bucket
 * prefixes and URLs, opener options, request errors, deadlines, bounded
 * response bodies). For store authors; not a store itself. No Node built-ins.
 *
 * @example
 * import { BucketPrefix, Deadline, readBody } from "@zarr/remote-store";
 *
 * @packageDocumentation
 */

export { type BodyFailure, type BodyPlan, PlannedBody, readBody } from "./body.js";
export {
  BucketPrefix,
  type BucketUrlSyntax,
  type ListingPage,
  parseBucketUrl,
} from "./bucket.js";
export { Deadline, Expired } from "./deadline.js";
export { type FailedRequest, MAX_ERROR_MESSAGE, requestError } from "./errors.js";
export { OpenerOptions } from "./opener.js";
export {
  type ContentRange,
  expectedStart,
  isEmptyRange,
  type ObjectRead,
  type ObjectResponse,
  parseContentRange,
  planObjectRead,
  type Refusal,
  rangeHeader,
} from "./ranges.js";
