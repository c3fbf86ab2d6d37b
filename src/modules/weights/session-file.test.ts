/**
 * The layouts Tru-Test's Data Link desktop program writes a session in (docs/records.md "Weigh session files":
 * its writer, DomainAbstractions/CSVFileReaderWriter.cs in github.com/johnspray74/ALAExample). These files
 * are BUILT FROM THAT WRITER'S CODE, not exported by an indicator: no real export was found. They check that
 * the reader takes the layouts as the writer lays them out; the values are made up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSessionFile } from './session-file.ts';

const options = { dateOrder: 'dmy' as const, defaultAt: Date.UTC(2026, 4, 1), timezone: 'UTC' };

test('the "Minda format" (Weight,EID,Date): a generic CSV whose proposed mapping names EID, Weight and Date', async () => {
  const read = await readSessionFile('Weight,EID,Date\n412.5,982 000123456001,01/05/2026\n', options);
  assert.equal(read.format, 'csv');
  assert.deepEqual(read.mapping, { eid: 'EID', kg: 'Weight', date: 'Date' });
  assert.equal(read.rows[0]?.eid, '982000123456001');
  assert.equal(read.rows[0]?.kg, 412.5);
  assert.equal(read.rows[0]?.at, Date.UTC(2026, 4, 1));
});

test('the "3000 format": the four lines and the field-code line above the column names are skipped', async () => {
  const content = [
    'File No:12',
    'Name: STEERS',
    'Date: 01/05/2026',
    'F01FID(4)isID,DW2Weight(),F53Breed()notID,F11EID(16)isID',
    'FID,Weight,Breed,EID',
    '101,412.5,AN,982000123456001',
    '',
  ].join('\r\n');
  const read = await readSessionFile(content, options);
  assert.deepEqual(read.mapping, { eid: 'EID', kg: 'Weight' });
  assert.deepEqual(
    read.rows.map((r) => [r.line, r.eid, r.kg]),
    [[6, '982000123456001', 412.5]],
  );
});

test('a `;` file with a session line above its header (Gallagher’s layout) is read; its decimal commas too', async () => {
  const content =
    '2026-06-01 08-15 STEERS\r\nVisual Tag;Electronic ID;Weight (kg);Date;Time;Condition Score\r\n' +
    'Q-1;982000777000001;341,5;01/06/2026;08:20;3\r\n';
  const read = await readSessionFile(content, options);
  assert.deepEqual(
    read.rows.map((r) => [r.eid, r.tag, r.kg, r.at]),
    [['982000777000001', 'Q-1', 341.5, Date.UTC(2026, 5, 1, 8, 20)]],
  );
});

test('a time that says its offset is that instant; one without is the farm’s clock', async () => {
  const content =
    'VID,EID,Weight,Date\nQ-4,982000777000004,350,2026-06-01T08:20:00Z\n' +
    'Q-5,982000777000005,351,2026-06-01T08:20:00+02:00\nQ-6,982000777000006,352,2026-06-01T08:20:00\n';
  const read = await readSessionFile(content, { ...options, timezone: 'America/Chicago' });
  assert.deepEqual(
    read.rows.map((r) => new Date(r.at ?? 0).toISOString()),
    ['2026-06-01T08:20:00.000Z', '2026-06-01T06:20:00.000Z', '2026-06-01T13:20:00.000Z'],
  );
});

test('a trait named as a weight’s own member (kg, source…) is refused naming it, not stored over the weight', async () => {
  await assert.rejects(
    readSessionFile('EID,Weight,Date,BCS\n982000777000001,333,20/06/2026,3\n', {
      ...options,
      mapping: { eid: 'EID', kg: 'Weight', date: 'Date', traits: { kg: 'BCS' } },
    }),
    (err: Error & { param?: string }) => {
      assert.equal(err.param, 'mapping.traits.kg');
      return true;
    },
  );
});
