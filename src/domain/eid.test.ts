import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayEid, EID_MAX_NATIONAL_ID, eidFormatOf, readEid } from './eid.ts';

test('an ISO 11784 number in each common reader format is stored as its 15 digits', () => {
  for (const written of [
    '982 000001088420',
    '982000001088420',
    'LA 982 000001088420',
    '982.000001088420',
    '982-000001088420',
    '  982 000001088420\r\n',
    'FDX-B 982 000001088420',
  ]) {
    assert.deepEqual(readEid(written), { eid: '982000001088420', format: 'iso11784' }, written);
  }
});

test('country codes (ISO 3166 numeric) and manufacturer codes (900-998) are ISO; 000 and 999 are not', () => {
  assert.equal(readEid('826 012345678901').format, 'iso11784', 'United Kingdom');
  assert.equal(readEid('036 012345678901').format, 'iso11784', 'Australia, leading zero kept');
  assert.equal(readEid('036 012345678901').eid, '036012345678901');
  assert.equal(readEid('985 120013456789').format, 'iso11784', 'a manufacturer code');
  assert.equal(readEid('000 000001088420').format, 'other');
  assert.equal(readEid('999 000001088420').format, 'other', 'test transponders');
});

test('the national id is at most 274877906943 (38 bits); above it the value is kept as given', () => {
  assert.equal(readEid(`982 ${String(EID_MAX_NATIONAL_ID)}`).format, 'iso11784');
  assert.deepEqual(readEid('982 274877906944'), { eid: '982 274877906944', format: 'other' });
});

test('a value that is not an ISO number is kept as given, trimmed, and flagged other', () => {
  for (const written of [
    'E1',
    'RACE-1',
    '982000777',
    '0123456789',
    '982 0000010884201',
    'UK 123456 700001',
  ]) {
    assert.deepEqual(readEid(` ${written} `), { eid: written, format: 'other' }, written);
  }
  assert.equal(eidFormatOf('982000001088420'), 'iso11784');
  assert.equal(eidFormatOf('982 000001088420'), 'other', 'a stored value is judged as stored');
});

test('an ISO EID is shown as its label prints it; any other as stored', () => {
  assert.equal(displayEid('982000001088420'), '982 000001088420');
  assert.equal(displayEid('FLOCK-0042'), 'FLOCK-0042');
});
