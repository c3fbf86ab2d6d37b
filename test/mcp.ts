/**
 * MCP test helpers: the test app listening on a real port (127.0.0.1, port 0) and the official client
 * SDK connected to /mcp over Streamable HTTP in either protocol era.
 */
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { baseUrl, type TestApp } from './harness.ts';

// Where it was first written; the harness holds it now, for any test that needs the app's URL.
export { baseUrl };

export interface Era {
  /** How the test names it. */
  name: string;
  mode: 'legacy' | { pin: string };
  /** What Client.getProtocolEra() reports once connected. */
  era: 'legacy' | 'modern';
}

export const ERAS: readonly Era[] = [
  { name: '2025 era (initialize)', mode: 'legacy', era: 'legacy' },
  { name: '2026-07-28 era', mode: { pin: '2026-07-28' }, era: 'modern' },
];

export interface Connected {
  client: Client;
  /** HTTP requests the client has sent to /mcp so far. */
  requests(): number;
  close(): Promise<void>;
}

/** `path`: /mcp with a query (e.g. `/mcp?toolsets=houses`); `headers`: sent on every request. */
export interface ConnectOptions {
  path?: string;
  headers?: Record<string, string>;
}

export async function connect(
  t: TestApp,
  key: string | null,
  era: Era,
  options: ConnectOptions = {},
): Promise<Connected> {
  const url = new URL(options.path ?? '/mcp', await baseUrl(t));
  let sent = 0;
  const headers = { ...options.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
  });
  const client = new Client(
    { name: 'farmstead-tests', version: '1.0.0' },
    { versionNegotiation: { mode: era.mode } },
  );
  await client.connect(transport);
  return { client, requests: () => sent, close: () => client.close() };
}

export interface ToolCall {
  isError: boolean;
  text: string;
  // tests read tool results as loose JSON.
  data: any;
}

/**
 * Calls a tool; a successful result must carry structuredContent and a short text summary beside it.
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCall> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content?: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
  const text = result.content?.[0]?.type === 'text' ? String(result.content[0].text) : '';
  const isError = result.isError === true;
  if (!isError) {
    assert.ok(result.structuredContent, `${name} returned no structuredContent: ${text}`);
    // The text is a short summary beside the structured answer, never the same JSON again.
    assert.ok(text.length > 0, `${name} returned no text summary`);
    assert.notEqual(text, JSON.stringify(result.structuredContent), `${name} sent its answer twice`);
  }
  return { isError, text, data: result.structuredContent };
}

/** Calls a tool that must succeed and returns its structured result. */
// tests read tool results as loose JSON.
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = await callTool(client, name, args);
  assert.equal(res.isError, false, `${name} failed: ${res.text}`);
  return res.data;
}

/** Calls a tool that must fail with an isError result and returns its text. */
export async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const res = await callTool(client, name, args);
  assert.equal(res.isError, true, `${name} should have failed but returned ${res.text}`);
  return res.text;
}

/** Longitude where the sun is near its highest (offset 0) or lowest (offset 180) right now. */
export function longitudeForSolarHour(now: number, offsetDeg: 0 | 180): number {
  const utcHours = (now % 86_400_000) / 3_600_000;
  let lon = -15 * (utcHours - 12) + offsetDeg;
  while (lon > 180) lon -= 360;
  while (lon < -180) lon += 360;
  return Math.round(lon * 1000) / 1000;
}
