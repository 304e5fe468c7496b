// kerchunk JSON references ("spec.md": version 0 and version 1 with templates
// and gen), the Jinja subset of templates, and malformed references: each is a
// StoreError naming the key.
import { StoreError } from "@zarr/core";
import {
  parseJsonReferences,
  ReferenceStore,
  renderTemplate,
  TemplateError,
} from "@zarr/store-reference";
import { describe, expect, it } from "vitest";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("the version 1 example of kerchunk's spec.md", () => {
  const doc = {
    version: 1,
    templates: { u: "long_text_template", f: "{{c}}" },
    gen: [
      {
        key: "gen_key{{i}}",
        url: "http://{{u}}_{{i}}",
        offset: "{{(i + 1) * 1000}}",
        length: "1000",
        dimensions: { i: { stop: 5 } },
      },
    ],
    refs: {
      key0: "data",
      key1: ["http://target_url", 10000, 100],
      key2: ["http://{{u}}", 10000, 100],
      key3: ["http://{{f(c='text')}}", 10000, 100],
      key4: ["http://target_url"],
    },
  };

  it("expands to the references the spec lists", () => {
    const refs = parseJsonReferences(doc);
    expect(refs.get("key0")).toEqual({ kind: "inline", bytes: utf8("data") });
    expect(refs.get("key1")).toEqual({
      kind: "range",
      url: "http://target_url",
      offset: 10000,
      length: 100,
    });
    expect(refs.get("key2")).toEqual({
      kind: "range",
      url: "http://long_text_template",
      offset: 10000,
      length: 100,
    });
    expect(refs.get("key3")).toEqual({
      kind: "range",
      url: "http://text",
      offset: 10000,
      length: 100,
    });
    expect(refs.get("key4")).toEqual({ kind: "file", url: "http://target_url" });
    for (let i = 0; i < 5; i++) {
      expect(refs.get(`gen_key${i}`)).toEqual({
        kind: "range",
        url: `http://long_text_template_${i}`,
        offset: (i + 1) * 1000,
        length: 1000,
      });
    }
    expect(refs.size).toBe(10);
  });

  it("gen dimensions: lists, start/stop/step (negative too), several dimensions in itertools.product order", () => {
    const refs = parseJsonReferences({
      version: 1,
      gen: [
        {
          key: "a/{{i}}.{{j}}",
          url: "s3://b/{{name}}.nc",
          dimensions: { i: { start: 4, stop: 0, step: -2 }, j: [0, 1], name: ["x"] },
        },
      ],
    });
    expect([...refs.keys()]).toEqual(["a/4.0", "a/4.1", "a/2.0", "a/2.1"]);
    expect(refs.get("a/2.1")).toEqual({ kind: "file", url: "s3://b/x.nc" });
  });

  it("version 0: the object is the reference map; base64 inline data; null URLs", () => {
    const refs = parseJsonReferences({
      ".zgroup": '{"zarr_format":2}',
      "a/0": "base64:AAEC/w==",
      "a/1": [null, 5, 3],
      "a/2": ["f.nc"],
    });
    expect(refs.get("a/0")).toEqual({ kind: "inline", bytes: Uint8Array.of(0, 1, 2, 255) });
    expect(refs.get("a/1")).toEqual({ kind: "range", url: undefined, offset: 5, length: 3 });
    expect(refs.get("a/2")).toEqual({ kind: "file", url: "f.nc" });
  });
});

