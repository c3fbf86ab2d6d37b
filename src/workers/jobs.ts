/**
 * The catalog of background jobs the server (and `cli worker`) runs. Each entry names its schedule;
 * the work itself lives in the owning module's service, so tests can call it directly.
 */
import type { PeriodicJob } from './runner.ts';

export const JOBS: readonly PeriodicJob[] = [];
