/**
 * The input rules: what every value from outside obeys before any module sees it, on REST and MCP alike
 * (MCP requests arrive through the same JSON parser and the same Ajv set-up), and in MQTT messages and
 * imported files. src/http/input-guard.ts applies them to each request (its JSON body parser, path ids
 * and query values):
 * - JSON bodies nest at most `INPUT_LIMITS.bodyDepth` levels, checked as soon as the body is parsed
 *   (V8's JSON.parse does not recurse, so deep text cannot overflow its stack), before any validator or
 *   merge, which may recurse, sees the value;
 * - every number is finite (JSON.parse turns `1e309` into Infinity, which no engine can store or
 *   serialise);
 * - every string (and object key, path id and query value) is free of NUL and of unpaired UTF-16
 *   surrogates: PostgreSQL cannot store NUL in text, and a lone surrogate would be stored as
 *   something other than what the response echoes;
 * - free-form members (settings, fields, state, data, params, geometry…) are capped in depth and size
 *   by the Ajv keyword in src/lib/free-form.ts, and again as stored after a PATCH merges into them
 *   (mergedFreeFormJson, below);
 * - every member called `name` (a farm's, person's, animal's, group's, paddock's, device's, key's, rule's,
 *   integration's…, and an MCP tool's argument of that name) is one line (oneLineName): names go into
 *   email bodies and subjects, CSV rows and log lines, where a line break in one starts a new line.
 */
import { invalid } from '../domain/errors.ts';
import { FREE_FORM_LIMITS, valueDepth } from '../lib/free-form.ts';

export const INPUT_LIMITS = {
  /** Nesting of a whole JSON body (the free-form cap plus room for the envelope around it). */
  bodyDepth: 64,
  /** One query string value. */
  queryChars: 1_000,
} as const;

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;

/** What is wrong with a piece of text from outside, or null. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  if (!text.isWellFormed()) {
    return 'contains an unpaired UTF-16 surrogate (\\uD800-\\uDFFF); send well-formed Unicode text';
  }
  return null;
}

/** Control characters (C0 with tab, CR and LF; DEL; C1) and Unicode's line and paragraph separators. */
const LINE_BREAKING = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * A name as it is saved: each run of control characters one space, then trimmed (`Barn\r\nBcc: x` becomes
 * `Barn Bcc: x`). A name without any is kept exactly as given.
 */
export function oneLineName(text: string): string {
  LINE_BREAKING.lastIndex = 0;
  if (!LINE_BREAKING.test(text)) return text;
  return text.replace(LINE_BREAKING, ' ').trim();
}

/** Every `name` member of a parsed JSON value made one line (oneLineName), in place, without recursion. */
function oneLineNames(value: unknown): void {
  const stack: unknown[] = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (key === 'name' && typeof child === 'string') record[key] = oneLineName(child);
      else if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
}

export function checkText(text: string, param: string): void {
  const problem = textProblem(text);
  if (problem) throw invalid(param, `${param} ${problem}.`);
}

interface JsonNode {
  value: unknown;
  parent: JsonNode | null;
  key: string | number;
}

/** Whether a member name reads plainly in a dotted path (not empty, no control characters, brackets or quotes). */
function isPlainKey(key: string): boolean {
  if (key === '' || !key.isWellFormed()) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === OPEN_BRACKET || c === CLOSE_BRACKET) return false;
  }
  return true;
}

/** `a.b[2].c`, as describeAjvError names members; odd keys are quoted so NUL and the like stay visible. */
function pathOf(node: JsonNode | null): string {
  const parts: (string | number)[] = [];
  for (let n = node; n?.parent; n = n.parent) parts.unshift(n.key);
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (isPlainKey(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** What is wrong with a JSON leaf (not an array or object), or null: the rules for numbers and text. */
function leafProblem(v: unknown): string | null {
  if (typeof v === 'string') return textProblem(v);
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return 'must be a finite number; this one is too large to represent (more than about 1.8e308)';
  }
  return null;
}

/**
 * Walks a parsed JSON value without recursion: every number finite, every string and key well
 * formed. `root` names the value itself in errors (e.g. `body`).
 */
export function checkJsonValue(value: unknown, root: string): void {
  const stack: JsonNode[] = [{ value, parent: null, key: '' }];
  const fail = (node: JsonNode, problem: string): never => {
    const param = pathOf(node) || root;
    throw invalid(param, `${param} ${problem}.`);
  };
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v !== 'object' || v === null) {
      const problem = leafProblem(v);
      if (problem) fail(node, problem);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: node, key: i });
    } else {
      for (const [key, child] of Object.entries(v)) {
        const keyProblem = textProblem(key);
        const childNode = { value: child, parent: node, key };
        if (keyProblem) fail(childNode, `has a member name that ${keyProblem}`);
        stack.push(childNode);
      }
    }
  }
}

/**
 * Whether a parsed JSON value breaks none of the rules: nesting at most `maxDepth` levels, every number
 * finite, every string and key well formed. The common case, so it walks without recursion and without an
 * object per member; when it says no, `valueDepth` and `checkJsonValue` find and name the problem.
 */
function isCleanJson(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return leafProblem(value) === null;
  const containers: object[] = [value];
  const levels: number[] = [1];
  for (let v = containers.pop(); v !== undefined; v = containers.pop()) {
    const level = levels.pop() as number;
    if (level > maxDepth) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (typeof child === 'object' && child !== null) {
          containers.push(child);
          levels.push(level + 1);
        } else if (leafProblem(child) !== null) return false;
      }
    } else {
      const record = v as Record<string, unknown>;
      for (const key in record) {
        if (textProblem(key) !== null) return false;
        const child = record[key];
        if (typeof child === 'object' && child !== null) {
          containers.push(child);
          levels.push(level + 1);
        } else if (leafProblem(child) !== null) return false;
      }
    }
  }
  return true;
}

/**
 * A JSON request body: parsed, then checked in one walk (depth, numbers, text); only a body that fails
 * it is walked again to name the problem.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalid('body', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  const clean = isCleanJson(value, INPUT_LIMITS.bodyDepth);
  if (!clean && valueDepth(value, INPUT_LIMITS.bodyDepth) > INPUT_LIMITS.bodyDepth) {
    throw invalid('body', `The request body nests deeper than ${INPUT_LIMITS.bodyDepth} levels.`);
  }
  if (typeof value !== 'object' || value === null) {
    throw invalid('body', 'The request body must be a JSON object.');
  }
  if (!clean) checkJsonValue(value, 'body');
  oneLineNames(value);
  return value;
}

/**
 * A free-form member as stored after a PATCH merged into it (farm settings, animal fields; device state has
 * the same ceiling): its JSON text, or a 400 naming it when that is larger than FREE_FORM_LIMITS.bytes. Each
 * PATCH is capped on its own, but a merge keeps what was there, so without this ceiling PATCH after PATCH
 * grows one record without bound. `stored` is the text before the change: a value stored larger before
 * the ceiling existed may still shrink (a change that does not make it larger is taken).
 */
export function mergedFreeFormJson(param: string, merged: unknown, stored?: string): string {
  const text = JSON.stringify(merged) ?? 'null';
  const bytes = Buffer.byteLength(text);
  if (bytes <= FREE_FORM_LIMITS.bytes) return text;
  if (stored !== undefined && bytes <= Buffer.byteLength(stored)) return text;
  throw invalid(
    param,
    `${param} would be ${bytes.toLocaleString('en')} bytes as JSON after this change; the most is ${FREE_FORM_LIMITS.bytes.toLocaleString('en')}. Remove members with null (or send ${param}: null to clear it).`,
  );
}
