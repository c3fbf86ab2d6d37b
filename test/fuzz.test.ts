/**
 * Property-based fuzzing of every route the app serves, read from its route table (so a new route is
 * covered without editing this file), on both engines with a fixed seed and a bounded count. Each run
 * sends one request with a path whose ids are real or hostile, a query string and (where the route
 * takes one) a body built from the route's own schema with hostile values mixed in: non-finite and
 * huge numbers, NUL, lone surrogates, deep nesting, long text, malformed JSON; the imports' files (a
 * `content` member, a CSV body) also get hostile files: deeply nested GeoJSON and KML, wrong shapes where
 * coordinates belong, broken CSV. It asserts:
 * - never a 5xx, and every 4xx is the Error object (JSON-RPC errors on /mcp are the protocol's own);
 * - a refused request changes nothing (a dump of the account's rows before and after);
 * - every record the server accepted reads back by id, appears in its list, and the MCP tools
 *   (through the real MCP client) serve the farm without an error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { runNamed } from '../src/db/named-statements.ts';
import type { RouteEntry } from '../src/http/route-table.ts';
import * as make from './factories.ts';
import { forEachEngine, type Reply, type TestApp } from './harness.ts';
import { callTool, connect, ERAS } from './mcp.ts';
import type { Alert, Farm, List, NewDevice } from './replies.ts';

const SEED = 20261122;
/** Scales every route's run count (FARMSTEAD_FUZZ_SCALE=10 for a long local hunt). */
const RUN_SCALE = Number(process.env.FARMSTEAD_FUZZ_SCALE ?? 1);

type Json = Record<string, unknown>;

interface World {
  accountId: string;
  apiKey: string;
  deviceKey: string;
  farmId: string;
  /** A real id per collection name (the path segment before `:id`). */
  ids: Record<string, string>;
  accepted: { collection: string; id: string; listUrl: string | null }[];
}

