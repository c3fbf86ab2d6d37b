/**
 * The frame every MCP tool shares: a definition (name, title, agent-facing description, TypeBox input
 * and output schemas, annotations, run), its registration on an McpServer, the result shape
 * (structuredContent plus the same JSON as text), and errors turned into isError results an agent
 * can act on: the bad argument and what is valid, or which id was not found and how to list real ones.
 */
import type { CallToolResult, McpServer, ToolAnnotations } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  releaseIdempotencyKey,
} from '../../calls/idempotency-store.ts';
import { MAX_PAGE_SIZE, type Page } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import type { Policy } from '../../domain/permissions.ts';
import { RECORD_KINDS } from '../../domain/record-kinds.ts';
import { ListOf, Nullable } from '../../http/schemas.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import { listFarms } from '../farms/service.ts';
import { type JsonObject, toJsonSchema, toolSchema } from './schema.ts';

/** What a tool acts with: the database and exactly the calling key's scope. */
export interface ToolContext {
  db: Db;
  scope: Scope;
  /** The calling API key: the scope of idempotency keys. */
  keyId: string;
  /**
   * The person the credential speaks for: who allowed a connected agent (OAuth), or the signed-in person;
   * null for an API key, which is the account's. Absent: none.
   */
  personId?: string | null;
  log: FastifyBaseLogger;
  /** Default expiry of device commands, as configured for REST. */
  commandExpirySeconds: number;
  /** Default redelivery window of device commands, as configured for REST. */
  commandRedeliverSeconds: number;
  /** The key's permissions: only the tools they allow are offered. Absent: every tool. */
  policy?: Policy;
  /** FARMSTEAD_MCP_READ_ONLY: no tool that changes anything is offered. */
  readOnly?: boolean;
  /** The tools of the toolsets this connection asked for (toolsets.ts); absent or null: every tool. */
  toolsets?: ReadonlySet<string> | null;
  /**
   * Whether the client reads structuredContent (protocol 2025-06-18 and later): then a tool's text is a
   * short summary beside it, not the same JSON again. Absent: true.
   */
  structured?: boolean;
}

/** A refusal the agent should read and act on (ask the farmer, pick a farm…): an isError result. */
export class ToolRefusal extends Error {}

export interface RegisteredTool {
  readonly name: string;
  /** Whether the tool changes anything (readOnlyHint false): left out in read-only mode. */
  readonly writes: boolean;
  register(server: McpServer, ctx: ToolContext): void;
}

export interface ToolDefinition<I extends TObject, O extends TObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  /** JSON Schema shown instead of `input` when it says more than the frame checks (see toolSchema). */
  advertisedInput?: JsonObject;
  output: O;
  annotations: Omit<ToolAnnotations, 'title'>;
  run(ctx: ToolContext, args: Static<I>): Promise<Static<O>>;
  /** The short text sent beside structuredContent; summarize() by default. */
  summary?(out: Static<O>): string;
}

function notFoundText(err: AppError): string {
  const lister = err.kind ? RECORD_KINDS[err.kind].listTool : null;
  const hint =
    err.kind && lister
      ? ` Call ${lister} to see the valid ${RECORD_KINDS[err.kind].noun} ids this key can reach.`
      : ' Ids belong to one account and one mode (live or test).';
  return `Not found: ${err.message}${hint}`;
}

