/**
 * Data in and out: exports of animals, events, tasks (per farm) and readings (per device) as CSV or NDJSON,
 * streamed; CSV import of animals. One plugin per resource, so each is registered in app.ts under the
 * resource whose permissions it needs (an export is a read of that resource, the import a write of animals).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { apiCaller } from '../../http/auth.ts';
import { described, errorResponses, FarmParams, IdParams } from '../../http/schemas.ts';
import { requestPartValidator } from '../../http/validation.ts';
import {
  EXPORT_COLUMNS,
  type ExportStream,
  exportDeviceReadings,
  exportFarmRecords,
  exportReadable,
  type RecordExportKind,
} from './export.ts';
import {
  exportHoldingRegister,
  exportMedicineRecord,
  HOLDING_REGISTER_COLUMNS,
  MEDICINE_RECORD_COLUMNS,
} from './herd-book-export.ts';
import { importAnimals } from './import.ts';
import {
  EXPORT_CONTENT_TYPES,
  ExportQuery,
  HerdBookExportQuery,
  IMPORT_BODY_LIMIT_BYTES,
  IMPORT_MAX_ROWS,
  ImportQuery,
  ImportResultSchema,
  ReadingsExportQuery,
} from './schemas.ts';

/** The 200 of an export: a text file in either format, described with its columns. */
function exportResponse(what: string, columns: readonly string[]) {
  return {
    description: `${what}: CSV with the columns ${columns.join(', ')} (nested objects as JSON text, null as an empty cell), or NDJSON with one object per line. Sent as an attachment, streamed.`,
    content: {
      [EXPORT_CONTENT_TYPES.csv.split(';')[0] as string]: { schema: Type.String() },
      [EXPORT_CONTENT_TYPES.ndjson.split(';')[0] as string]: { schema: Type.String() },
    },
  };
}

function sendExport(reply: FastifyReply, stream: ExportStream) {
  return reply
    .header('content-type', stream.contentType)
    .header('content-disposition', `attachment; filename="${stream.filename}"`)
    .header('cache-control', 'no-store')
    .send(exportReadable(stream));
}

function recordExportRoute(kind: RecordExportKind, tag: string, noun: string, operationId: string) {
  const plugin: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
    app.get(
      `/v1/farms/:farm/${kind}/export`,
      {
        schema: {
          operationId,
          tags: [tag],
          summary: `Export a farm's ${noun} as CSV or NDJSON`,
          description: `Every ${noun.replace(/s$/, '')} of the farm, newest first, streamed whatever their number (read page by page, not as one snapshot). The columns and fields are those of the API object. See docs/data.md.`,
          params: FarmParams,
          querystring: ExportQuery,
          response: {
            200: exportResponse(`The farm's ${noun}`, EXPORT_COLUMNS[kind]),
            ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
          },
        },
      },
      async (request, reply) =>
        sendExport(
          reply,
          await exportFarmRecords(db, apiCaller(request), request.params.farm, kind, request.query.format),
        ),
    );
  };
  return plugin;
}

export const animalExportRoutes = recordExportRoute('animals', 'Animals', 'animals', 'exportAnimals');
export const eventExportRoutes = recordExportRoute('events', 'Farm events', 'events', 'exportEvents');
export const taskExportRoutes = recordExportRoute('tasks', 'Tasks', 'tasks', 'exportTasks');

function herdBookExportRoute(
  path: string,
  operationId: string,
  what: string,
  summary: string,
  description: string,
  columns: readonly string[],
  run: typeof exportMedicineRecord,
) {
  const plugin: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
    app.get(
      `/v1/farms/:farm/${path}/export`,
      {
        schema: {
          operationId,
          tags: ['Herd book'],
          summary,
          description: `${description} Newest first, within since (inclusive) and until (exclusive); streamed whatever their number. See docs/records.md.`,
          params: FarmParams,
          querystring: HerdBookExportQuery,
          response: {
            200: exportResponse(what, columns),
            ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
          },
        },
      },
      async (request, reply) =>
        sendExport(reply, await run(db, apiCaller(request), request.params.farm, request.query)),
    );
  };
  return plugin;
}

export const medicineRecordExportRoutes = herdBookExportRoute(
  'medicine-record',
  'exportMedicineRecord',
  "The farm's medicine record",
  "Export the farm's medicine record as CSV or NDJSON",
  'One row per treatment with every column EU Regulation 2019/6 art. 108 and the UK VMR 2013 regs 17–19 ask for: date, product, quantity, batch, supplier and proof of purchase, the animal, who gave it, the prescribing vet, the withdrawal applied (even zero) and its dates, and any override reason.',
  MEDICINE_RECORD_COLUMNS,
  exportMedicineRecord,
);

