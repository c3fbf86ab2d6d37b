/**
 * Every Prometheus metric Farmstead exports, defined once. Services count with one-line calls
 * (`metrics.readingsIngested.inc(n)`); the scrape (modules/metrics) adds the values read from the database.
 * In lib/ because every layer counts: the database (query times), HTTP (requests) and the services.
 * One registry per process: counters are process totals, as Prometheus expects (it sums across processes).
 * Counts taken inside a transaction are taken when the work is done, before commit: a rolled-back report
 * is rare (it fails with an error) and is counted in the HTTP error rate anyway.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

// Event-loop lag, heap and RSS, CPU, handles: prom-client's standard process metrics.
collectDefaultMetrics({ register: registry });

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  httpRequests: new Counter({
    name: 'farmstead_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'farmstead_http_request_duration_seconds',
    help: 'Time from request received to response sent, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: SECONDS,
    registers: [registry],
  }),
  readingsIngested: new Counter({
    name: 'farmstead_readings_ingested_total',
    help: 'Readings stored from device reports.',
    registers: [registry],
  }),
  reports: new Counter({
    name: 'farmstead_device_reports_total',
    help: 'Device reports accepted, by transport (http, mqtt; sample: sample farms seeded or reset).',
    labelNames: ['transport'] as const,
    registers: [registry],
  }),
  alertsOpened: new Counter({
    name: 'farmstead_alerts_opened_total',
    help: 'Alerts opened, by rule and severity.',
    labelNames: ['rule', 'severity'] as const,
    registers: [registry],
  }),
  alertsResolved: new Counter({
    name: 'farmstead_alerts_resolved_total',
    help: 'Alerts resolved (by the engine or by a person), by rule and severity.',
    labelNames: ['rule', 'severity'] as const,
    registers: [registry],
  }),
  commands: new Counter({
    name: 'farmstead_commands_total',
    help: 'Device commands entering a status (queued, delivered, succeeded, failed, expired…).',
    labelNames: ['status'] as const,
    registers: [registry],
  }),
  webhookDeliveries: new Counter({
    name: 'farmstead_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, retrying, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  deliveryOutcomes: new Counter({
    name: 'farmstead_delivery_outcomes_total',
    help: 'Settled attempts of the delivery queue (db/delivery-queue.ts), by queue (webhooks, notifications, downlinks) and outcome (succeeded, retrying, failed, expired, skipped).',
    labelNames: ['queue', 'outcome'] as const,
    registers: [registry],
  }),
  webhookPending: new Gauge({
    name: 'farmstead_webhook_deliveries_pending',
    help: 'Webhook deliveries waiting to be sent (read from the database on scrape).',
    registers: [registry],
  }),
  webhookOldestAge: new Gauge({
    name: 'farmstead_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery or undispatched outbox event, 0 when none (read on scrape).',
    registers: [registry],
  }),
  outboxPending: new Gauge({
    name: 'farmstead_outbox_undispatched',
    help: 'Outbox events not yet fanned out to webhook deliveries (read on scrape).',
    registers: [registry],
  }),
  dbQueries: new Histogram({
    name: 'farmstead_db_query_duration_seconds',
    help: 'Database query time, by engine and outcome (ok, error).',
    labelNames: ['engine', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  }),
  dbPool: new Gauge({
    name: 'farmstead_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting requests); SQLite has one connection.',
    labelNames: ['state'] as const,
    registers: [registry],
  }),
  readCache: new Counter({
    name: 'farmstead_read_cache_total',
    help: 'Cacheable reads (records, lists, house views, the brief) answered from the read cache (hit), from a read another request had under way (shared) or afresh (miss).',
    labelNames: ['result'] as const,
    registers: [registry],
  }),
};

export type ReportTransport = 'http' | 'mqtt' | 'sample' | 'lorawan';

/** One accepted device report and the readings it stored. */
export function countReport(transport: ReportTransport, readings: number): void {
  metrics.reports.inc({ transport });
  if (readings > 0) metrics.readingsIngested.inc(readings);
}
