import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { type CsvRecord, csvLines, csvRecords, detectSeparator } from './csv.ts';

test('csv-parse reads back exactly what csvLines writes, whatever the text', () => {
  const cell = fc.oneof(fc.string(), fc.constantFrom('', ',', '"', '""', '\n', '\r\n', ' a ', 'x,"y"\nz'));
  fc.assert(
    fc.property(
      fc.array(fc.array(cell, { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
      (rows) => {
        const width = rows[0]?.length ?? 2;
        const even = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
        assert.deepEqual(parse(csvLines(even), { relax_column_count: true }), even);
      },
    ),
  );
});

test('the separator is the one the header uses most outside quotes', () => {
  assert.equal(detectSeparator('species;name;tag\n'), ';');
  assert.equal(detectSeparator('species,name\n'), ',');
  assert.equal(detectSeparator('species\tname\n'), '\t');
  assert.equal(detectSeparator('"a;b;c",name\n'), ',');
  assert.equal(detectSeparator('species\n'), ',');
  // A scale head's line above the header (Gallagher's session name) does not decide it.
  assert.equal(
    detectSeparator(
      '2026-06-01 08-15 STEERS\r\nVisual Tag;Electronic ID;Weight (kg);Date\r\nQ-1;982000777000001;341,5;01/06/2026\r\n',
    ),
    ';',
  );
  assert.equal(detectSeparator('Session, north yard\nVID\tEID\tWeight\tDate\n'), '\t');
});

async function recordsOf(text: string, chunkBytes?: number): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const record of csvRecords(Buffer.from(text), chunkBytes)) out.push(record);
  return out;
}

test('csvRecords gives each record the file line it ends on, skipping blank and empty rows', async () => {
  const records = await recordsOf('\uFEFFa;b\r\n1;2\r\n\r\n;\r\n"x\ny";3\r\n');
  assert.deepEqual(
    records.map(({ line, cells }) => ({ line, cells })),
    [
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
      { line: 6, cells: ['x\ny', '3'] },
    ],
  );
  assert.equal(records.at(-1)?.bytes, Buffer.byteLength('\uFEFFa;b\r\n1;2\r\n\r\n;\r\n"x\ny";3\r\n'));
});

test('csvRecords reads the same records whatever the chunks (multi-byte characters split across them)', async () => {
  const text = 'species,name,notes\ncattle,Brünhilde,"a ""quoted"", multi\nline — note 🐄"\ngoat,Ærø,\n';
  const whole = await recordsOf(text);
  for (const size of [1, 2, 3, 7]) {
    assert.deepEqual(
      (await recordsOf(text, size)).map(({ line, cells }) => ({ line, cells })),
      whole.map(({ line, cells }) => ({ line, cells })),
      `chunks of ${size} bytes`,
    );
  }
  assert.equal(whole[1]?.cells[1], 'Brünhilde');
  assert.equal(whole[1]?.cells[2], 'a "quoted", multi\nline — note 🐄');
});

test('csvRecords names the line of a quote never closed', async () => {
  await assert.rejects(recordsOf('species,name\ncattle,ok\ncattle,"never closed\n'), (err: Error) => {
    assert.match(err.message, /row 3: a quoted field is never closed/);
    return true;
  });
});