export const holdingRegisterExportRoutes = herdBookExportRoute(
  'holding-register',
  'exportHoldingRegister',
  "The farm's holding register",
  "Export the farm's holding register as CSV or NDJSON",
  'The movements on and off the holding, with the births and deaths of the event log (`birth` and `death` events), one row each.',
  HOLDING_REGISTER_COLUMNS,
  exportHoldingRegister,
);

export const readingExportRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/v1/devices/:id/readings/export',
    {
      schema: {
        operationId: 'exportDeviceReadings',
        tags: ['Devices'],
        summary: "Export a device's readings as CSV or NDJSON",
        description:
          "The device's raw readings, newest first, optionally of one metric and within since (inclusive) and until (exclusive); streamed in constant memory whatever their number.",
        params: IdParams,
        querystring: ReadingsExportQuery,
        response: {
          200: exportResponse("The device's readings", EXPORT_COLUMNS.readings),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request, reply) =>
      sendExport(reply, await exportDeviceReadings(db, apiCaller(request), request.params.id, request.query)),
  );
};

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];

/** Whether bytes are only spaces, tabs and line breaks (or nothing): no CSV was sent. */
function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes)
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

/**
 * The import's body is kept as the bytes sent (outside the JavaScript heap), capped at
 * IMPORT_BODY_LIMIT_BYTES by Fastify's body reader: a Content-Length above it is 413 before a byte is read,
 * and a body without one is 413 as soon as it passes the cap. It is received whole before the import's
 * transaction begins, so a slow upload never holds the database's writer; the import then parses and
 * writes it a batch of rows at a time (import.ts).
 */
export const animalImportRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  // Scoped to this plugin: every other route still takes JSON only.
  app.addContentTypeParser(
    CSV_TYPES,
    { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/v1/farms/:farm/animals/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT_BYTES,
      // The body is bytes (documented as CSV text below); the query and path are checked as everywhere.
      validatorCompiler: ({ schema, httpPart }) =>
        httpPart === 'body' ? (data: unknown) => Buffer.isBuffer(data) : requestPartValidator(schema),
      schema: {
        operationId: 'importAnimals',
        tags: ['Animals'],
        summary: 'Import animals from CSV (matching existing ones by eid or tag)',
        description: `Send CSV (Content-Type text/csv) with the columns of the animals export (any subset, in any order; id, farm_id and created_at are ignored). A BOM, ; or tab separators, quoted fields and blank lines are fine. A row whose eid, else tag, names an animal of the farm updates it; other rows add animals. Every row is checked like POST and PATCH /v1/animals; one bad row imports nothing (400 naming its row and column) unless skip_invalid=true. dry_run=true answers what would happen, with every row's errors, and stores nothing. At most ${IMPORT_BODY_LIMIT_BYTES / 1024 / 1024} MiB and ${IMPORT_MAX_ROWS.toLocaleString('en')} rows (more is 413).`,
        params: FarmParams,
        querystring: ImportQuery,
        body: { content: { 'text/csv': { schema: Type.String() } } },
        response: {
          200: described(ImportResultSchema, 'What was imported (or would be, on a dry run), row by row.'),
          ...errorResponses(
            {
              invalid_request:
                'The CSV cannot be read, a column is unknown, or a row is invalid (without skip_invalid); names the row and column.',
              payload_too_large: `The body is larger than ${IMPORT_BODY_LIMIT_BYTES / 1024 / 1024} MiB (refused before it is read, when Content-Length says so) or holds more than ${IMPORT_MAX_ROWS.toLocaleString('en')} rows.`,
            },
            'unauthorized',
            'not_found',
            'unsupported_media_type',
          ),
        },
      },
    },
    async (request) => {
      const body = request.body as unknown;
      if (!Buffer.isBuffer(body)) {
        throw new AppError(
          'unsupported_media_type',
          'Send the CSV as the request body with Content-Type: text/csv.',
        );
      }
      if (isBlank(body)) {
        throw invalid('body', 'Send the CSV as the request body (Content-Type: text/csv).');
      }
      return importAnimals(db, apiCaller(request), request.params.farm, body, {
        dryRun: request.query.dry_run === true,
        skipInvalid: request.query.skip_invalid === true,
      });
    },
  );
};
