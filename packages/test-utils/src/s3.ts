/**
 * The S3-compatible server the S3 tests talk to: its address and credentials
 * come from the environment (`S3_ENDPOINT`, `S3_ACCESS_KEY`, `S3_SECRET_KEY`,
 * `S3_REGION`), as printed by `shared/tools/s3-server/start.sh` and exported
 * by `.ci/services.sh start` in CI.
 *
 * @module
 */

/** Where the test S3 server is and how to sign in. */
export interface S3TestServer {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** True when `url` points at the loopback interface (tests must not reach anything else). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
  } catch {
    return false;
  }
}

/**
 * The S3 test server from the environment, or a reason why there is none
 * (not configured, or an endpoint other than 127.0.0.1).
 */
export function s3TestServer(
  env: Record<string, string | undefined> = process.env,
): { server: S3TestServer; reason?: undefined } | { server?: undefined; reason: string } {
  const endpoint = env.S3_ENDPOINT;
  if (!endpoint) {
    return {
      reason:
        "S3_ENDPOINT is not set: start a local server with ../shared/tools/s3-server/start.sh (or .ci/services.sh start) and export the variables it prints",
    };
  }
  if (!isLoopbackUrl(endpoint)) {
    return {
      reason: `S3_ENDPOINT=${endpoint} is not a loopback address: the tests only talk to 127.0.0.1`,
    };
  }
  const accessKeyId = env.S3_ACCESS_KEY;
  const secretAccessKey = env.S3_SECRET_KEY;
  if (!accessKeyId || !secretAccessKey) {
    return { reason: "S3_ENDPOINT is set but S3_ACCESS_KEY or S3_SECRET_KEY is not" };
  }
  return {
    server: { endpoint, accessKeyId, secretAccessKey, region: env.S3_REGION || "us-east-1" },
  };
}

/** A bucket name unique to this test run (lowercase, DNS-safe). */
export function uniqueBucketName(label: string): string {
  const random = Math.random().toString(36).slice(2, 8);
  return `${label}-${Date.now().toString(36)}-${process.pid}-${random}`.toLowerCase();
}
