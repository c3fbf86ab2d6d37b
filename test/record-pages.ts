/**
 * The paging rule every farm record list shares (src/modules/records/routes.ts builds the lists):
 * `expectPagesNewestFirst` creates `count` records on a new farm, reads the list back `limit` at a time
 * through `next_before`, and checks that every record comes exactly once, newest `created_at` first (ties
 * by id, descending), no page is longer than the limit, and the last page says there is no more.
 */
import assert from 'node:assert/strict';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import * as make from './factories.ts';
import type { TestApp } from './harness.ts';
import type { List } from './replies.ts';

export interface PagingSpec {
  /** Collection path segment: /v1/farms/{farm}/<collection>. */
  collection: string;
  count: number;
  limit: number;
  /** The create body of the i-th record. */
  body: (i: number) => Record<string, unknown>;
}

export async function expectPagesNewestFirst(
  t: TestApp,
  spec: PagingSpec,
): Promise<{ account: NewAccount; farm: string }> {
  const account = await t.sharedAccount();
  const farm = (await make.farm(t, account.live_key)).id;
  const list = `/v1/farms/${farm}/${spec.collection}?limit=${spec.limit}`;
  const created: { id: string; created_at: string }[] = [];
  for (let i = 0; i < spec.count; i++) {
    const res = await t.request<{ id: string; created_at: string }>(
      'POST',
      `/v1/farms/${farm}/${spec.collection}`,
      {
        key: account.live_key,
        body: spec.body(i),
      },
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    created.push(res.body);
  }
  const seen: string[] = [];
  let url = list;
  for (let page = 0; page <= spec.count / spec.limit + 1; page++) {
    const res = await t.request<List<{ id: string }>>('GET', url, { key: account.live_key });
    assert.equal(res.status, 200);
    assert.ok(res.body.data.length <= spec.limit, 'no page is longer than the limit');
    seen.push(...res.body.data.map((record) => record.id));
    if (!res.body.has_more) {
      assert.equal(res.body.next_before, null, 'the last page has no cursor');
      break;
    }
    assert.ok(res.body.next_before, 'a page with more after it has a cursor');
    url = `${list}&before=${encodeURIComponent(res.body.next_before)}`;
  }
  assert.equal(new Set(seen).size, spec.count, 'every record once');
  const newestFirst = [...created]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : -1))
    .map((record) => record.id);
  assert.deepEqual(seen, newestFirst);
  return { account, farm };
}
