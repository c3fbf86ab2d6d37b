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
 *
 * Both reach into the two libraries' unexported fields (`_parser`, `_list`, `settings`), which the pinned
 * versions in package-lock.json have; lean-connection.test.ts fails if an upgrade renames them, and the
 * MQTT tests (packets split into single bytes, MQTT 5 properties after the login) if the parser stops
 * working with the lighter list.
 */
import { BufferList } from 'bl';

/** The parts of aedes's client that are touched here (none of them in aedes's types). */
interface ClientInternals {
  _parser?: {
    _list?: { length: number };
    settings?: { protocolVersion?: number; bridgeMode?: boolean };
  };
}

/** On a new connection, before its first byte is read: the parser's buffer list without the stream. */
export function lightenParser(client: unknown): void {
  const parser = (client as ClientInternals)._parser;
  if (parser?._list && parser._list.length === 0) parser._list = new BufferList();
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