/** An error as the text of an isError result. Unknown failures are logged and not described. */
export function errorText(err: unknown, log: FastifyBaseLogger, tool: string): string {
  if (err instanceof ToolRefusal) return err.message;
  if (err instanceof AppError) {
    switch (err.code) {
      case 'invalid_request':
        return err.param
          ? `Invalid argument \`${err.param}\`: ${err.message}`
          : `Invalid request: ${err.message}`;
      case 'not_found':
        return notFoundText(err);
      case 'conflict':
        return `Conflict${err.param ? ` on \`${err.param}\`` : ''}: ${err.message}`;
      default:
        if (err.status < 500) return `${err.code}: ${err.message}`;
    }
  }
  log.error({ err, tool }, 'MCP tool failed');
  return 'Something went wrong on our side; it has been logged. Try again, or tell the farmer it failed.';
}

/** Items named in a list's summary; the rest are in structuredContent. */
const SUMMARY_ITEMS = 10;

/** One record in a line: its id and what names it (name, title, a reading's value), then its status. */
function label(item: unknown): string {
  if (typeof item !== 'object' || item === null) return JSON.stringify(item);
  const r = item as Record<string, unknown>;
  const reading =
    typeof r.metric === 'string' && r.value !== undefined
      ? `${r.metric} ${String(r.value)}${typeof r.unit === 'string' && r.unit ? ` ${r.unit}` : ''} at ${String(r.at)}`
      : undefined;
  const parts = [r.id, r.name ?? r.title, reading, r.severity, r.status].filter(
    (v) => typeof v === 'string' && v !== '',
  );
  return parts.length > 0 ? parts.join(' · ') : JSON.stringify(item).slice(0, 120);
}

/**
 * The text beside structuredContent: what the answer holds in a few lines (a list's count and first
 * items, a record's id and name, the next page), so a client that shows text has the gist and the model's
 * context does not hold the same answer twice.
 */
export function summarize(out: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(out)) {
    if (Array.isArray(value)) {
      lines.push(`${name}: ${value.length}${value.length > 0 ? '' : ' (none)'}`);
      for (const item of value.slice(0, SUMMARY_ITEMS)) lines.push(`- ${label(item)}`);
      if (value.length > SUMMARY_ITEMS) lines.push(`- … ${value.length - SUMMARY_ITEMS} more`);
    } else if (typeof value === 'object' && value !== null && 'id' in value) {
      lines.push(`${name}: ${label(value)}`);
    }
  }
  if (!Array.isArray(out.data) && lines.length === 0) lines.unshift(label(out));
  if (typeof out.next_page === 'string') lines.push(out.next_page);
  if (typeof out.note === 'string') lines.push(out.note);
  lines.push('The full answer is in structuredContent.');
  return lines.join('\n');
}

/**
 * A tool's answer: structuredContent with a short summary as text for clients that read it, or the JSON
 * as text too for clients of protocols before structuredContent (2025-03-26 and older).
 */
export function jsonResult(out: Record<string, unknown>, text?: string, structured = true): CallToolResult {
  return {
    content: [{ type: 'text', text: structured ? (text ?? summarize(out)) : JSON.stringify(out) }],
    structuredContent: out,
  };
}

/** The optional argument every write tool takes: the same meaning as REST's Idempotency-Key header. */
const IdempotencyKeyArg = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
    description:
      // Every write tool carries this text in tools/list: "returns the first result" already says it acts once.
      'A new UUID per action; a retry with it (24 h) returns the first result.',
  }),
);

interface Outcome {
  result: CallToolResult;
  /** Failed on our side (not the arguments' fault): not remembered, so a retry runs again. */
  serverFault: boolean;
}

async function execute<I extends TObject, O extends TObject>(
  def: ToolDefinition<I, O>,
  ctx: ToolContext,
  args: Static<I>,
): Promise<Outcome> {
  try {
    const out = (await def.run(ctx, args)) as Record<string, unknown>;
    const text = ctx.structured === false ? undefined : def.summary?.(out as Static<O>);
    return { result: jsonResult(out, text, ctx.structured !== false), serverFault: false };
  } catch (err) {
    const serverFault = !(err instanceof ToolRefusal) && !(err instanceof AppError && err.status < 500);
    return {
      result: { isError: true, content: [{ type: 'text', text: errorText(err, ctx.log, def.name) }] },
      serverFault,
    };
  }
}

/** Runs a write tool once per (key, idempotency_key): a repeat returns the stored result. */
async function executeOnce(
  ctx: ToolContext,
  tool: string,
  key: string,
  args: Record<string, unknown>,
  run: () => Promise<Outcome>,
): Promise<CallToolResult> {
  const claim = { scope: `key:${ctx.keyId}`, key, fingerprint: fingerprintOf(`MCP ${tool}`, args) };
  let outcome: Awaited<ReturnType<typeof claimIdempotencyKey>>;
  try {
    outcome = await claimIdempotencyKey(ctx.db, claim, { param: 'idempotency_key' });
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: errorText(err, ctx.log, tool) }] };
  }
  if (outcome.kind === 'replay') return JSON.parse(outcome.body) as CallToolResult;
  const { result, serverFault } = await run();
  try {
    if (serverFault) await releaseIdempotencyKey(ctx.db, claim, outcome.owner);
    else {
      await completeIdempotencyKey(ctx.db, claim, outcome.owner, {
        status: result.isError ? 400 : 200,
        contentType: 'application/json',
        body: JSON.stringify(result),
      });
    }
  } catch (err) {
    ctx.log.error({ err, tool }, 'could not store the idempotent tool result');
  }
  return result;
}

export function defineTool<I extends TObject, O extends TObject>(def: ToolDefinition<I, O>): RegisteredTool {
  // Every tool that changes something takes idempotency_key.
  const writes = def.annotations.readOnlyHint === false;
  const input = writes
    ? Type.Object(
        { ...def.input.properties, idempotency_key: IdempotencyKeyArg },
        { additionalProperties: false },
      )
    : def.input;
  const advertised =
    writes && def.advertisedInput
      ? {
          ...def.advertisedInput,
          properties: {
            ...(def.advertisedInput.properties as JsonObject),
            idempotency_key: toJsonSchema(IdempotencyKeyArg),
          },
        }
      : def.advertisedInput;
  const inputSchema = toolSchema(input, { input: true, ...(advertised ? { advertised } : {}) });
  const outputSchema = toolSchema(def.output);
  return {
    name: def.name,
    writes,
    register(server, ctx) {
      server.registerTool(
        def.name,
        {
          title: def.title,
          description: def.description,
          inputSchema,
          outputSchema,
          annotations: def.annotations,
        },
        async (all) => {
          const { idempotency_key: key, ...args } = all as Record<string, unknown>;
          const run = () => execute(def, ctx, args as Static<I>);
          if (typeof key !== 'string') return (await run()).result;
          return executeOnce(ctx, def.name, key, args, run);
        },
      );
    },
  };
}

/** Annotations of the read tools. None of the tools reach outside Farmstead except house_command. */
export const READ_ONLY: ToolDefinition<TObject, TObject>['annotations'] = Object.freeze({
  readOnlyHint: true,
  openWorldHint: false,
});

export const FarmIdArg = Type.Optional(
  Type.String({
    minLength: 1,
    description: 'Optional if the key sees one farm.',
  }),
);

const MAX_FARMS_LISTED = 50;

/**
 * The farm a tool works on: the one named, or the only one the key sees. Several farms and no
 * farm_id is a refusal that lists them, so the agent can pick one.
 */
export async function resolveFarm(ctx: ToolContext, farmId: string | undefined): Promise<FarmRow> {
  if (farmId !== undefined) return requireFarm(ctx.db, ctx.scope, farmId);
  const page = await listFarms(ctx.db, ctx.scope, { limit: MAX_FARMS_LISTED, before: null });
  const [only] = page.data;
  if (only && page.data.length === 1) return requireFarm(ctx.db, ctx.scope, only.id);
  if (!only) {
    throw new ToolRefusal(
      `This ${ctx.scope.mode} key sees no farms yet, so there is nothing to act on. ${
        ctx.scope.mode === 'live'
          ? 'Create a farm first (POST /v1/farms), or use the test key to work on the sample farm.'
          : 'Create a test farm first (POST /v1/farms with the test key).'
      }`,
    );
  }
  const list = page.data.map((f) => `${f.id} (${f.name})`).join(', ');
  throw new ToolRefusal(
    `farm_id is required: this key sees ${page.has_more ? `more than ${MAX_FARMS_LISTED}` : page.data.length} farms. Pass farm_id as one of: ${list}${page.has_more ? ', … (call list_farms for the rest)' : ''}.`,
  );
}

/** `limit` and `before` for list tools, as on every REST list. */
export const PageArgs = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
    }),
  ),
  before: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'next_before of the last page.',
    }),
  ),
};

/** A REST page (`ListOf`) plus `next_page`, the sentence telling the agent how to fetch the next one. */
export function PageOutput<T extends TSchema>(item: T) {
  return Type.Object({
    ...ListOf(item).properties,
    next_page: Nullable(
      Type.String({ description: 'How to get the next page, or null when this is the last.' }),
    ),
  });
}

/** A page plus a sentence telling the agent how to fetch the next one. */
export function pageResult<T>(tool: string, page: Page<T>) {
  return {
    ...page,
    next_page:
      page.has_more && page.next_before
        ? `More results: call ${tool} again with the same arguments and before="${page.next_before}".`
        : null,
  };
}
