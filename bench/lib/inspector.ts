/**
 * A session with a bench server's inspector (a server started with `--inspect=127.0.0.1:<port>`): calls
 * answered in turn, other messages to `onEvent`. `bench/broker-memory.ts` reads V8's figures and takes heap
 * snapshots through it; both it and `bench/server-cpu.ts` sample allocations with `sampleAllocations`.
 */
import { writeFileSync } from 'node:fs';

export interface InspectorSession {
  call(method: string, params: object): Promise<unknown>;
  close(): void;
}

/** Opens a session with the first target of the inspector on `port`. */
export async function openSession(
  port: number,
  onEvent?: (m: { method: string; params: unknown }) => void,
): Promise<InspectorSession> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(list[0]?.webSocketDebuggerUrl ?? '');
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  const waiting = new Map<number, (result: unknown) => void>();
  let next = 1;
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const answer = waiting.get(message.id);
    if (answer) answer(message.result);
    else onEvent?.(message);
  });
  return {
    call(method: string, params: object): Promise<unknown> {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => ws.close(),
  };
}

/**
 * Starts sampling every allocation of the server on `port`, the objects collected since kept (what fills the
 * young generation counts, not only what lives); `stop()` writes the profile to `file` for
 * `bench/lib/allocations.ts`.
 */
export async function sampleAllocations(port: number, file: string): Promise<{ stop(): Promise<void> }> {
  const session = await openSession(port);
  await session.call('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop() {
      const { profile } = (await session.call('HeapProfiler.stopSampling', {})) as { profile: unknown };
      session.close();
      writeFileSync(file, JSON.stringify(profile));
    },
  };
}
