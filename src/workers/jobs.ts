/**
 * The catalog of background jobs the server (and `cli worker`) runs. Each entry names its schedule;
 * the work itself lives in the owning module's service, so tests can call it directly.
 */
import { expireDueCommands } from '../modules/commands/service.ts';
import type { PeriodicJob } from './runner.ts';
import { webhookDeliveryJob } from './webhook-delivery.ts';

export const JOBS: readonly PeriodicJob[] = [
  {
    // Commands still queued or delivered past expires_at become failed ("expired").
    name: 'commands.expire',
    everyMs: () => 30_000,
    run: async ({ database }) => {
      await expireDueCommands(database.db, Date.now());
    },
  },
  webhookDeliveryJob,
];
