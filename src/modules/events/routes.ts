import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { ERROR_MEANINGS } from '../../http/schemas.ts';
import { recordRoutes } from '../records/routes.ts';
import { CreateEventBody, EventListQuery, UpdateEventBody } from './schemas.ts';
import {
  type ClientEventHook,
  createEvent,
  deleteEvent,
  type EventChangeHook,
  getEvent,
  listEvents,
  updateEvent,
} from './service.ts';

/**
 * `hook`: what a client's event sets in motion above events; `onChange`: what its edit or deletion does
 * (buildApp hands in the herd book's).
 */
export const eventRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  hook?: ClientEventHook;
  onChange?: EventChangeHook;
}> = async (app, { db, hook, onChange }) => {
  const tags = ['Farm events'];

  recordRoutes(app, db, {
    path: 'events',
    one: 'Event',
    many: 'Events',
    tags,
    noun: 'farm event',
    nouns: 'farm events',
    summaries: {
      list: "List a farm's event log, newest `at` first, with filters",
      create:
        'Log a farm event (emits event.created; a sale or slaughter inside a meat withdrawal is 409 withdrawal_active without override_reason; a treatment naming a medicine_id and dose also becomes a treatment)',
      get: 'Get a farm event',
      update: 'Update a farm event',
      delete: 'Delete a farm event',
    },
    described: { list: 'A page of farm events, newest `at` first.' },
    errors: {
      create: {
        not_found: 'No such farm visible to the key.',
        withdrawal_active:
          'A sale or slaughter of an animal (or of a group: every animal not clear is named) inside its meat withdrawal; send override_reason to record it anyway.',
      },
      update: {
        not_found: ERROR_MEANINGS.not_found,
        conflict:
          'The event is one only the server writes (alert.escalated, withdrawal_override) or a treatment’s log entry: the log keeps it as written (DELETE is refused likewise).',
      },
    },
    schemas: { query: EventListQuery, create: CreateEventBody, update: UpdateEventBody },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listEvents(db, scope, farmId, filters, parsePage({ limit, before })),
      create: (db, scope, farmId, input) => createEvent(db, scope, farmId, input, Date.now(), hook),
      get: getEvent,
      update: (db, scope, id, patch) => updateEvent(db, scope, id, patch, onChange),
      delete: (db, scope, id) => deleteEvent(db, scope, id, onChange),
    },
  });
};
