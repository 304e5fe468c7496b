/**
 * The NumPy-like text form of a selection, as typed on the command line.
 *
 * Grammar (whitespace allowed between tokens):
 * ```
 * selection := "" | item ("," item)* [","]
 * item      := "..." | int | [int] ":" [int] [":" [int]] | "[" [list] "]"
 * list      := int ("," int)* [","] | bool ("," bool)* [","]
 * bool      := "true" | "false" | "True" | "False"
 * int       := ["+" | "-"] digits
 * ```
 *
 * @module
 */
import { IndexError } from "../errors.js";
import { type DimSelection, ELLIPSIS, type Selection, Slice } from "./types.js";

/**
 * Parses `"0:10,::-2,5,..."`, `""` (everything), `":"`, `"-1"`, `"[1,3,5]"`
 * (an index array), `"[true,false,true]"` (a mask) or `"...,0"` into a
 * {@link Selection}. The result is always a per-dimension list, so an index
 * array comes back wrapped (`[[1, 3, 5]]`).
 *
 * @throws IndexError naming the offending character offset (0-based).
 */
export function parseSelection(text: string): Selection {
  return new Parser(text).selection();
}

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  selection(): (DimSelection | typeof ELLIPSIS)[] {
    const items: (DimSelection | typeof ELLIPSIS)[] = [];
    this.skipSpace();
    if (this.pos === this.text.length) return items;
    while (true) {
      items.push(this.item());
      this.skipSpace();
      if (this.pos === this.text.length) return items;
      this.expect(",");
      this.skipSpace();
      // One trailing comma is allowed, as in Python's `a[1,]`.
      if (this.pos === this.text.length) return items;
    }
  }

  private item(): DimSelection | typeof ELLIPSIS {
    const t = this.text;
    if (t.startsWith("...", this.pos)) {
      this.pos += 3;
      return ELLIPSIS;
    }
    if (t[this.pos] === "[") return this.list();
    const start = this.optInt();
    this.skipSpace();
    if (t[this.pos] !== ":") {
      if (start === null) throw this.error("expected an integer, a slice, '...' or '['");
      return start;
    }
    this.pos++;
    const stop = this.optInt();
    this.skipSpace();
    let step: number | null = null;
    if (t[this.pos] === ":") {
      this.pos++;
      const at = this.pos;
      step = this.optInt();
      if (step === 0) {
        this.pos = at;
        throw this.error("slice step cannot be zero");
      }
    }
    return new Slice(start, stop, step);
  }

  private list(): number[] | boolean[] {
    this.pos++; // "["
    const ints: number[] = [];
    const bools: boolean[] = [];
    this.skipSpace();
    while (this.text[this.pos] !== "]") {
      const b = this.optBool();
      if (b !== null) {
        if (ints.length > 0) throw this.error("an index array cannot mix integers and booleans");
        bools.push(b);
      } else {
        const at = this.pos;
        const v = this.optInt();
        if (v === null) throw this.error("expected an integer, true/false or ']'");
        if (bools.length > 0) {
          this.pos = at;
          throw this.error("an index array cannot mix integers and booleans");
        }
        ints.push(v);
      }
      this.skipSpace();
      if (this.text[this.pos] === ",") {
        this.pos++;
        this.skipSpace();
      } else if (this.text[this.pos] !== "]") {
        throw this.error("expected ',' or ']'");
      }
    }
    this.pos++; // "]"
    return bools.length > 0 ? bools : ints;
  }

  private optBool(): boolean | null {
    for (const [word, value] of BOOL_WORDS) {
      if (
        this.text.startsWith(word, this.pos) &&
        !/\w/.test(this.text[this.pos + word.length] ?? "")
      ) {
        this.pos += word.length;
        return value;
      }
    }
    return null;
  }

  /** An optional signed integer (after optional spaces). */
  private optInt(): number | null {
    this.skipSpace();
    const m = /^[+-]?\d+/.exec(this.text.slice(this.pos));
    if (m === null) {
      if (/^[+-]/.test(this.text.slice(this.pos))) {
        this.pos++;
        throw this.error("expected digits after the sign");
      }
      return null;
    }
    const v = Number(m[0]);
    if (!Number.isSafeInteger(v)) throw this.error(`integer ${m[0]} is too large`);
    this.pos += m[0].length;
    if (/^[\w.]/.test(this.text.slice(this.pos))) throw this.error("expected an integer");
    return v;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private expect(c: string): void {
    if (this.text[this.pos] !== c) throw this.error(`expected '${c}'`);
    this.pos++;
  }

  private error(reason: string): IndexError {
    const found =
      this.pos < this.text.length ? `'${this.text[this.pos]}'` : "the end of the selection";
    return new IndexError(
      `invalid selection ${JSON.stringify(this.text)} at offset ${this.pos} (found ${found}): ${reason}`,
    );
  }
}

const BOOL_WORDS: readonly [string, boolean][] = [
  ["true", true],
  ["false", false],
  ["True", true],
  ["False", false],
];
