import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAlertPage } from './paging.ts';

describe('alert list cursors', () => {
  test('parse a severity cursor, a plain time, and reject anything else naming `before`', () => {
    assert.deepEqual(parseAlertPage({}), { limit: 50, after: null, createdBefore: null });
    assert.deepEqual(parseAlertPage({ limit: 5, before: 'watch~2026-01-01T00:00:00.000Z~alt_x' }), {
      limit: 5,
      after: { rank: 1, at: Date.UTC(2026, 0, 1), id: 'alt_x' },
      createdBefore: null,
    });
    assert.deepEqual(parseAlertPage({ before: '2026-01-02T00:00:00Z' }), {
      limit: 50,
      after: null,
      createdBefore: Date.UTC(2026, 0, 2),
    });
    assert.equal(
      parseAlertPage({ before: 'urgent~2026-01-01T00:00:00.000Z~alt_x~2026-01-02T00:00:00.000Z' })
        .createdBefore,
      Date.UTC(2026, 0, 2),
    );
    for (const before of [
      'soon',
      'severe~2026-01-01T00:00:00.000Z~a',
      'urgent~x~a',
      'urgent~2026-01-01~',
      'a~b~c~d~e',
    ]) {
      assert.throws(
        () => parseAlertPage({ before }),
        (err: { param?: string }) => err.param === 'before',
        before,
      );
    }
    assert.throws(
      () => parseAlertPage({ limit: 501 }),
      (err: { param?: string }) => err.param === 'limit',
    );
  });
});
