/**
 * A scale indicator over Web Serial (the chute page, issue 47), where the browser has it (`'serial' in
 * navigator`: Chrome and Edge on a computer or Android with a USB serial cable; never Safari or Firefox).
 *
 * The lines come in when the indicator sends them (nothing is polled); each is read by
 * domain/indicator.ts.
 */
import { type Reading, readIndicatorLine } from '../../../domain/indicator.ts';
import { t } from './i18n.ts';

export type { Reading };

/** Web Serial as far as this file uses it (not in TypeScript's DOM library yet). */
interface SerialPortLike {
  open(options: { baudRate: number }): Promise<void>;
  close(): Promise<void>;
  readable: ReadableStream<Uint8Array> | null;
}
interface SerialLike {
  requestPort(): Promise<SerialPortLike>;
}

/** Whether this browser can read a scale over a serial cable. */
export function hasSerial(): boolean {
  return 'serial' in navigator;
}

/** The common indicators' default speed (9600 baud, 8 data bits, no parity, 1 stop bit). */
export const DEFAULT_BAUD = 9600;

/**
 * Asks the person to choose the indicator's port, then calls `onReading` with each weight it sends until
 * the returned function is called (or the cable is pulled: `onEnd`).
 */
export async function connectScale(
  onReading: (reading: Reading) => void,
  onEnd: (error: unknown) => void,
  baudRate = DEFAULT_BAUD,
): Promise<() => Promise<void>> {
  const serial = (navigator as unknown as { serial: SerialLike }).serial;
  const port = await serial.requestPort();
  await port.open({ baudRate });
  const reader = port.readable
    ?.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .getReader();
  if (!reader) throw new Error(t('scale.unreadable'));
  let stopped = false;
  void (async () => {
    let pending = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += value;
        const lines = pending.split(/\r\n|\r|\n/);
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const reading = readIndicatorLine(line);
          if (reading) onReading(reading);
        }
      }
      onEnd(null);
    } catch (err) {
      if (!stopped) onEnd(err);
    }
  })();
  return async () => {
    stopped = true;
    await reader.cancel().catch(() => {});
    await port.close().catch(() => {});
  };
}
