/**
 * The option tables and help texts that several commands share. Kept free of
 * imports so that `zarr --help` and usage errors load no store, codec or
 * core code.
 *
 * @module
 */

/** Command-line flags that configure stores (shared by every command). */
export const STORE_FLAGS = {
  "s3-endpoint": { type: "string" },
  "s3-region": { type: "string" },
  "s3-path-style": { type: "boolean" },
  "s3-legacy-checksums": { type: "boolean" },
  "gcs-endpoint": { type: "string" },
  "gcs-project": { type: "string" },
  "gcs-key-file": { type: "string" },
  "allow-local-targets": { type: "boolean" },
} as const;

/** Help text for {@link STORE_FLAGS}. */
export const STORE_HELP = `store options (URLs: paths, file:, http(s):, zip:, s3:, gs:, icechunk:REPO[?branch=B|tag=T|snapshot=ID],
  reference:REFS.json or reference:PARQUET-DIR, reference+json:, reference+parquet:):
  --s3-endpoint URL        S3-compatible server (env AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL)
  --s3-region R            region (env AWS_REGION, AWS_DEFAULT_REGION)
  --s3-path-style          path-style requests (default with an endpoint)
  --s3-legacy-checksums    for servers without S3's flexible checksums (Swift, old MinIO)
  --gcs-endpoint URL       GCS JSON API endpoint (the client honours STORAGE_EMULATOR_HOST)
  --gcs-project ID         project (env GOOGLE_CLOUD_PROJECT)
  --gcs-key-file FILE      service account key (env GOOGLE_APPLICATION_CREDENTIALS)
  --allow-local-targets    let kerchunk references and Icechunk virtual chunks read local files
  credentials: the usual AWS_* variables and files, Google application default credentials;
  ZARR_HTTP_HEADERS='{"Authorization": "Bearer ..."}' adds headers to HTTP(S) requests`;

/** The values of {@link STORE_FLAGS} as parsed by `util.parseArgs`. */
export type StoreFlags = Partial<Record<keyof typeof STORE_FLAGS, string | boolean>>;

/** `--workers N`: threads for chunk codecs (`zarr get`, `zarr copy`; see workers.ts). */
export const WORKERS_FLAG = { workers: { type: "string" } } as const;

/**
 * Help text for {@link WORKERS_FLAG}: `byDefault` says what runs without it,
 * `note` adds a line; `column` is where the command's descriptions start.
 */
export function workersHelp(column: number, byDefault: string, note?: string): string {
  const pad = " ".repeat(column);
  const lines = [
    `${"  --workers N".padEnd(column)}threads that decode and encode compressed chunks besides`,
    `${pad}this one, at most one per core (default ${byDefault})`,
  ];
  if (note !== undefined) lines.push(pad + note);
  return lines.join("\n");
}

/** Layout flags shared by `zarr create` and `zarr copy`. */
export const LAYOUT_FLAGS = {
  format: { type: "string" },
  chunks: { type: "string" },
  shards: { type: "string" },
  compressor: { type: "string" },
  codecs: { type: "string" },
  endian: { type: "string" },
  order: { type: "string" },
  separator: { type: "string" },
  "key-encoding": { type: "string" },
  "index-location": { type: "string" },
} as const;

/** Help text for {@link LAYOUT_FLAGS}. */
export const LAYOUT_HELP = `layout options:
  --format 2|3             Zarr format of the result
  --chunks 100,100         chunk shape (the inner chunks when sharded)
  --shards 1000,1000|none  shard shape (v3 sharding_indexed, index with crc32c), or none
  --compressor SPEC        none, gzip[:LEVEL], zstd[:LEVEL], blosc[:CNAME[:CLEVEL[:SHUFFLE]]],
                           crc32c; join with + (e.g. zstd:3+crc32c)
  --codecs JSON            the whole v3 codec list of a chunk (inner chunk when sharded);
                           other codecs go here, by zarr-python 3's names, e.g.
                           '[{"name":"numcodecs.zfpy","configuration":{"mode":4,"tolerance":0.01}}]'
                           (also numcodecs.pcodec, .lz4, .bz2, .lzma, .fletcher32, ...)
  --endian little|big      byte order of the bytes codec
  --order C|F              memory order inside chunks (F adds a transpose codec)
  --separator /|.          chunk key separator
  --key-encoding KIND      default ("c/0/0" keys) or v2 ("0.0" keys), v3 only
  --index-location WHERE   end (default) or start: where a shard keeps its index`;
