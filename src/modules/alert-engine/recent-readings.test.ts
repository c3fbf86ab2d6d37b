/**
 * What a process keeps of a device's readings between its reports: used only by the report that follows
 * the one that kept it (by token), only for spans it covers, and only for readings retention cannot
 * have removed; what is kept trails the latest reading by the longest window.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import {
  clearRecentReadings,
  keptReadings,
  knownReadings,
  RETENTION_SAFE_MS,
  type ReportReadings,
  rememberReadings,
} from './recent-readings.ts';

const NOW = Date.UTC(2026, 10, 26, 12);
const MIN = 60_000;

function report(
  token: string,
  previousToken: string | null,
  stored: Record<string, Array<[number, number]>>,
) {
  return {
    deviceId: 'dev_1',
    previousToken,
    token,
    now: NOW,
    stored: new Map(Object.entries(stored)),
  } satisfies ReportReadings;
}

beforeEach(() => clearRecentReadings());

test('the next report of the device gets what was kept with its own readings merged in', () => {
  const first = report('t1', null, { level: [[NOW - 10 * MIN, 100]] });
  const rows: Array<[number, number]> = [
    [NOW - 30 * MIN, 120],
    [NOW - 10 * MIN, 100],
  ];
  assert.equal(
    knownReadings(first, { metric: 'level', from: NOW - 40 * MIN }),
    null,
    'a first report knows nothing',
  );
  rememberReadings(first, [{ span: { metric: 'level', from: NOW - 40 * MIN, keepMs: 60 * MIN }, rows }]);
  const next = report('t2', 't1', {
    level: [
      [NOW - 20 * MIN, 90],
      [NOW - 5 * MIN, 95],
    ],
  });
  assert.deepEqual(knownReadings(next, { metric: 'level', from: NOW - 35 * MIN }), [
    [NOW - 30 * MIN, 120],
    [NOW - 20 * MIN, 90],
    [NOW - 10 * MIN, 100],
    [NOW - 5 * MIN, 95],
  ]);
});

test('another token in between, a span reaching further back, or another metric: not known', () => {
  const first = report('t1', null, {});
  rememberReadings(first, [
    { span: { metric: 'level', from: NOW - 40 * MIN, keepMs: 60 * MIN }, rows: [[NOW - 10 * MIN, 1]] },
  ]);
  assert.equal(knownReadings(report('t3', 't2', {}), { metric: 'level', from: NOW - 30 * MIN }), null);
  assert.equal(knownReadings(report('t2', 't1', {}), { metric: 'level', from: NOW - 50 * MIN }), null);
  assert.equal(knownReadings(report('t2', 't1', {}), { metric: 'temp', from: NOW - 30 * MIN }), null);
  assert.ok(knownReadings(report('t2', 't1', {}), { metric: 'level', from: NOW - 30 * MIN }));
});

test('nothing is answered for readings older than retention may have removed', () => {
  const old = NOW - RETENTION_SAFE_MS - MIN;
  rememberReadings(report('t1', null, {}), [
    { span: { metric: 'level', from: old, keepMs: 24 * 60 * MIN }, rows: [[old, 1]] },
  ]);
  assert.equal(knownReadings(report('t2', 't1', {}), { metric: 'level', from: old }), null);
});

test('what is kept trails the latest reading by the longest window; other metrics carry over with the report', () => {
  rememberReadings(report('t1', null, {}), [
    { span: { metric: 'temp', from: NOW - 60 * MIN, keepMs: 60 * MIN }, rows: [[NOW - 50 * MIN, 20]] },
  ]);
  const second = report('t2', 't1', { temp: [[NOW - 2 * MIN, 21]] });
  rememberReadings(second, [
    {
      span: { metric: 'level', from: NOW - 60 * MIN, keepMs: 30 * MIN },
      rows: [
        [NOW - 55 * MIN, 100],
        [NOW - 25 * MIN, 90],
        [NOW - MIN, 80],
      ],
    },
  ]);
  assert.deepEqual(keptReadings('dev_1', 'level'), {
    from: NOW - 31 * MIN,
    rows: [
      [NOW - 25 * MIN, 90],
      [NOW - MIN, 80],
    ],
  });
  assert.deepEqual(keptReadings('dev_1', 'temp'), {
    from: NOW - 60 * MIN,
    rows: [
      [NOW - 50 * MIN, 20],
      [NOW - 2 * MIN, 21],
    ],
  });
  // What is carried over is trimmed as well: minute +20's window reaches back to minute -40 only.
  rememberReadings(report('t3', 't2', { temp: [[NOW + 20 * MIN, 22]] }), []);
  assert.deepEqual(keptReadings('dev_1', 'temp'), {
    from: NOW - 40 * MIN,
    rows: [
      [NOW - 2 * MIN, 21],
      [NOW + 20 * MIN, 22],
    ],
  });
  // A report that did not follow the keeping one carries nothing over.
  rememberReadings(report('t9', 't8', {}), [
    { span: { metric: 'level', from: NOW - 10 * MIN, keepMs: 10 * MIN }, rows: [[NOW - 5 * MIN, 1]] },
  ]);
  assert.equal(keptReadings('dev_1', 'temp'), null);
});
