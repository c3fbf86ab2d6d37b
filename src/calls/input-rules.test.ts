/**
 * The JSON body rules (input-rules.ts) on their own: one walk after parsing decides, and a body that
 * fails is named exactly as before, the depth limit included, however deep or wide the body is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { INPUT_LIMITS, parseJsonBody } from './input-rules.ts';

const LIMIT = INPUT_LIMITS.bodyDepth;

/** `levels` nested containers, arrays and objects taking turns, the outermost an object. */
function nested(levels: number, leaf = '1'): string {
  let open = '';
  let close = '';
  for (let level = 1; level <= levels; level++) {
    const isObject = level % 2 === 1;
    open += isObject ? '{"a":' : '[';
    close = (isObject ? '}' : ']') + close;
  }
  return open + leaf + close;
}

function refusal(text: string): AppError {
  try {
    parseJsonBody(text);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 400);
    return err;
  }
  assert.fail(`accepted: ${text.slice(0, 80)}`);
}

test(`a body nesting ${LIMIT} levels is taken; ${LIMIT + 1} levels, or a million, is refused naming the body`, () => {
  assert.deepEqual(parseJsonBody(nested(LIMIT)), JSON.parse(nested(LIMIT)));
  const over = refusal(nested(LIMIT + 1));
  assert.equal(over.param, 'body');
  assert.match(over.message, new RegExp(`deeper than ${LIMIT} levels`));
  const million = refusal(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
  assert.match(million.message, new RegExp(`deeper than ${LIMIT} levels`));
  // Depth counts containers, not members: a wide body at the limit is fine.
  const wide = `{"a":[${Array.from({ length: 1000 }, () => nested(LIMIT - 2)).join(',')}]}`;
  assert.equal((parseJsonBody(wide) as { a: unknown[] }).a.length, 1000);
});

test('a deep body with a bad value is refused for its depth; a bad value is named by its path', () => {
  assert.match(refusal(nested(LIMIT + 1, '1e309')).message, /deeper than/);
  const cases: [string, string, RegExp][] = [
    ['{"readings":[{"value":1},{"value":-1e309}]}', 'readings[1].value', /finite/],
    ['{"a":{"b":["ok","x\\u0000y"]}}', 'a.b[1]', /NUL/],
    ['{"a":{"\\ud800":1}}', 'a["\\ud800"]', /member name .*surrogate/],
    ['{"a":"\\udc00"}', 'a', /surrogate/],
  ];
  for (const [text, param, pattern] of cases) {
    const err = refusal(text);
    assert.equal(err.param, param, err.message);
    assert.match(err.message, pattern);
  }
});

test('the body must be valid JSON, and an object or array (JSON-RPC batches), not a bare value', () => {
  assert.deepEqual(parseJsonBody('[{"a":1}]'), [{ a: 1 }]);
  for (const text of ['"text"', '1e309', 'null', 'true']) {
    assert.match(refusal(text).message, /must be a JSON object/, text);
  }
  assert.match(refusal('{"a":').message, /not valid JSON/);
});

test('a clean report comes back as JSON.parse gives it', () => {
  const report = {
    readings: Array.from({ length: 100 }, (_, i) => ({
      metric: 'climate.temp_c',
      value: i / 3,
      at: new Date(1_800_000_000_000 + i * 60_000).toISOString(),
    })),
    state: { feed: { bin: 'full', note: 'ünïcödé ✓' } },
  };
  assert.deepEqual(parseJsonBody(JSON.stringify(report)), report);
});
