/** A command-line usage error (exit code 1). */
export class UsageError extends Error {
  override name = "UsageError";
}
