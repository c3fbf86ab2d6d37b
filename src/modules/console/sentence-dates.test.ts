import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setReader } from './web/i18n.ts';
import { withReaderDates } from './web/sentence-dates.ts';

test('dates the server wrote in a sentence read as the reader writes them, an instant in the farm’s zone', async () => {
  await setReader({ language: 'en', units: 'us' });
  const year = new Date().getUTCFullYear();
  assert.equal(
    withReaderDates(`Due ${year}-12-07 (confirmed pregnant).`, 'America/Chicago'),
    'Due Dec 7 (confirmed pregnant).',
  );
  assert.equal(
    withReaderDates(`No report from Tank 1 since ${year}-12-01T16:15:00.000Z.`, 'America/Chicago'),
    'No report from Tank 1 since Dec 1, 10:15.',
  );
  assert.equal(
    withReaderDates(`Overdue: due ${year}-11-29 17:00`, 'America/Chicago'),
    'Overdue: due Nov 29, 17:00',
  );
  assert.equal(
    withReaderDates('Served 2020-10-22, 40 days ago.', 'UTC'),
    'Served Oct 22, 2020, 40 days ago.',
  );
  assert.equal(
    withReaderDates('Tag 982000001088420, 12.5 kg', 'UTC'),
    'Tag 982000001088420, 12.5 kg',
    'no date, as it was',
  );
  await setReader({ language: 'es', units: 'metric' });
  assert.equal(withReaderDates(`Vence el ${year}-12-19.`, 'UTC'), 'Vence el 19 dic.');
  await setReader({ language: 'en', units: 'metric' });
});
