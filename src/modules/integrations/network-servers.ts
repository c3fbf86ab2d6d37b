/**
 * The network servers an integration can speak to: one adapter each (network-server.ts's contract), one
 * line here. An integration's `type` is a name of this registry; the API's enum and descriptions and every
 * branch on the server come from it. Adding a server is its adapter's file, its line here and its docs
 * (docs/lorawan.md, "Network servers are adapters"; the console then asks for its label and set-up steps).
 */
import { AppError } from '../../domain/errors.ts';
import { chirpstack } from './chirpstack.ts';
import type { NetworkServer } from './network-server.ts';
import { theThingsStack } from './ttn.ts';

export const NETWORK_SERVERS = {
  chirpstack,
  ttn: theThingsStack,
} as const satisfies Record<string, NetworkServer>;

export type NetworkServerName = keyof typeof NETWORK_SERVERS;

export const NETWORK_SERVER_NAMES = Object.keys(NETWORK_SERVERS) as NetworkServerName[];

/** An integration's stored type (the database keeps it as text) as the registry's name. */
export function networkServerName(type: string): NetworkServerName {
  if (!Object.hasOwn(NETWORK_SERVERS, type)) {
    // Only a row written by another version could hold it: the API accepts the registry's names alone.
    throw new AppError('internal_error', `The integration's type "${type}" is not a known network server.`);
  }
  return type as NetworkServerName;
}

/** The adapter of an integration's stored type. */
export function networkServer(type: string): NetworkServer {
  return NETWORK_SERVERS[networkServerName(type)];
}
