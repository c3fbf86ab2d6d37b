import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readIndicatorLine } from './indicator.ts';

test('indicator lines: the weight, its unit and whether it still moves', () => {
  const cases: [string, { kg: number; stable: boolean } | null][] = [
    // Status, gross/net, signed weight and unit, comma separated (many indicators' "auto" stream).
    ['ST,GS,+000412.5kg', { kg: 412.5, stable: true }],
    ['US,GS,   410.0 kg', { kg: 410, stable: false }],
    // STX-framed, a motion letter after the unit.
    ['\u0002  412.5 KG M\u0003', { kg: 412.5, stable: false }],
    ['  0412 kg ', { kg: 412, stable: true }],
    // A line with the EID read at the same time: the EID is not the weight.
    ['982000001088420,412.5', { kg: 412.5, stable: true }],
    ['LA 982 000001088420  398.0kg', { kg: 398, stable: true }],
    // Pounds are turned into kg, to a tenth.
    ['W: 905 lb', { kg: 410.5, stable: true }],
    ['412?', { kg: 412, stable: false }],
    ['  -0.5kg', { kg: -0.5, stable: true }],
    ['OL', null],
    ['--------', null],
    ['', null],
    ['Tru-Test', null],
  ];
  for (const [line, want] of cases) assert.deepEqual(readIndicatorLine(line), want, JSON.stringify(line));
});
