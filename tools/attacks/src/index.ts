export * from "./bombs.js";
export * from "./watchdog.js";
