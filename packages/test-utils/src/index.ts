export * from "./codec-data.js";
export * from "./dir-store.js";
export * from "./fault-proxy.js";
export * from "./fixtures.js";
export * from "./gcs-emulator.js";
export * from "./python.js";
export * from "./s3.js";
