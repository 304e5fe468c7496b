// The in-flight budget of bounded decodes (DecodeLimits.maxBytesInFlight):
// reservations wait while others hold the budget, are served in order, a
// reservation larger than the budget runs alone, and an aborted wait leaves
// the queue.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
  reserveDecodeBytes,
} from "../src/codecs/limits.js";

const limits = (maxBytesInFlight: number): DecodeLimits => ({
  ...DEFAULT_DECODE_LIMITS,
  maxBytesInFlight,
});

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("reserveDecodeBytes", () => {
  it("admits reservations within the budget at once and queues the rest in order", async () => {
    const l = limits(100);
    const a = await reserveDecodeBytes(60, l);
    const b = await reserveDecodeBytes(40, l);
    const order: string[] = [];
    const c = reserveDecodeBytes(50, l).then((r) => {
      order.push("c");
      return r;
    });
    const d = reserveDecodeBytes(10, l).then((r) => {
      order.push("d");
      return r;
    });
    await settle();
    expect(order).toEqual([]); // d fits the budget but does not overtake c
    a();
    await settle();
    expect(order).toEqual(["c", "d"]);
    b();
    (await c)();
    (await d)();
  });

  it("a reservation larger than the budget runs alone, after the others", async () => {
    const l = limits(100);
    const small = await reserveDecodeBytes(10, l);
    let started = false;
    const big = reserveDecodeBytes(1000, l).then((r) => {
      started = true;
      return r;
    });
    await settle();
    expect(started).toBe(false);
    small();
    await settle();
    expect(started).toBe(true);
    let next = false;
    const after = reserveDecodeBytes(1, l).then((r) => {
      next = true;
      return r;
    });
    await settle();
    expect(next).toBe(false);
    (await big)();
    (await after)();
    expect(next).toBe(true);
  });

  it("an aborted wait rejects with an AbortError, leaves the queue, and lets the next one in", async () => {
    const l = limits(100);
    const held = await reserveDecodeBytes(100, l);
    const controller = new AbortController();
    const waiting = reserveDecodeBytes(100, l, controller.signal);
    let next = false;
    const later = reserveDecodeBytes(50, l).then((r) => {
      next = true;
      return r;
    });
    controller.abort();
    await expect(waiting).rejects.toThrow(expect.objectContaining({ name: "AbortError" }));
    held();
    await settle();
    expect(next).toBe(true);
    (await later)();
  });

  it("releasing twice gives back once", async () => {
    const l = limits(100);
    const a = await reserveDecodeBytes(100, l);
    a();
    a();
    const b = await reserveDecodeBytes(100, l);
    let c = false;
    const pending = reserveDecodeBytes(1, l).then((r) => {
      c = true;
      return r;
    });
    await settle();
    expect(c).toBe(false);
    b();
    (await pending)();
  });
});
