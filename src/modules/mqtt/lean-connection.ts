/**
 * What aedes and mqtt-packet keep for every open connection that a device never needs again. At 10,000
 * connected devices each byte a connection holds is 10 KB of the process (issue 48's 320 MB, BENCHMARKS.md):
 *
 * - mqtt-packet's parser buffers the bytes of a packet not yet whole in a `bl` BufferListStream: a whole
 *   Duplex stream (a readable and a writable state, listeners) per connection, about 900 bytes, of which
 *   the parser only calls the buffer-list methods (append, consume, slice, read…). `bl`'s own BufferList has
 *   exactly those, in about 80 bytes.
 * - The parser keeps the CONNECT packet as its settings for the connection's life (username, password, will,
 *   properties): after the login only the protocol version (and the bridge flag) is read again.
 * - aedes gives every connection a `Map` for MQTT 5 topic aliases (about 140 bytes), which devices on
 *   MQTT 3.1.1, and most on 5, never use: here the map is made on the first alias a device sets.
 *
 * All three reach into the two libraries' unexported fields (`_parser`, `_list`, `settings`,
 * `_topicAliases`), which the pinned versions in package-lock.json have; lean-connection.test.ts fails if an
 * upgrade renames them, or if the parser stops reading packets split into single bytes, MQTT 5 properties
 * after the login or topic aliases with the lighter parts.
 */
import { BufferList } from 'bl';

/** The parts of aedes's client that are touched here (none of them in aedes's types). */
interface ClientInternals {
  _topicAliases?: Pick<Map<number, string>, 'get' | 'set'>;
  _parser?: {
    _list?: { length: number };
    settings?: { protocolVersion?: number; bridgeMode?: boolean };
  };
}

/** A connection's topic aliases (alias → topic, as aedes reads and writes them), the map made on first use. */
class TopicAliases {
  private map: Map<number, string> | undefined;

  get(alias: number): string | undefined {
    return this.map?.get(alias);
  }

  set(alias: number, topic: string): Map<number, string> {
    this.map ??= new Map();
    return this.map.set(alias, topic);
  }
}

/**
 * On a new connection, before its first byte is read: the parser's buffer list without the stream, and the
 * topic-alias map left until a device sets an alias.
 */
export function lightenConnection(client: unknown): void {
  const internals = client as ClientInternals;
  const parser = internals._parser;
  if (parser?._list && parser._list.length === 0) parser._list = new BufferList();
  if (internals._topicAliases instanceof Map && internals._topicAliases.size === 0) {
    internals._topicAliases = new TopicAliases();
  }
}

/** Once the device is logged in: the parser forgets the CONNECT packet, keeping what it reads again. */
export function forgetConnectPacket(client: unknown): void {
  const parser = (client as ClientInternals)._parser;
  const settings = parser?.settings;
  if (!parser || !settings) return;
  parser.settings = {
    protocolVersion: settings.protocolVersion,
    ...(settings.bridgeMode ? { bridgeMode: true } : {}),
  };
}
