/**
 * The catalog of background jobs the server (and `cli worker`) runs. Each entry names its schedule, its
 * timeout (a run past it is abandoned) and its attempts (a failed run is tried again up to that many
 * runs), as Trigger.dev's catalog does; runner.ts honours them. The work itself lives in the owning
 * module's service, so tests can call it directly. Jobs that work in batches (the retention jobs) stop
 * between batches once abandoned and go on from there in their next turn.
 */
import { pruneIdempotencyKeys } from '../calls/idempotency-store.ts';
import { checkIntake } from '../modules/alert-passes/intake.ts';
import { checkQuietDevices } from '../modules/alert-passes/quiet.ts';
import { pruneAnimalRemovals } from '../modules/animals/service.ts';
import { expireDueCommands } from '../modules/commands/service.ts';
import { pruneMqttReportKeys } from '../modules/ingest/service.ts';
import { downlinkDeliveries, downlinkSettings } from '../modules/integrations/downlinks.ts';
import { pruneUplinkKeys } from '../modules/integrations/service.ts';
import { pruneNotificationHistory } from '../modules/notifications/retention.ts';
import { pruneOAuth } from '../modules/oauth/prune.ts';
import { prunePeopleBookkeeping } from '../modules/people/service.ts';
import { removeOldPositions } from '../modules/positions/service.ts';
import {
  ensureReadingPartitions,
  removeOldReadings,
  retentionCutoff,
} from '../modules/readings/retention.ts';
import { pruneWebhookHistory } from '../modules/webhooks/retention.ts';
import { deliveryJob } from './delivery-loop.ts';
import { notificationDeliveryJob } from './notification-delivery.ts';
import type { PeriodicJob } from './runner.ts';
import { webhookDeliveryJob } from './webhook-delivery.ts';

