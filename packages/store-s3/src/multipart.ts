/**
 * Multipart upload of one value held in memory: parts uploaded with bounded
 * concurrency, the upload aborted (parts freed) when any step fails.
 *
 * @module
 */

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { mapConcurrent } from "@zarr/core/store";

/** S3's limits on multipart uploads. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
export const MAX_PARTS = 10_000;

/** The part size used for a value of `size` bytes: `partSize`, raised so the upload fits in 10,000 parts. */
export function effectivePartSize(size: number, partSize: number): number {
  return Math.max(partSize, Math.ceil(size / MAX_PARTS));
}

/** Uploads `value` to `bucket`/`key` as a multipart upload. */
export async function putMultipart(
  client: S3Client,
  bucket: string,
  key: string,
  value: Uint8Array,
  partSize: number,
  concurrency: number,
  signal?: AbortSignal,
): Promise<void> {
  const size = effectivePartSize(value.length, partSize);
  const created = await client.send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }),
    { abortSignal: signal },
  );
  const uploadId = created.UploadId;
  if (!uploadId) throw new Error("CreateMultipartUpload returned no UploadId");
  try {
    const partNumbers = Array.from({ length: Math.ceil(value.length / size) }, (_, i) => i + 1);
    const etags = await mapConcurrent(
      partNumbers,
      concurrency,
      async (partNumber) => {
        const start = (partNumber - 1) * size;
        const out = await client.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: value.subarray(start, Math.min(value.length, start + size)),
          }),
          { abortSignal: signal },
        );
        if (!out.ETag) throw new Error(`UploadPart ${partNumber} returned no ETag`);
        return out.ETag;
      },
      signal,
    );
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: {
          Parts: etags.map((ETag, i) => ({ ETag, PartNumber: partNumbers[i] })),
        },
      }),
      { abortSignal: signal },
    );
  } catch (error) {
    // Best effort: free the uploaded parts (without the signal, which may be what failed us).
    await client
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
    throw error;
  }
}
