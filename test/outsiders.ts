/**
 * The access rule every farm record shares: a record is visible only to its own account in its own mode.
 * `expectHiddenFromOutsiders` creates one record on a live farm (live key) and one on the sample farm
 * (test key), then checks that every endpoint of the collection answers 404 not_found to each outsider:
 * another account in either mode, and the owner's key of the other mode.
 */
import type { NewAccount } from '../src/modules/accounts/service.ts';
import { expectError, type TestApp } from './harness.ts';
import type { Farm } from './replies.ts';

export interface OutsiderSpec {
  /** Collection path segment: /v1/farms/{farm}/<collection> and /v1/<collection>/{id}. */
  collection: string;
  createBody: Record<string, unknown>;
  patchBody: Record<string, unknown>;
  /** Extra item actions, POST /v1/<collection>/{id}/<action> (e.g. tasks' `done`). */
  actions?: string[];
}

export interface HiddenRecords {
  owner: NewAccount;
  outsider: NewAccount;
  farm: string;
  id: string;
  sampleId: string;
}

export async function expectHiddenFromOutsiders(t: TestApp, spec: OutsiderSpec): Promise<HiddenRecords> {
  // The owner makes a farm of its own (and one record on its sample farm), so the shared account will do.
  const owner = await t.sharedAccount();
  const outsider = await t.account();
  const farm = (
    await t.request<Farm>('POST', '/v1/farms', { key: owner.live_key, body: { name: 'Owner farm' } })
  ).body.id;
  const create = async (key: string, farmId: string): Promise<string> => {
    const res = await t.request<{ id: string }>('POST', `/v1/farms/${farmId}/${spec.collection}`, {
      key,
      body: spec.createBody,
    });
    if (res.status !== 201) throw new Error(`could not create the record: ${JSON.stringify(res.body)}`);
    return res.body.id;
  };
  const id = await create(owner.live_key, farm);
  const sampleId = await create(owner.test_key, owner.sample_farm_id);

  const views = [
    [outsider.live_key, farm, id],
    [owner.test_key, farm, id],
    [owner.live_key, owner.sample_farm_id, sampleId],
    [outsider.test_key, owner.sample_farm_id, sampleId],
  ] as const;
  for (const [key, farmId, recordId] of views) {
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/farms/${farmId}/${spec.collection}`],
      ['POST', `/v1/farms/${farmId}/${spec.collection}`, spec.createBody],
      ['GET', `/v1/${spec.collection}/${recordId}`],
      ['PATCH', `/v1/${spec.collection}/${recordId}`, spec.patchBody],
      ...(spec.actions ?? []).map((action): [string, string] => [
        'POST',
        `/v1/${spec.collection}/${recordId}/${action}`,
      ]),
      ['DELETE', `/v1/${spec.collection}/${recordId}`],
    ];
    for (const [method, url, body] of attempts) {
      expectError(await t.request(method, url, { key, body }), 404, 'not_found');
    }
  }
  return { owner, outsider, farm, id, sampleId };
}