export const JOBS: readonly PeriodicJob[] = [
  {
    // Commands still queued or delivered past expires_at become failed ("expired").
    name: 'commands.expire',
    everyMs: () => 30_000,
    timeoutMs: 60_000,
    attempts: 3,
    run: async ({ database }) => {
      await expireDueCommands(database.db, Date.now());
    },
  },
  webhookDeliveryJob,
  // Notifications to people: alert events from the outbox, escalations, morning briefs, push and email.
  notificationDeliveryJob,
  // LoRaWAN commands out: open commands of carried devices become downlinks, sent to the network server
  // with retries inside the command's expiry (modules/integrations/downlinks.ts), a kind of the one
  // delivery queue.
  deliveryJob({
    name: 'integrations.downlinks',
    kind: (config) => downlinkDeliveries(downlinkSettings(config)),
  }),
  {
    // The ids of animals deleted more than 90 days ago: a phone that has not refreshed since gets the whole
    // herd instead (animals/service.ts, REMOVALS_KEPT_MS).
    name: 'animals.prune_removals',
    everyMs: () => 86_400_000,
    timeoutMs: 120_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await pruneAnimalRemovals(database.db, Date.now());
      if (deleted > 0) log.debug({ deleted }, 'old animal removals forgotten');
    },
  },
  {
    // The keys of uplinks stored more than 7 days ago: network servers retry within minutes.
    name: 'integrations.prune',
    everyMs: () => 3_600_000,
    timeoutMs: 120_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await pruneUplinkKeys(database.db, Date.now());
      if (deleted > 0) log.debug({ deleted }, 'old LoRaWAN uplink keys removed');
    },
  },
  {
    // device.quiet: devices silent past max(3 × their usual interval, 15 min) get an alert. One query a
    // pass; one process at a time on PostgreSQL (advisory lock), and every write is conditional anyway.
    name: 'alerts.quiet',
    everyMs: () => 60_000,
    timeoutMs: 120_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const result = await checkQuietDevices(database.db, Date.now());
      if (result.opened > 0 || result.escalated > 0) log.info(result, 'quiet devices alerted');
    },
  },
  {
    // group.intake_drop: yesterday's water and feed per head against the group's 7-day median (farm time).
    name: 'alerts.intake',
    everyMs: () => 3_600_000,
    timeoutMs: 600_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const result = await checkIntake(database.db, Date.now());
      if (result.opened > 0 || result.resolved > 0) log.info(result, 'group intake judged');
    },
  },
  {
    // FARMSTEAD_WEBHOOK_RETENTION_DAYS (30): delivered webhook history older than that goes, in batches.
    name: 'webhooks.retention',
    everyMs: () => 3_600_000,
    timeoutMs: 1_800_000,
    attempts: 2,
    run: async ({ database, config, log, signal }) => {
      const result = await pruneWebhookHistory(database.db, Date.now(), config.webhookRetentionDays, {
        signal,
      });
      if (result.deletedEvents > 0) log.info(result, 'old webhook history pruned');
    },
  },
  {
    // Notifications settled longer ago than FARMSTEAD_WEBHOOK_RETENTION_DAYS, and expired acknowledge tokens.
    name: 'notifications.retention',
    everyMs: () => 3_600_000,
    timeoutMs: 300_000,
    attempts: 3,
    run: async ({ database, config, log }) => {
      const result = await pruneNotificationHistory(database.db, Date.now(), config.webhookRetentionDays);
      if (result.notifications + result.tokens > 0) log.info(result, 'old notifications pruned');
    },
  },
  {
    // Idempotency keys are remembered 24 hours; then a retry with the same key runs as a new request.
    name: 'idempotency.prune',
    everyMs: () => 600_000,
    timeoutMs: 60_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await pruneIdempotencyKeys(database.db, Date.now());
      if (deleted > 0) log.debug({ deleted }, 'expired idempotency keys removed');
    },
  },
  {
    // MQTT reports' idempotence keys (an external broker's redeliveries) are kept an hour.
    name: 'mqtt.prune',
    everyMs: () => 600_000,
    timeoutMs: 60_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await pruneMqttReportKeys(database.db, Date.now());
      if (deleted > 0) log.debug({ deleted }, 'old MQTT report keys removed');
    },
  },
  {
    // Console sessions past 30 days idle, expired setup links and forgotten sign-in failures.
    name: 'people.prune',
    everyMs: () => 3_600_000,
    timeoutMs: 60_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await prunePeopleBookkeeping(database.db, Date.now());
      if (deleted.sessions + deleted.links + deleted.failures > 0)
        log.debug(deleted, 'people bookkeeping pruned');
    },
  },
  {
    // OAuth for MCP connectors: expired codes and tokens, grants left with neither, stale unused documents.
    name: 'oauth.prune',
    everyMs: () => 3_600_000,
    timeoutMs: 60_000,
    attempts: 3,
    run: async ({ database, log }) => {
      const deleted = await pruneOAuth(database.db, Date.now());
      if (deleted.codes + deleted.tokens + deleted.grants + deleted.documents > 0)
        log.debug(deleted, 'OAuth bookkeeping pruned');
    },
  },
  {
    // PostgreSQL: the coming months' readings partitions exist before readings arrive for them.
    name: 'readings.partitions',
    everyMs: () => 6 * 3_600_000,
    timeoutMs: 120_000,
    attempts: 3,
    enabled: (config) => config.databaseUrl !== null,
    run: async ({ database }) => {
      await ensureReadingPartitions(database.db, Date.now());
    },
  },
  {
    // FARMSTEAD_READINGS_RETENTION_DAYS: raw readings older than that go (whole months, then batches), and
    // device positions as old.
    name: 'readings.retention',
    everyMs: () => 3_600_000,
    timeoutMs: 1_800_000,
    attempts: 2,
    enabled: (config) => config.readingsRetentionDays !== null,
    run: async ({ database, config, log, signal }) => {
      const cutoff = retentionCutoff(config.readingsRetentionDays, Date.now());
      if (cutoff === null) return;
      const result = await removeOldReadings(database.db, cutoff, { signal });
      if (result.droppedPartitions.length > 0 || result.deletedRows > 0)
        log.info(result, 'old readings removed');
      // Device positions follow the readings' setting (docs/map.md).
      const positions = await removeOldPositions(database.db, cutoff, { signal });
      if (positions > 0) log.info({ deletedRows: positions }, 'old device positions removed');
    },
  },
];