async function buildWorld(t: TestApp): Promise<World> {
  const acct = await t.account();
  const key = acct.live_key;
  const post = async <T = { id: string }>(url: string, body: unknown, k = key) => {
    const res = await t.request<T>('POST', url, { key: k, body });
    assert.ok(res.status < 300, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const farm = await post<Farm>('/v1/farms', { name: 'Fuzz farm' });
  const f = `/v1/farms/${farm.id}`;
  const house = await post<NewDevice>(`${f}/devices`, { type: 'house', name: 'House' });
  const command = await post(`/v1/devices/${house.id}/commands`, {
    command: 'lights.set',
    params: { mode: 'on' },
  });
  // A hot reading opens an alert, so alert routes have a real id.
  await post('/v1/ingest', { readings: [{ metric: 'climate.temp_c', value: 36 }] }, house.device_key);
  const alerts = await t.request<List<Alert>>('GET', `${f}/alerts`, { key });
  const animal = await post(`${f}/animals`, { species: 'cattle', tag: 'F1' });
  return {
    accountId: acct.account_id,
    apiKey: key,
    deviceKey: house.device_key,
    farmId: farm.id,
    ids: {
      farms: farm.id,
      animals: animal.id,
      groups: (await post(`${f}/groups`, { name: 'Herd', species: 'cattle' })).id,
      paddocks: (await post(`${f}/paddocks`, { name: 'North' })).id,
      tasks: (await post(`${f}/tasks`, { title: 'Check water' })).id,
      events: (await post(`${f}/events`, { type: 'note' })).id,
      devices: house.id,
      houses: house.id,
      commands: command.id,
      alerts: alerts.body.data[0]!.id,
      webhooks: (await post(`${f}/webhooks`, { url: 'http://127.0.0.1:9/hooks', events: ['*'] })).id,
    },
    accepted: [],
  };
}

type Snapshot = Map<string, string>;

/** Each engine's snapshot: its table names and one statement reading all their rows (built once). */
const snapshotOf = new Map<string, Promise<{ names: string[]; read(accountId: string): Promise<Row[]> }>>();

type Row = { t: string; r: string };

/**
 * The statement reading every row that belongs to the account (its live farms and what hangs off them),
 * each row as JSON text: one round trip, not one per table, as the fuzz takes a snapshot after every
 * request.
 */
async function snapshotReader(t: TestApp) {
  const db = t.database.db;
  const tables = (await db.introspection.getTables())
    // Counters and bookkeeping that reads legitimately touch (a refused sign-in counts towards the
    // lock-out: sign_in_failures); partitions are read through `readings`.
    .filter((table) => !/usage|kysely|rate|^readings_|^sign_in_failures$/.test(table.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const names = tables.map((table) => table.name);
  const jsonArray = t.engine === 'postgres' ? sql`json_build_array` : sql`json_array`;
  return {
    names,
    read: async (accountId: string) => {
      const farms = sql`(select id from farms where account_id = ${accountId} and sample = 0)`;
      const parts = tables.map((table) => {
        const columns = table.columns.map((c) => c.name).filter((c) => c !== 'last_used_at');
        const has = (c: string) => columns.includes(c);
        const where = has('farm_id')
          ? sql`farm_id in ${farms}`
          : has('account_id')
            ? sql`account_id = ${accountId}`
            : sql`1 = 1`;
        const row = sql`${jsonArray}(${sql.join(columns.map((c) => sql.ref(c)))})`;
        return sql`select ${sql.lit(table.name)} as t, cast(${row} as text) as r from ${sql.table(table.name)} where ${where}`;
      });
      // Named on PostgreSQL: the text is the same for every snapshot, so each connection parses it once, not
      // on each of a run's thousand snapshots (a union over every table: the PostgreSQL fuzz spent about
      // two-thirds less of PostgreSQL's CPU).
      return runNamed(db, sql<Row>`${sql.join(parts, sql` union all `)} order by 1, 2`);
    },
  };
}

/** Every row that belongs to the account, table by table (rows in a fixed order). */
async function snapshot(t: TestApp, world: World): Promise<Snapshot> {
  if (!snapshotOf.has(t.engine)) snapshotOf.set(t.engine, snapshotReader(t));
  const reader = await snapshotOf.get(t.engine);
  if (!reader) throw new Error('no snapshot reader');
  const rows = new Map<string, string[]>(reader.names.map((name) => [name, []]));
  for (const { t: table, r } of await reader.read(world.accountId)) rows.get(table)?.push(r);
  return new Map([...rows].map(([table, list]) => [table, list.join('\n')]));
}

/** The first table whose rows differ, with where they start to differ (empty when none do). */
function difference(before: Snapshot, after: Snapshot): string {
  for (const [table, rows] of after) {
    const old = before.get(table) ?? '';
    if (rows === old) continue;
    let i = 0;
    while (i < rows.length && rows[i] === old[i]) i++;
    return `${table}: was …${old.slice(Math.max(0, i - 150), i + 150)}… now …${rows.slice(Math.max(0, i - 150), i + 150)}…`;
  }
  return '';
}

// ---- generators -------------------------------------------------------------------------------

const INF = '\u0001INF\u0001';
const HUGE = '\u0001HUGE\u0001';
const DEEP = '\u0001DEEP\u0001';

const hostileString = fc.oneof(
  fc.constantFrom('a\u0000b', '\ud800', 'x\udfff', '', ' ', '%', '../../etc', '\u202e', 'null', '1e309'),
  fc.string({ maxLength: 12, unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.constant('x'.repeat(20_000)),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(INF, HUGE, DEEP, null, true, -1, 0, 1e300, [], {}),
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
);

type Schema = Json;

/** A value the schema accepts (mostly): strings within their bounds, enums, numbers in range. */
function validValue(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (anyOf) return fc.oneof(...anyOf.map((s) => validValue(s, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      return fc.string({
        minLength: Number(schema.minLength ?? 0),
        maxLength: Math.min(Number(schema.maxLength ?? 20), 20),
      });
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1000) });
    case 'number':
      return fc.double({
        min: Number(schema.minimum ?? -1e6),
        max: Number(schema.maximum ?? 1e6),
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items as Schema, depth + 1), { maxLength: 3 });
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      const required = (schema.required ?? []) as string[];
      return fc.record(
        Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validValue(s, depth + 1)])),
        { requiredKeys: required.filter((k) => k in props) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function schemaTypes(schema: Schema | undefined): unknown[] {
  const anyOf = (schema?.anyOf ?? schema?.oneOf) as Schema[] | undefined;
  return anyOf ? anyOf.flatMap(schemaTypes) : [schema?.type];
}

/** A hostile value aimed at what the member takes: numbers out of range, bad text, deep or huge JSON. */
function hostileFor(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const types = schemaTypes(schema);
  const aimed: fc.Arbitrary<unknown>[] = [];
  if (types.includes('number') || types.includes('integer'))
    aimed.push(fc.constantFrom(INF, HUGE, 1e300, -0.5));
  if (types.includes('string')) aimed.push(hostileString);
  if (types.includes('object') || types.includes(undefined)) {
    aimed.push(
      fc.constantFrom(DEEP, { x: INF }, { 'a\u0000': 1 }, { n: [1, HUGE] }, { big: 'x'.repeat(70_000) }),
    );
  }
  return aimed.length
    ? fc.oneof({ weight: 4, arbitrary: fc.oneof(...aimed) }, { weight: 1, arbitrary: hostileValue })
    : hostileValue;
}

const square = '{"type":"Polygon","coordinates":[[[1,1],[1.001,1],[1.001,1.001],[1,1]]]}';
const feature = (geometry: string, properties = '{}') =>
  `{"type":"Feature","properties":${properties},"geometry":${geometry}}`;

/** Files an import must refuse or read, never fail on: what a `content` member carries. */
const HOSTILE_FILES = [
  `${'{"type":"GeometryCollection","geometries":['.repeat(3_000)}${square}${']}'.repeat(3_000)}`,
  `{"type":"Polygon","coordinates":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
  '{"type":"GeometryCollection","geometries":{}}',
  '{"type":"GeometryCollection","geometries":[null,1,"x",{"type":"GeometryCollection"}]}',
  '{"type":"FeatureCollection","features":[null,1,"x",[]]}',
  '{"type":"FeatureCollection","features":{}}',
  feature('{"type":"Polygon","coordinates":"x"}', '{"name":{"a":1}}'),
  feature('{"type":"MultiPolygon","coordinates":[[[null]],1]}'),
  feature('{"type":"MultiLineString","coordinates":[[1],[null],"x"]}'),
  feature('{"type":"LineString","coordinates":[[1e309,0],[0,0],[1,1],[1e309,0]]}'),
  feature(square, '{"name":"a\u0000b\r\nBcc: x@example.com"}'),
  `{"type":"FeatureCollection","features":[${Array.from({ length: 600 }, () => feature(square)).join(',')}]}`,
  `<kml><Placemark>${'<MultiGeometry>'.repeat(3_000)}<Polygon><outerBoundaryIs><LinearRing><coordinates>1,1 1.001,1 1.001,1.001 1,1</coordinates></LinearRing></outerBoundaryIs></Polygon>${'</MultiGeometry>'.repeat(3_000)}</Placemark></kml>`,
  `<kml>${'<Folder>'.repeat(3_000)}${'</Folder>'.repeat(3_000)}</kml>`,
  '<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>x,y NaN,1 1e309,2</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>',
  '<gpx><trk><trkseg><trkpt lat="1e309" lon="x"/><trkpt lat="91" lon="181"/></trkseg></trk></gpx>',
  `<gpx>${'<trk>'.repeat(5_000)}${'</trk>'.repeat(5_000)}</gpx>`,
];
const hostileFile: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...HOSTILE_FILES), hostileString);

/** CSV bodies an import must refuse or read, never fail on. */
const HOSTILE_CSV = [
  'species,tag\ncattle,"unterminated',
  '\ufeffspecies;tag\r\ncattle;A1\r\n',
  'species,tag,birth_date,weight_kg\ncattle,T1,0001-01-01,1e309\n',
  'species,tag\ncattle,a\u0000b\ncattle,\ud800\n',
  `species,tag\n${'cattle,x\n'.repeat(3)}${'"'.repeat(10_000)}`,
  `${'a,'.repeat(5_000)}a\n`,
  'id,farm_id,created_at,species\nani_x,farm_x,x,cattle\n',
];
const hostileCsv: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_CSV),
  fc
    .array(fc.array(hostileString, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 })
    .map((rows) => ['species,tag,name', ...rows.map((r) => r.join(','))].join('\n')),
);

/** A route whose body is CSV text (the animals import), not JSON. */
function takesCsv(route: RouteEntry): boolean {
  return (route.schema?.body as { content?: Json } | undefined)?.content?.['text/csv'] !== undefined;
}

/** A member's hostile values: a file's text (`content`) also gets the hostile files. */
function hostileMember(name: string, schema: Schema | undefined): fc.Arbitrary<unknown> {
  return name === 'content'
    ? fc.oneof({ weight: 3, arbitrary: hostileFile }, { weight: 1, arbitrary: hostileFor(schema) })
    : hostileFor(schema);
}

/** A body: valid for the schema, the same with members made hostile, or broken JSON text. */
function bodyFor(route: RouteEntry): fc.Arbitrary<string | undefined> {
  if (takesCsv(route)) return fc.oneof({ weight: 4, arbitrary: hostileCsv }, fc.constant(undefined));
  const schema = route.schema?.body as Schema | undefined;
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  const valid = validValue(schema);
  const mutated = fc
    .tuple(
      valid,
      fc.record(
        Object.fromEntries(
          Object.entries(props).map(([k, s]) => [k, fc.option(hostileMember(k, s), { freq: 2 })]),
        ),
      ),
      fc.option(fc.tuple(hostileString, hostileValue)),
    )
    .map(([value, hostile, extra]) => {
      const out: Json = { ...(value as Json) };
      for (const [k, v] of Object.entries(hostile)) if (v !== null) out[k] = v;
      if (extra) out[extra[0]] = extra[1];
      return out;
    });
  // Only the required members plus one hostile one: otherwise valid, so the hostile value reaches
  // the service and the database instead of losing to some other member's error.
  const required = ((schema?.required ?? []) as string[]).filter((k) => k in props);
  const members = Object.keys(props);
  const focused = members.length
    ? fc
        .tuple(
          fc.record(Object.fromEntries(required.map((k) => [k, validValue(props[k])]))),
          fc.constantFrom(...members).chain((k) => fc.tuple(fc.constant(k), hostileMember(k, props[k]))),
        )
        .map(([base, [k, v]]) => ({ ...base, [k]: v }))
    : mutated;
  const raw = fc.constantFrom(
    '',
    '   ',
    'null',
    '[]',
    '"x"',
    '{',
    '{"a":1e309}',
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
  );
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((v) => encodeJson(v)) },
    { weight: 3, arbitrary: mutated.map((v) => encodeJson(v)) },
    { weight: 4, arbitrary: focused.map((v) => encodeJson(v)) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const nest = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

function encodeJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll(JSON.stringify(INF), '1e309')
    .replaceAll(JSON.stringify(HUGE), `-1${'0'.repeat(400)}`)
    .replaceAll(JSON.stringify(DEEP), nest(40));
}

/** Percent-encodes text, writing lone surrogates as their (invalid) UTF-8 bytes. */
function encodeText(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text].map((c) => (c.isWellFormed() ? encodeURIComponent(c) : '%ED%A0%80')).join('');
  }
}

const hostilePathId = fc.oneof(
  hostileString.map(encodeText),
  fc.constantFrom('%zz', '%C0%AF', '%00', 'a'.repeat(150), 'ani_00000000000000000000000000', '%2F'),
);

function queryFor(route: RouteEntry): fc.Arbitrary<string> {
  const names = Object.keys(((route.schema?.querystring as Schema | undefined)?.properties ?? {}) as Json);
  const name = fc.oneof(fc.constantFrom(...names, 'limit', 'unknown'), fc.string({ maxLength: 5 }));
  const value = fc.oneof(
    hostileString.map(encodeText),
    fc.constantFrom(
      '1e309',
      '-1',
      '0',
      '10',
      '500',
      '501',
      '2026-01-01',
      'now',
      '%zz',
      `1${'0'.repeat(400)}`,
    ),
  );
  const pairs = fc
    .array(fc.tuple(name, value), { minLength: 1, maxLength: 3 })
    .map((list) => `?${list.map(([k, v]) => `${encodeText(k)}=${v}`).join('&')}`);
  // Often none: a bad query parameter would be refused before the body is looked at.
  return fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 2, arbitrary: pairs });
}

interface Attempt {
  route: RouteEntry;
  pathIds: { real: boolean; hostile: string }[];
  query: string;
  body: string | undefined;
}

/** A Server-Sent Events route: accepted, it never ends, and inject waits for the end (its own tests use a socket). */
function isEventStream(route: RouteEntry): boolean {
  const ok = (
    route.schema?.response as Record<string, { content?: Record<string, unknown> }> | undefined
  )?.[200];
  return ok?.content?.['text/event-stream'] !== undefined;
}

function attemptFor(route: RouteEntry): fc.Arbitrary<Attempt> {
  const params = route.url.split('/').filter((s) => s.startsWith(':'));
  return fc.record({
    route: fc.constant(route),
    // DELETE and key rotation get only hostile ids, so the world the other runs need stays standing; an
    // event stream too, so every attempt is answered (and refused).
    pathIds: fc.tuple(
      ...params.map(() =>
        fc.record({
          real:
            route.method === 'DELETE' || route.url.endsWith('/key') || isEventStream(route)
              ? fc.constant(false)
              : fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
          hostile: hostilePathId,
        }),
      ),
    ),
    query: queryFor(route),
    body: ['POST', 'PATCH', 'PUT', 'DELETE'].includes(route.method) ? bodyFor(route) : fc.constant(undefined),
  });
}

/**
 * Every hostile file once, as a dry run and for real, on the route's real ids: run first, before the random
 * attempts, so each family reaches the import whatever the seed draws.
 */
function fileExamples(route: RouteEntry): [Attempt][] {
  const members = Object.keys(((route.schema?.body as Schema | undefined)?.properties ?? {}) as Json);
  const bodies = takesCsv(route)
    ? HOSTILE_CSV
    : members.includes('content')
      ? HOSTILE_FILES.flatMap((content) => [true, false].map((dry_run) => encodeJson({ content, dry_run })))
      : [];
  const pathIds = route.url
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map(() => ({ real: true, hostile: 'x' }));
  return bodies.map((body) => [{ route, pathIds, query: '', body }]);
}

function concretePath(world: World, attempt: Attempt): string {
  const segments = attempt.route.url.split('/');
  let n = 0;
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const choice = attempt.pathIds[n++];
      const collection = segment === ':farm' ? 'farms' : (segments[i - 1] ?? '');
      const real = world.ids[collection];
      return choice?.real && real ? real : (choice?.hostile ?? 'x');
    })
    .join('/');
}

// ---- the property -----------------------------------------------------------------------------

function isErrorObject(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string' && error.message.length > 0;
}

/** The OAuth endpoints answer RFC 6749's error format, which OAuth clients read (docs/oauth.md). */
function isOAuthError(body: unknown): boolean {
  const b = body as { error?: unknown; error_description?: unknown } | null;
  return typeof b?.error === 'string' && typeof b.error_description === 'string';
}

function isJsonRpcError(body: unknown): boolean {
  const error = (body as { jsonrpc?: string; error?: { code?: unknown } } | null)?.error;
  return (body as { jsonrpc?: string } | null)?.jsonrpc === '2.0' && typeof error?.code === 'number';
}

async function send(t: TestApp, world: World, attempt: Attempt): Promise<{ url: string; reply: Reply }> {
  const path = concretePath(world, attempt);
  const url = `${path}${attempt.query}`;
  const { route, body } = attempt;
  const key = route.auth === 'device' ? world.deviceKey : route.auth === 'none' ? null : world.apiKey;
  const headers: Record<string, string> = {};
  if (route.url === '/mcp') headers.accept = 'application/json, text/event-stream';
  if (body !== undefined) headers['content-type'] = takesCsv(route) ? 'text/csv' : 'application/json';
  const reply = await t.request(route.method, url, {
    key,
    headers,
    ...(body !== undefined ? { rawBody: body } : {}),
  });
  return { url, reply };
}

function remember(world: World, attempt: Attempt, path: string, reply: Reply): void {
  const body = reply.body as Json;
  if (typeof body?.device_key === 'string') world.deviceKey = body.device_key;
  if (reply.status !== 201 || typeof body?.id !== 'string') return;
  const collection = attempt.route.url.split('/').at(-1) ?? '';
  world.accepted.push({ collection, id: body.id, listUrl: attempt.route.url === '/v1/keys' ? null : path });
}

async function checkAccepted(t: TestApp, world: World): Promise<void> {
  const routes = t.app.routeTable.routes;
  for (const { collection, id, listUrl } of world.accepted) {
    if (routes.some((r) => r.method === 'GET' && r.url === `/v1/${collection}/:id`)) {
      const one = await t.request<{ id: string }>('GET', `/v1/${collection}/${id}`, { key: world.apiKey });
      assert.equal(one.status, 200, `GET /v1/${collection}/${id}: ${JSON.stringify(one.body)}`);
      assert.equal(one.body.id, id);
    }
    if (listUrl) {
      const list = await t.request<List<{ id: string }>>('GET', `${listUrl}?limit=500`, {
        key: world.apiKey,
      });
      assert.equal(list.status, 200, `GET ${listUrl}: ${JSON.stringify(list.body)}`);
      assert.ok(
        list.body.data.some((r) => r.id === id),
        `${id} is listed by ${listUrl}`,
      );
    }
  }
  const mcp = await connect(t, world.apiKey, ERAS[0] as (typeof ERAS)[number]);
  try {
    const farms = await callTool(mcp.client, 'list_farms', { limit: 500 });
    assert.equal(farms.isError, false, farms.text);
    for (const farm of farms.data.data as Json[]) {
      const farm_id = farm.id;
      for (const tool of [
        'farm_brief',
        'find_animals',
        'list_groups',
        'list_paddocks',
        'list_devices',
        'list_tasks',
        'list_alerts',
        'house_status',
      ]) {
        const res = await callTool(mcp.client, tool, { farm_id });
        assert.equal(res.isError, false, `${tool} on ${farm_id}: ${res.text}`);
      }
    }
    for (const { collection, id } of world.accepted.filter((a) => a.collection === 'animals')) {
      const res = await callTool(mcp.client, 'get_animal', { animal_id: id });
      assert.equal(res.isError, false, `get_animal ${id}: ${res.text}`);
      assert.equal(collection, 'animals');
    }
  } finally {
    await mcp.close();
  }
}

forEachEngine(
  'fuzz: every route',
  (t) => {
    test('malformed requests never give a 5xx, always the Error object, change nothing when refused; accepted records read back', async () => {
      const world = await buildWorld(t());
      const routes = t().app.routeTable.routes.filter((r) => r.method !== 'HEAD');
      assert.ok(routes.length > 50, 'the route table lists every route');
      let before = await snapshot(t(), world);
      // The snapshot sees a change to a row (and a row gone) of the account's farm.
      const db = t().database.db;
      await db.updateTable('tasks').set({ title: 'Moved' }).where('id', '=', world.ids.tasks!).execute();
      assert.match(difference(before, await snapshot(t(), world)), /^tasks: /);
      await db.deleteFrom('tasks').where('id', '=', world.ids.tasks!).execute();
      assert.match(difference(before, await snapshot(t(), world)), /^tasks: /);
      world.ids.tasks = (
        await make.created<{ id: string }>(t(), world.apiKey, `/v1/farms/${world.farmId}/tasks`, {
          title: 'Check water',
        })
      ).id;
      before = await snapshot(t(), world);
      // Every route gets its own runs (a fixed seed each), more where a body can carry hostile input.
      for (const [i, route] of routes.entries()) {
        const property = fc.asyncProperty(attemptFor(route), async (attempt) => {
          const { url, reply } = await send(t(), world, attempt);
          const label = `${route.method} ${url.slice(0, 200)} body ${String(attempt.body).slice(0, 200)}`;
          assert.ok(reply.status < 500, `${label} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
          if (reply.status >= 400) {
            const ok =
              isErrorObject(reply.body) ||
              (route.url === '/mcp' && isJsonRpcError(reply.body)) ||
              (route.url.startsWith('/oauth/') && isOAuthError(reply.body));
            assert.ok(
              ok,
              `${label}: ${reply.status} without the Error object: ${JSON.stringify(reply.body)}`,
            );
            const changed = difference(before, await snapshot(t(), world));
            assert.equal(changed, '', `${label} was refused (${reply.status}) but changed data`);
          } else {
            remember(world, attempt, url.split('?')[0] ?? '', reply);
            // Reads may write too (a device's poll marks its commands delivered).
            before = await snapshot(t(), world);
          }
        });
        const numRuns = Math.ceil((route.schema?.body ? 10 : 3) * RUN_SCALE);
        const examples = fileExamples(route);
        await fc.assert(property, { seed: SEED + i, numRuns, endOnFailure: true, examples });
      }
      await checkAccepted(t(), world);
    });
  },
  { webhookAllowPrivate: true },
);
