/**
 * Exact JSON for metadata documents. `JSON.parse` silently rounds integers beyond
 * 2^53 (uint64 fill values, shard offsets in attributes, ...); {@link parseJson}
 * returns those as `bigint` instead and is otherwise equivalent to `JSON.parse`
 * (RFC 8259 grammar, last duplicate key wins), except that it also reads the
 * bare tokens `NaN`, `Infinity` and `-Infinity` that Python's `json` (so
 * zarr-python 2 and 3) writes for non-finite attribute values. {@link
 * stringifyJson} writes bigints back as bare integers, and non-finite numbers
 * as those tokens, as zarr-python does.
 *
 * @module
 */

import type { JsonObject, JsonValue } from "./dtypes/types.js";
import { MetadataError } from "./errors.js";
import { jsonText, MAX_JSON_DEPTH as MAX_DEPTH, parseNative } from "./json-fast.js";

/**
 * Parses a JSON document exactly: integers (no fraction, no exponent) outside the
 * safe-integer range become `bigint`; everything else is as `JSON.parse` returns it.
 * A leading UTF-8 byte order mark is ignored.
 *
 * @param input - the document, as text or UTF-8 bytes.
 * @param path - the store key or location of the document, used in errors.
 * @throws MetadataError naming `path`, with line and column, when the input is not
 *   valid UTF-8 or not valid JSON.
 */
export function parseJson(input: string | Uint8Array, path: string): JsonValue {
  const text = jsonText(input, path);
  return parseNative(text) ?? new Parser(text, path).parseDocument();
}

class Parser {
  pos = 0;
  depth = 0;

  constructor(
    readonly text: string,
    readonly path: string,
  ) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("unexpected data after the JSON value");
    return value;
  }

  fail(reason: string, at = this.pos): never {
    const before = this.text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    throw new MetadataError(
      `${this.path}: invalid JSON at line ${line} column ${column}: ${reason}`,
      { path: this.path },
    );
  }

  skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  parseValue(): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b /* { */:
        return this.parseObject();
      case 0x5b /* [ */:
        return this.parseArray();
      case 0x22 /* " */:
        return this.parseString();
      case 0x74 /* t */:
        return this.parseLiteral("true", true);
      case 0x66 /* f */:
        return this.parseLiteral("false", false);
      case 0x6e /* n */:
        return this.parseLiteral("null", null);
      // Python's non-finite tokens (zarr-python writes them in attributes).
      case 0x4e /* N */:
        return this.parseLiteral("NaN", Number.NaN);
      case 0x49 /* I */:
        return this.parseLiteral("Infinity", Number.POSITIVE_INFINITY);
      default:
        if (c === 0x2d && this.text.charCodeAt(this.pos + 1) === 0x49 /* I */)
          return this.parseLiteral("-Infinity", Number.NEGATIVE_INFINITY);
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        if (Number.isNaN(c)) this.fail("unexpected end of input");
        this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}`);
    }
  }

  parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("invalid literal");
    this.pos += word.length;
    return value;
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    this.pos++;
    this.skipWhitespace();
  }

  parseObject(): JsonObject {
    this.enter();
    const obj: JsonObject = {};
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      this.depth--;
      return obj;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("expected a string key");
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue();
      if (key === "__proto__") {
        // Plain assignment would replace the prototype; JSON.parse makes an own property.
        Object.defineProperty(obj, key, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        obj[key] = value;
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c /* , */) {
        this.skipWhitespace();
      } else if (c === 0x7d /* } */) {
        this.depth--;
        return obj;
      } else {
        this.fail("expected ',' or '}'", this.pos - 1);
      }
    }
  }

  parseArray(): JsonValue[] {
    this.enter();
    const arr: JsonValue[] = [];
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      this.depth--;
      return arr;
    }
    for (;;) {
      arr.push(this.parseValue());
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c) {
        this.skipWhitespace();
      } else if (c === 0x5d) {
        this.depth--;
        return arr;
      } else {
        this.fail("expected ',' or ']'", this.pos - 1);
      }
    }
  }

  parseString(): string {
    const text = this.text;
    const start = ++this.pos;
    let pos = start;
    // Fast path: no escapes.
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (c === 0x5c /* \ */) break;
      if (!(c >= 0x20)) this.failInString(c, pos); // also NaN at the end of input
      pos++;
    }
    const parts: string[] = [text.slice(start, pos)];
    let chunkStart = pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        parts.push(text.slice(chunkStart, pos));
        this.pos = pos + 1;
        return parts.join("");
      }
      if (c === 0x5c) {
        parts.push(text.slice(chunkStart, pos));
        const e = text.charCodeAt(pos + 1);
        pos += 2;
        switch (e) {
          case 0x22:
            parts.push('"');
            break;
          case 0x5c:
            parts.push("\\");
            break;
          case 0x2f:
            parts.push("/");
            break;
          case 0x62:
            parts.push("\b");
            break;
          case 0x66:
            parts.push("\f");
            break;
          case 0x6e:
            parts.push("\n");
            break;
          case 0x72:
            parts.push("\r");
            break;
          case 0x74:
            parts.push("\t");
            break;
          case 0x75 /* u */:
            {
              const hex = text.slice(pos, pos + 4);
              if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid \\u escape", pos - 2);
              // Lone surrogates are kept as JSON.parse keeps them.
              parts.push(String.fromCharCode(Number.parseInt(hex, 16)));
              pos += 4;
              break;
            }
          default:
            if (Number.isNaN(e)) this.fail("unterminated string", start - 1);
            this.fail("invalid escape sequence", pos - 2);
        }
        chunkStart = pos;
        continue;
      }
      if (!(c >= 0x20)) this.failInString(c, pos); // also NaN at the end of input
      pos++;
    }
  }

  failInString(c: number, pos: number): never {
    if (Number.isNaN(c)) this.fail("unterminated string", pos);
    this.fail("unescaped control character in string", pos);
  }

  parseNumber(): number | bigint {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d) pos++;
    const intStart = pos;
    let c = text.charCodeAt(pos);
    if (c === 0x30) {
      pos++;
    } else if (c >= 0x31 && c <= 0x39) {
      do c = text.charCodeAt(++pos);
      while (c >= 0x30 && c <= 0x39);
    } else {
      this.fail("invalid number", start);
    }
    const intDigits = pos - intStart;
    let integer = true;
    c = text.charCodeAt(pos);
    if (c === 0x2e /* . */) {
      integer = false;
      const fracStart = ++pos;
      c = text.charCodeAt(pos);
      while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++pos);
      if (pos === fracStart) this.fail("invalid number: digits expected after '.'", start);
    }
    if (c === 0x65 || c === 0x45 /* e E */) {
      integer = false;
      c = text.charCodeAt(++pos);
      if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++pos);
      const expStart = pos;
      while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++pos);
      if (pos === expStart) this.fail("invalid number: digits expected in exponent", start);
    }
    this.pos = pos;
    const token = text.slice(start, pos);
    // 15 digits are always safe; only longer integers need the exact check.
    if (integer && intDigits > 15) {
      const n = Number(token);
      if (!Number.isSafeInteger(n)) return BigInt(token);
      return n;
    }
    return Number(token);
  }
}

export { encodeJson, stringifyJson } from "./json-write.js";