describe("the template subset", () => {
  const scope = { values: { i: 7, s: "ab" }, templates: { u: "host", f: "{{a}}-{{b}}" } };
  it.each([
    ["{{ i }}", "7"],
    ["{{i*3+1}}", "22"],
    ["{{ (i - 10) // 3 }}", "-1"],
    ["{{ -i % 3 }}", "2"],
    ["{{ s + 'c' }}", "abc"],
    ["{{ s ~ i }}", "ab7"],
    ["x{{u}}y{{i}}z", "xhosty7z"],
    ["{{ f(a=1, b='q') }}", "1-q"],
    ["no template", "no template"],
  ])("%j renders %j", (text, expected) => {
    expect(renderTemplate(text, scope)).toBe(expected);
  });
  it.each([
    ["{{ i / 2 }}", /unsupported character/],
    ["{{ i | int }}", /unsupported character/],
    ["{% for x in y %}", /only \{\{ expression \}\}/],
    ["{{ i ", /without "\}\}"/],
    ["{{ nope }}", /unknown name/],
    ["{{ s * 2 }}", /needs integers/],
    ["{{ i // 0 }}", /division by zero/],
    ["{{ f }}", /must be called/],
    ["{{ g(a=1) }}", /unknown template/],
    ["{{ i.real }}", /unsupported character/],
    ["{{ 99999999999999999999 }}", /too large/],
    ["{{ (i }}", /expected "\)"/],
    ["{{ i i }}", /unexpected/],
    ["{{ }}", /ends early/],
    ["{{ __class__ }}", /unknown name/],
  ])("%j is a TemplateError", (text, reason) => {
    expect(() => renderTemplate(text, scope)).toThrow(TemplateError);
    expect(() => renderTemplate(text, scope)).toThrow(reason);
  });
});

describe("malformed references are StoreErrors naming the key", () => {
  const cases: [string, unknown, string, RegExp][] = [
    ["a key with a parent segment", { "../x": "a" }, "../x", /not a valid store key/],
    ["a key with an empty segment", { "a//b": "a" }, "a//b", /not a valid store key/],
    ["an absolute key", { "/a": "a" }, "/a", /not a valid store key/],
    ["a bad list", { "a/0": ["f", 1] }, "a/0", /\[url\] or \[url, offset, length\]/],
    ["a negative offset", { "a/0": ["f", -1, 2] }, "a/0", /offset must be a non-negative integer/],
    ["a fractional length", { "a/0": ["f", 1, 2.5] }, "a/0", /length must be/],
    ["a number URL", { "a/0": [5, 1, 2] }, "a/0", /URL must be a string or null/],
    ["bad base64", { "a/0": "base64:@@" }, "a/0", /base64/],
    ["a number value", { "a/0": 5 }, "a/0", /a string or a list/],
    [
      "a malformed template in a URL",
      { version: 1, templates: { u: "x" }, refs: { "a/0": ["{{u|upper}}", 0, 1] } },
      "a/0",
      /malformed template/,
    ],
    [
      "a gen key escaping",
      { version: 1, gen: [{ key: "../{{i}}", url: "f", dimensions: { i: [1] } }] },
      "../1",
      /not a valid store key/,
    ],
    [
      "a gen offset that is no integer",
      {
        version: 1,
        gen: [{ key: "a/{{i}}", url: "f", offset: "{{'x'}}", length: "1", dimensions: { i: [1] } }],
      },
      "a/1",
      /offset renders to "x"/,
    ],
    [
      "a gen entry with offset but no length",
      { version: 1, gen: [{ key: "a/{{i}}", url: "f", offset: "1", dimensions: { i: [1] } }] },
      "gen[0]",
      /both 'offset' and 'length'/,
    ],
    [
      "a gen step of 0",
      { version: 1, gen: [{ key: "a", url: "f", dimensions: { i: { stop: 3, step: 0 } } }] },
      "gen[0]",
      /step/,
    ],
    ["an unknown version", { version: 2, refs: {} }, "version", /unsupported reference version/],
    [
      "a non-string template",
      { version: 1, templates: { u: 1 } },
      "templates.u",
      /must be a string/,
    ],
  ];
  it.each(cases)("%s", (_, doc, key, reason) => {
    let error: unknown;
    try {
      parseJsonReferences(doc);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).path).toBe(key);
    expect((error as StoreError).message).toContain(JSON.stringify(key));
    expect((error as StoreError).message).toMatch(reason);
  });

  it("gen expanding past maxGenerated is refused before expanding", () => {
    const doc = {
      version: 1,
      gen: [{ key: "a/{{i}}.{{j}}", url: "f", dimensions: { i: { stop: 1e6 }, j: { stop: 1e6 } } }],
    };
    expect(() => parseJsonReferences(doc)).toThrow(/more than 2000000 references/);
    expect(() =>
      parseJsonReferences(
        { ...doc, gen: [{ ...doc.gen[0], dimensions: { i: { stop: 3 }, j: { stop: 3 } } }] },
        { maxGenerated: 8 },
      ),
    ).toThrow(StoreError);
  });

  // Found by an attack: 200,000 keys of 2 kB from a 2 kB document took 510 MB.
  it("gen rendering long keys or URLs stops at a character budget (bounded memory)", () => {
    const doc = (stop: number) => ({
      version: 1,
      templates: { u: "x".repeat(2000) },
      gen: [{ key: "a/{{i}}", url: "{{u}}/{{i}}", dimensions: { i: { stop } } }],
    });
    expect(() => parseJsonReferences(doc(200_000))).toThrow(/characters of keys and URLs/);
    expect(parseJsonReferences(doc(5_000)).size).toBe(5_000);
    expect(() => parseJsonReferences(doc(5_000), { maxGenerated: 10_000 })).toThrow(
      /characters of keys and URLs/,
    );
  });

  it("a relative target that climbs out of the reference folder fails when read, naming the key", async () => {
    const store = ReferenceStore.fromJson(
      {
        "a/0": ["../secret.nc", 0, 4],
        "a/1": ["x/./y.nc"],
        "a/2": [null, 0, 1],
        // percent-encoded: URL bases and file: paths decode these to ".." and "/" (found by an attack)
        "a/3": ["%2e%2e/secret.nc", 0, 4],
        "a/4": ["x/%2E./y.nc"],
        "a/5": ["..%2Fsecret.nc"],
      },
      { base: "https://host/data/" },
    );
    for (const key of ["a/0", "a/1", "a/3", "a/4", "a/5"]) {
      const error = await store.get(key).catch((e) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error.path).toBe(key);
      expect(error.message).toMatch(/escapes the reference's folder/);
    }
    await expect(store.get("a/2")).rejects.toThrow(/null URL and the store has no 'target' option/);
  });
});

