/**
 * The notification channels' adapters, one per name of src/domain/notification-channels.ts (the compiler
 * holds the two to the same names). A new channel: its adapter file here, its line below and in the domain's
 * list, and its docs.
 */
import type { NotificationChannel } from '../../../domain/notification-channels.ts';
import { emailChannel } from './email.ts';
import { ntfyChannel } from './ntfy.ts';
import { pushChannel } from './push.ts';
import type { ChannelAdapter, ChannelTarget } from './types.ts';

export const CHANNELS = {
  push: pushChannel,
  email: emailChannel,
  ntfy: ntfyChannel,
} as const satisfies { [C in NotificationChannel]: ChannelAdapter };

export function channel(name: NotificationChannel): ChannelAdapter {
  return CHANNELS[name];
}

/** The channels whose set-up a person gives themselves, for every farm (ntfy's topic). */
export type TargetChannel = {
  [C in NotificationChannel]: (typeof CHANNELS)[C] extends { target: ChannelTarget } ? C : never;
}[NotificationChannel];

export const TARGET_CHANNELS = (Object.keys(CHANNELS) as NotificationChannel[]).filter(
  (name): name is TargetChannel => channel(name).target !== undefined,
);
