/** What the notification route plugins share: their options, tag and the refusal of API keys. */
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/schema.ts';

export interface NotificationRouteOptions {
  db: Db;
  config: Readonly<Config>;
  clock: () => number;
}

export const tags = ['Notifications'];

export const PEOPLE_ONLY = {
  forbidden: 'Called with an API key: notifications belong to people signed in to the console.',
};
