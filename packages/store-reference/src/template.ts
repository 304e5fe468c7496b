/**
 * The subset of Jinja2 that kerchunk version 1 references use (kerchunk
 * "spec.md", version 1: `templates` and `gen`): `{{ expression }}` blocks in
 * text, where an expression is built from
 *
 * - names (a `gen` dimension's value, or a template),
 * - integer literals and quoted string literals (`'a'`, `"a"`),
 * - `+ - * // %` on integers (Python's floor semantics), `+` and `~` joining
 *   strings, unary `-`/`+`, parentheses,
 * - template calls with keyword arguments, `f(c='text')`: a template whose
 *   text holds `{{` is a function rendered with those arguments (as fsspec does).
 *
 * Anything else (statements `{% %}`, filters `|`, attributes, `/` giving
 * floats, unknown names) is a {@link TemplateError}; nothing is evaluated
 * beyond this grammar.
 *
 * @module
 */

/** A value in a template expression. */
export type TemplateValue = string | number;

/** A template expression or text outside the supported subset, or an unknown name. */
export class TemplateError extends Error {
  override name = "TemplateError";
}

/** Names visible to an expression: values, and templates callable as functions. */
export interface TemplateScope {
  values: Readonly<Record<string, TemplateValue>>;
  /** Templates by name: plain text is a value, text with `{{` a function. */
  templates: Readonly<Record<string, string>>;
  /** Shared by every render of one document (see {@link RenderBudget}). */
  budget?: RenderBudget;
}

/**
 * Renders `text`, replacing each `{{ expression }}` with its value.
 *
 * @example
 * ```ts
 * renderTemplate("http://{{u}}_{{(i + 1) * 1000}}", { values: { i: 1 }, templates: { u: "host" } });
 * // "http://host_2000"
 * ```
 */
export function renderTemplate(text: string, scope: TemplateScope): string {
  // Once, not per block: a search per block from its position is quadratic in the text.
  if (text.includes("{%") || text.includes("{#")) {
    throw new TemplateError(`${quoted(text)}: only {{ expression }} blocks are supported`);
  }
  return renderBlocks(text, text, scope, 0);
}

/**
 * Characters a document's templates may scan and produce, shared by every
 * render of that document: a small document cannot make rendering take
 * quadratic time or build strings of gigabytes (nested template calls multiply
 * text). Spent by {@link renderTemplate} when given in the scope.
 */
export interface RenderBudget {
  chars: number;
  /** The budget given at first, for the message. */
  readonly limit: number;
}

function spend(budget: RenderBudget | undefined, n: number): void {
  if (budget === undefined) return;
  budget.chars -= n;
  if (budget.chars < 0) {
    throw new TemplateError(
      `templates expand past ${budget.limit} characters of keys and URLs (option maxGenerated raises it)`,
    );
  }
}

