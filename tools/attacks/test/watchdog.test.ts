// The watchdog itself: it must kill what it promises to kill, or every attack
// test built on it could pass while the machine suffers.
import { describe, expect, it } from "vitest";
import { attack, describeRun } from "../src/index.js";

describe("watchdog", () => {
  it("reports a value and a modest peak for a benign child", async () => {
    const r = await attack(`return 6 * 7;`, { maxRssMiB: 200, timeoutMs: 20_000 });
    expect(r.value, describeRun(r)).toBe(42);
    expect(r.killed).toBeUndefined();
    expect(r.peakRssMiB).toBeGreaterThan(10);
  });

  it("reports what the child threw", async () => {
    const r = await attack(
      `const { CodecError } = await import("@zarr/core"); throw new CodecError("boom", { path: "k" });`,
      {
        maxRssMiB: 300,
        timeoutMs: 20_000,
      },
    );
    expect(r.error, describeRun(r)).toEqual({ name: "CodecError", message: "boom", path: "k" });
  });

  it("kills a child that allocates past its RSS cap", async () => {
    const r = await attack(
      `const keep = []; for (;;) { const b = new Uint8Array(64 << 20); b.fill(1); keep.push(b); await null; }`,
      { maxRssMiB: 300, timeoutMs: 30_000 },
    );
    expect(r.killed, describeRun(r)).toBe("rss");
  });

  it("kills a child that never settles", async () => {
    const r = await attack(`setInterval(() => {}, 1000); await new Promise(() => {});`, {
      maxRssMiB: 300,
      timeoutMs: 1_000,
    });
    expect(r.killed, describeRun(r)).toBe("time");
    expect(r.elapsedMs).toBeLessThan(5_000);
  });

  it("kills a child that reported its result but does not exit, and keeps the result", async () => {
    // An exit handler that never returns stands in for Node's shutdown deadlock
    // (nodejs/node#54918): the work is done and reported, the process stays.
    const r = await attack(
      `process.on("exit", () => { for (;;) {} }); return 6 * 7;`,
      { maxRssMiB: 300, timeoutMs: 30_000 },
      { exitGraceMs: 500 },
    );
    expect(r.value, describeRun(r)).toBe(42);
    expect(r.stalledAtExit, describeRun(r)).toBe(true);
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.elapsedMs, describeRun(r)).toBeLessThan(10_000);
    expect(describeRun(r)).toContain("stalled in Node's shutdown");
  });
});
