/**
 * Helpers for the LoRaWAN integration tests: an integration made through the API, uplinks posted as a
 * network server posts them, a device's stored readings, and a stand-in for a network server's API (a real
 * HTTP server that records each request and answers as the test says).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Integration } from '../src/modules/integrations/schemas.ts';
import type { Reply, TestApp } from './harness.ts';

export type NewIntegration = Integration & { secret: string };

export async function integration(
  t: TestApp,
  key: string,
  farmId: string,
  body: Record<string, unknown> = {},
): Promise<NewIntegration> {
  const res = await t.request<NewIntegration>('POST', `/v1/farms/${farmId}/integrations`, {
    key,
    body: { type: 'chirpstack', name: 'Farm gateway', ...body },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

export interface UplinkReply {
  ok: boolean;
  outcome: string;
  device_id?: string;
  accepted?: number;
}

/** POSTs a message to the uplink URL (its path), with the secret as a bearer unless `secret` is null. */
export function uplink<T = UplinkReply>(
  t: TestApp,
  integ: { id: string; secret: string },
  body: unknown,
  options: { event?: string; secret?: string | null } = {},
): Promise<Reply<T>> {
  const query = options.event ? `?event=${options.event}` : '';
  const secret = options.secret === undefined ? integ.secret : options.secret;
  return t.request<T>('POST', `/v1/integrations/${integ.id}/uplink${query}`, {
    ...(secret ? { key: secret } : {}),
    body,
  });
}

/** The device's stored readings by metric (value, at), oldest first. */
export async function readingsOf(t: TestApp, deviceId: string) {
  const rows = await t.database.db
    .selectFrom('readings')
    .select(['metric', 'value', 'at'])
    .where('device_id', '=', deviceId)
    .orderBy('at')
    .orderBy('metric')
    .execute();
  return rows.map((r) => ({ metric: r.metric, value: Number(r.value), at: Number(r.at) }));
}

export interface ApiRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface StandIn {
  url: string;
  port: number;
  requests: ApiRequest[];
  answer(fn: (request: ApiRequest) => { status: number; body?: unknown }): void;
  close(): Promise<void>;
}

/** A network server API stand-in on 127.0.0.1 (a given port, to come back where it was). */
export async function startStandIn(port = 0): Promise<StandIn> {
  let answer = (_r: ApiRequest): { status: number; body?: unknown } => ({ status: 200, body: {} });
  const requests: ApiRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(text || 'null'),
      };
      requests.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    answer: (fn) => {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
