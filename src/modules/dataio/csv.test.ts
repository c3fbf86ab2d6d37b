import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { type CsvRecord, csvCell, csvLines, csvRecords, detectSeparator, importedCell } from './csv.ts';

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

test('a text cell starting with a formula character gets an apostrophe; numbers and JSON do not', () => {
  for (const text of ['=1+1', '+44 1234', '-5', '@SUM(A1)', '\tx', '\r=1', "'=x", "''+x"]) {
    assert.equal(csvCell(text), `'${text}`, JSON.stringify(text));
  }
  for (const text of ['', 'cattle', "'x", "''", 'a=1', ' =1', '5', '2024-03-17']) {
    assert.equal(csvCell(text), text, JSON.stringify(text));
  }
  assert.equal(csvCell(-5), '-5');
  assert.equal(csvCell(-0.25), '-0.25');
  assert.equal(csvCell(-1e21), '-1e+21');
  assert.equal(csvCell(false), 'false');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell({ note: '=1+1' }), '{"note":"=1+1"}');
  assert.equal(csvCell(['-a']), '["-a"]');
});

test('importedCell reads back exactly the text csvCell wrote, whatever the text', () => {
  const start = fc.constantFrom('', "'", "''", '=', '+', '-', '@', '\t', '\r', '\n', ' ', 'a', '5');
  fc.assert(
    fc.property(fc.array(start, { maxLength: 4 }), fc.string(), (starts, rest) => {
      const text = starts.join('') + rest;
      assert.equal(importedCell(csvCell(text)), text);
    }),
  );
  assert.equal(importedCell("'=A1"), '=A1');
  assert.equal(importedCell("'''@x"), "''@x");
  assert.equal(importedCell("'plain"), "'plain", 'an apostrophe before anything else stays');
  assert.equal(importedCell("'"), "'");
  assert.equal(importedCell('-5'), '-5', 'a file not from an export: its cells as they are');
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