/** `text` for messages: JSON-quoted, cut after 200 characters. */
export function quoted(text: string): string {
  return text.length <= 200
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, 200))}... (${text.length} characters)`;
}

/** Renders the `{{ }}` blocks of `text` (`source`: the template named in messages). */
function renderBlocks(text: string, source: string, scope: TemplateScope, depth: number): string {
  spend(scope.budget, text.length);
  let out = "";
  let pos = 0;
  for (;;) {
    const open = text.indexOf("{{", pos);
    if (open < 0) {
      spend(scope.budget, text.length - pos);
      return out + text.slice(pos);
    }
    const close = text.indexOf("}}", open + 2);
    if (close < 0) throw new TemplateError(`template ${quoted(source)}: "{{" without "}}"`);
    const value = show(evaluate(text.slice(open + 2, close), scope, source, depth));
    spend(scope.budget, open - pos + value.length);
    out += text.slice(pos, open);
    out += value;
    pos = close + 2;
  }
}

/** True when `text` holds a `{{` block (it must be rendered). */
export function isTemplated(text: string): boolean {
  return text.includes("{{") || text.includes("{%");
}

function show(v: TemplateValue): string {
  return typeof v === "number" ? String(v) : v;
}

type Token =
  | { kind: "num"; value: number }
  | { kind: "str"; value: string }
  | { kind: "name"; value: string }
  | { kind: "op"; value: string };

const OPERATORS = ["//", "+", "-", "*", "%", "~", "(", ")", ",", "="];

function tokenize(src: string, where: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
    } else if (c >= "0" && c <= "9") {
      let j = i;
      while (j < src.length && src[j] >= "0" && src[j] <= "9") j++;
      const value = Number(src.slice(i, j));
      if (!Number.isSafeInteger(value)) throw new TemplateError(`${where}: integer too large`);
      tokens.push({ kind: "num", value });
      i = j;
    } else if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new TemplateError(`${where}: unterminated string`);
      const value = src.slice(i + 1, end);
      if (value.includes("\\"))
        throw new TemplateError(`${where}: escapes in strings are not supported`);
      tokens.push({ kind: "str", value });
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j])) j++;
      tokens.push({ kind: "name", value: src.slice(i, j) });
      i = j;
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i));
      if (op === undefined) {
        throw new TemplateError(`${where}: unsupported character ${JSON.stringify(c)}`);
      }
      tokens.push({ kind: "op", value: op });
      i += op.length;
    }
  }
  return tokens;
}

const MAX_CALL_DEPTH = 8;

/** Parentheses and unary signs one expression may nest. */
const MAX_NESTING = 256;

function evaluate(src: string, scope: TemplateScope, text: string, depth = 0): TemplateValue {
  const where = `template ${quoted(text)}`;
  const tokens = tokenize(src, where);
  let pos = 0;
  const fail = (reason: string): never => {
    throw new TemplateError(`${where}: ${reason}`);
  };
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (value: string): boolean => {
    const t = tokens[pos];
    return t !== undefined && t.kind === "op" && t.value === value;
  };
  const expect = (value: string): void => {
    if (!isOp(value)) fail(`expected "${value}"`);
    pos++;
  };
  const integer = (v: TemplateValue, op: string): number =>
    typeof v === "number" ? v : fail(`"${op}" needs integers, got the string ${JSON.stringify(v)}`);
  const checked = (n: number): number =>
    Number.isSafeInteger(n) ? n : fail("integer result out of range");

  const sum = (): TemplateValue => {
    let left = product();
    for (;;) {
      if (isOp("+")) {
        pos++;
        const right = product();
        if (typeof left === "string" && typeof right === "string") left = left + right;
        else left = checked(integer(left, "+") + integer(right, "+"));
      } else if (isOp("-")) {
        pos++;
        left = checked(integer(left, "-") - integer(product(), "-"));
      } else if (isOp("~")) {
        pos++;
        left = show(left) + show(product());
      } else {
        return left;
      }
    }
  };
  const product = (): TemplateValue => {
    let left = unary();
    for (;;) {
      const op = peek();
      if (op?.kind !== "op" || !["*", "//", "%"].includes(op.value)) return left;
      pos++;
      const a = integer(left, op.value);
      const b = integer(unary(), op.value);
      if (op.value === "*") left = checked(a * b);
      else if (b === 0) fail("division by zero");
      else if (op.value === "//") left = Math.floor(a / b);
      else left = a - b * Math.floor(a / b);
    }
  };
  // Parentheses and signs recurse: a bound keeps a hostile expression a TemplateError,
  // not a stack overflow.
  let nesting = 0;
  const nested = <T>(parse: () => T): T => {
    if (++nesting > MAX_NESTING) fail(`expression nested more than ${MAX_NESTING} deep`);
    try {
      return parse();
    } finally {
      nesting--;
    }
  };
  const unary = (): TemplateValue => {
    if (isOp("-")) {
      pos++;
      return checked(-integer(nested(unary), "-"));
    }
    if (isOp("+")) {
      pos++;
      return integer(nested(unary), "+");
    }
    return primary();
  };
  const primary = (): TemplateValue => {
    const t = peek();
    if (t === undefined) return fail("expression ends early");
    pos++;
    if (t.kind === "num" || t.kind === "str") return t.value;
    if (t.kind === "op") {
      if (t.value !== "(") return fail(`unexpected "${t.value}"`);
      const inner = nested(sum);
      expect(")");
      return inner;
    }
    const name = t.value;
    if (isOp("(")) {
      pos++;
      const args: Record<string, TemplateValue> = {};
      while (!isOp(")")) {
        const arg = peek();
        if (arg?.kind !== "name") return fail(`${name}(...) takes keyword arguments only`);
        pos++;
        expect("=");
        args[arg.value] = sum();
        if (!isOp(")")) expect(",");
      }
      pos++;
      const body = own(scope.templates, name);
      if (body === undefined) return fail(`unknown template ${JSON.stringify(name)}`);
      if (depth >= MAX_CALL_DEPTH) return fail("templates nested too deeply");
      return renderNested(body, args, depth + 1, scope.budget);
    }
    const value = own(scope.values, name);
    if (value !== undefined) return value;
    const template = own(scope.templates, name);
    if (template !== undefined) {
      if (isTemplated(template)) return fail(`template ${JSON.stringify(name)} must be called`);
      return template;
    }
    return fail(`unknown name ${JSON.stringify(name)}`);
  };

  const value = sum();
  if (pos !== tokens.length) fail(`unexpected ${JSON.stringify(String(tokens[pos].value))}`);
  return value;
}

/** A template called as a function sees only its keyword arguments (as in fsspec). */
function renderNested(
  body: string,
  args: Record<string, TemplateValue>,
  depth: number,
  budget: RenderBudget | undefined,
): string {
  return renderBlocks(body, body, { values: args, templates: {}, budget }, depth);
}

function own<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}
