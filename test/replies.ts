/**
 * The reply bodies tests read, named from the schemas' static types: a test writes
 * `t().request<Animal>('GET', …)` and the compiler checks every member it reads. Records are the modules'
 * own `Static` types, re-exported here so a test imports its vocabulary from one place; the envelopes
 * (lists, deletions, the Error object) are the shared schemas of src/http/schemas.ts. Where a schema refers
 * to another by name (`Type.Ref`), its static type is `unknown` there, so the reply type spells the
 * referenced record out.
 */
import type { Static } from 'typebox';
import type { Page } from '../src/db/pagination.ts';
import type { HouseState } from '../src/domain/house-state.ts';
import type { DeletedSchema, ErrorSchema } from '../src/http/schemas.ts';
import type { MeSchema } from '../src/modules/accounts/routes.ts';
import type { Alert } from '../src/modules/alerts/schemas.ts';
import type { Brief } from '../src/modules/brief/schemas.ts';
import type { Command } from '../src/modules/commands/schemas.ts';
import type { Device, DeviceKeySchema } from '../src/modules/devices/schemas.ts';
import type { House } from '../src/modules/houses/schemas.ts';
import type { Key } from '../src/modules/keys/schemas.ts';
import type { Person } from '../src/modules/people/schemas.ts';
import type { Reading } from '../src/modules/readings/schemas.ts';
import type { Task } from '../src/modules/tasks/schemas.ts';
import type { UsageSchema } from '../src/modules/usage/routes.ts';
import type { Webhook } from '../src/modules/webhooks/schemas.ts';

export type { Catalog } from '../src/domain/catalog.ts';
export type { Alert } from '../src/modules/alerts/schemas.ts';
export type { Animal } from '../src/modules/animals/schemas.ts';
export type { Command } from '../src/modules/commands/schemas.ts';
export type { ImportResult } from '../src/modules/dataio/schemas.ts';
export type { Device } from '../src/modules/devices/schemas.ts';
export type { FarmEvent } from '../src/modules/events/schemas.ts';
export type { Farm } from '../src/modules/farms/schemas.ts';
export type { Group } from '../src/modules/groups/schemas.ts';
export type { Key } from '../src/modules/keys/schemas.ts';
export type { Paddock } from '../src/modules/paddocks/schemas.ts';
export type { Invite, PeopleList, Person, Session, Setup } from '../src/modules/people/schemas.ts';
export type { Reading } from '../src/modules/readings/schemas.ts';
export type { Rule } from '../src/modules/rules/schemas.ts';
export type { Task } from '../src/modules/tasks/schemas.ts';
export type { Webhook, WebhookDelivery } from '../src/modules/webhooks/schemas.ts';
export type { IngestReply } from './factories.ts';

/** A page of a list (`ListOf` in src/http/schemas.ts). */
export type List<T> = Page<T>;
/** A list that is never paged (rules, a device's pending commands). */
export interface Items<T> {
  data: T[];
}
/** Every 4xx and 5xx reply: `{ error: { code, message, param? } }`. */
export type ErrorReply = Static<typeof ErrorSchema>;
/** What DELETE answers. */
export type Deleted = Static<typeof DeletedSchema>;
/** What DELETE /v1/keys/{id} answers. */
export type RevokedKey = Deleted & { revoked_at: string };
/** A new API key, with the full key shown only on create. */
export type NewKey = Key & { key: string };
/** A new device, with its device key shown only on create. */
export type NewDevice = Device & { device_key: string };
/** A new webhook, with its signing secret shown only on create. */
export type NewWebhook = Webhook & { secret: string };
/** POST /v1/devices/{id}/key. */
export type DeviceKey = Static<typeof DeviceKeySchema>;
/** GET /v1/usage. */
export type Usage = Static<typeof UsageSchema>;
/** GET /v1/me. */
export type Me = Omit<Static<typeof MeSchema>, 'person'> & { person?: Person };
/** A house's state: the spec's members, and whatever more a house reports. */
export type ReportedHouseState = HouseState & Record<string, unknown>;
/** GET /v1/houses/{id}: the house device with its state, latest readings and recent commands. */
export type HouseReply = Omit<House, 'state' | 'latest_readings' | 'recent_commands'> & {
  state: ReportedHouseState;
  latest_readings: Record<string, Reading>;
  recent_commands: Command[];
};
/** A house read as a device (GET /v1/devices/{id}): its state is the house state. */
export type HouseDevice = Omit<Device, 'state'> & { state: ReportedHouseState };
/** GET /v1/farms/{farm}/brief. */
export type BriefReply = Omit<Brief, 'alerts' | 'tasks'> & { alerts: Alert[]; tasks: Task[] };

/** GET /readyz: each check, and the names of those failing. */
export interface Readiness {
  ready: boolean;
  failing: string[];
  checks: Record<string, { ok: boolean; message?: string }>;
}
/** GET /healthz (plus the MQTT listener's members when it runs). */
export interface Health {
  ok: boolean;
  engine: string;
  version: string;
  database: string;
  [member: string]: unknown;
}

/** A JSON Schema in the OpenAPI document, as far as tests read one. */
export interface DocumentSchema {
  type?: string;
  $ref?: string;
  properties?: Record<string, DocumentSchema>;
  items?: DocumentSchema;
  required?: string[];
  [member: string]: unknown;
}
/** An operation in the OpenAPI document, as far as tests read one. */
export interface DocumentOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; schema?: DocumentSchema }[];
  requestBody?: { content: Record<string, { schema: DocumentSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: DocumentSchema }> }>;
}
/** GET /openapi.json: the served document (a JSON boundary; only what tests read is named). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, DocumentOperation>>;
  components: {
    schemas: Record<string, DocumentSchema>;
    securitySchemes: Record<string, { type: string; scheme?: string }>;
  };
}
