export * from "./python.js";
export * from "./fixtures.js";
