export * from "./python.js";
export * from "./fixtures.js";
export * from "./dir-store.js";