// Found by an attack: both overflowed the stack (an untyped RangeError at open).
describe("hostile nesting is a StoreError, not a stack overflow", () => {
  it("20,000 nested parentheses in a template", () => {
    const doc = {
      version: 1,
      gen: [
        {
          key: `a/{{${"(".repeat(20_000)}i${")".repeat(20_000)}}}`,
          url: "f",
          dimensions: { i: { stop: 2 } },
        },
      ],
    };
    expect(() => parseJsonReferences(doc)).toThrow(StoreError);
    expect(() => parseJsonReferences(doc)).toThrow(/nested more than 256 deep/);
  });

  it("a metadata document nested 200,000 deep", () => {
    const deep = JSON.parse(`${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}`);
    expect(() => parseJsonReferences({ version: 1, refs: { ".zattrs": deep } })).toThrow(
      /nested too deeply/,
    );
  });
});

// Second attack round: template work and output bounded for the whole document.
describe("template work is bounded for the whole document", () => {
  it("40,000 empty blocks in one URL render in linear time (was quadratic: > 60 s)", () => {
    const url = `t.bin${"{{''}}".repeat(40_000)}`;
    const started = performance.now();
    const refs = parseJsonReferences({ version: 1, refs: { "a/0": [url, 0, 1] } });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(refs.get("a/0")).toMatchObject({ url: "t.bin" });
  });

  it("a gen of empty blocks spends the budget on the text it scans", () => {
    const doc = {
      version: 1,
      gen: [
        {
          key: "a/{{i}}",
          url: `f${"{{''}}".repeat(10_000)}`,
          dimensions: { i: { stop: 2_000_000 } },
        },
      ],
    };
    expect(() => parseJsonReferences(doc)).toThrow(/characters of keys and URLs/);
  });

  it("template calls in plain refs cannot build strings of gigabytes", () => {
    const doc = {
      version: 1,
      templates: { f: "{{a}}".repeat(250), g: "x".repeat(1_000_000) },
      refs: { "a/0": ["{{f(a=g)}}", 0, 1] },
    };
    const error = (() => {
      try {
        parseJsonReferences(doc);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect(error?.message).toMatch(/characters of keys and URLs/);
    expect(error?.message.length).toBeLessThan(2_000); // the template is quoted, cut short
  });
});
