/**
 * What a device's MQTT message means: the same body checks as the HTTP routes (the same TypeBox schemas,
 * Ajv as `src/lib/ajv.ts` makes it) and the same service functions. A refusal is the same Error
 * object the HTTP route would answer.
 */
import type { ValidateFunction } from 'ajv';
import { parseJsonBody } from '../../calls/input-rules.ts';
import type { Db } from '../../db/schema.ts';
import { AppError, type ErrorBody, errorBody } from '../../domain/errors.ts';
import { describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { lazily } from '../../lib/compile-lazily.ts';
import { AnswerCommandBody, type AnswerCommandInput, type Command } from '../commands/schemas.ts';
import { answerCommand } from '../commands/service.ts';
import { IngestBody, type IngestInput, type IngestResult } from '../ingest/schemas.ts';
import { type IngestOptions, ingestReport } from '../ingest/service.ts';

// Bodies are checked strictly, as HTTP bodies are: no coercion, unknown members rejected. Compiled on the
// first message (`lib/compile-lazily.ts`): a process serving no device never compiles them.
const ajv = lazily(() => makeAjv({ coerceTypes: false }));
const validateReport = lazily(() => ajv().compile(IngestBody));
const validateAnswer = lazily(() => ajv().compile(AnswerCommandBody));

/** Parses and checks a JSON payload; an empty payload is no body (a heartbeat, for a report). */
function parsePayload<T>(payload: Buffer, validate: ValidateFunction, required: boolean): T | undefined {
  const text = payload.toString('utf8');
  // The HTTP body rules too (JSON object, depth, finite numbers, clean text), from the same parser.
  const data: unknown = text.trim() === '' ? undefined : parseJsonBody(text);
  if (data === undefined) {
    if (required) throw new AppError('invalid_request', 'The message needs a JSON body.', { param: 'body' });
    return undefined;
  }
  if (!validate(data)) {
    const issue = firstIssue(validate.errors);
    if (!issue) throw new AppError('invalid_request', 'The message body is not valid.');
    // The whole body is `body`, as the HTTP answer names it.
    const { param, message } = describeAjvError(issue, 'field', 'body');
    throw new AppError('invalid_request', message, { param });
  }
  return data as T;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: AppError };

async function attempt<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err };
    throw err;
  }
}

/**
 * A report over MQTT: the same body and the same transaction as POST /v1/ingest, so the answer on the
 * result topic carries the same `refused` / `refused_events` (times too far ahead) as the HTTP answer.
 */
export function handleReport(
  db: Db,
  deviceId: string,
  payload: Buffer,
  now: number,
  options: IngestOptions = {},
): Promise<Outcome<IngestResult>> {
  return attempt(() =>
    ingestReport(
      db,
      { deviceId, transport: 'mqtt' },
      parsePayload<IngestInput>(payload, validateReport(), false),
      now,
      options,
    ),
  );
}

/** An answer over MQTT: the same body and the same function as POST /v1/device/commands/{id}. */
export function handleCommandResult(
  db: Db,
  deviceId: string,
  commandId: string,
  payload: Buffer,
  now: number,
): Promise<Outcome<Command>> {
  return attempt(async () => {
    const input = parsePayload<AnswerCommandInput>(payload, validateAnswer(), true) as AnswerCommandInput;
    return answerCommand(db, { deviceId }, commandId, input, now);
  });
}

/** The JSON an outcome is published as: the result, or the Error object. */
export function outcomeJson<T>(outcome: Outcome<T>): T | ErrorBody {
  return outcome.ok ? outcome.value : errorBody(outcome.error);
}
