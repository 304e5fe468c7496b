export * from "./watchdog.js";
