export * from "./bombs.js";
export * from "./hostile-http.js";
export * from "./watchdog.js";
