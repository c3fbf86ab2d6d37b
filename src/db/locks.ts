/**
 * Every PostgreSQL advisory lock key the service takes, in one list so two jobs never share a key by accident.
 * SQLite needs none: its write transactions begin IMMEDIATE and so are exclusive.
 */
export const ADVISORY_LOCK = {
  /** Creating the first account (accounts/repository.ts): one at a time across processes. */
  firstAccount: 727_001,
  /** Creating and dropping readings partitions (readings/retention.ts). */
  readingPartitions: 7_146_001,
  /** Pruning readings past their retention (readings/retention.ts). */
  readingRetention: 7_146_002,
  /** Pruning old webhook deliveries and outbox rows (webhooks/retention.ts). */
  webhookRetention: 7_146_101,
  /** The device.quiet pass (alerts/quiet.ts), and settings changes that must wait for it. */
  quietPass: 7_146_201,
  /** The group.intake_drop pass (alerts/intake.ts), and settings changes that must wait for it. */
  intakePass: 7_146_202,
} as const;
