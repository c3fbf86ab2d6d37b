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
