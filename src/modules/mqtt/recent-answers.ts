/**
 * The answers to clients' last QoS 1 messages, by client and message id. MQTT resends a QoS 1 message whose
 * PUBACK was lost with DUP set and the same id: found here, it is answered again and not stored again. A
 * client may reuse an id once a message is acknowledged, which is why only DUP messages look here.
 *
 * One bound for the whole process, not one per client: a resend follows its reconnection within seconds,
 * so the newest ENTRIES answers of all devices are what is needed, and the memory no longer grows with
 * devices × messages. Answers are kept as the JSON they were published as, not as objects. (It was 64
 * answer objects per client for 10,000 clients: at 10,000 devices reporting every minute it grew past the
 * 256 MB heap within the hour, and a burst of 2,000 reports a second ended the process; BENCHMARKS.md.)
 */
const ENTRIES = 50_000;

export class RecentAnswers {
  private readonly answers = new Map<string, string>();
  private readonly limit: number;

  constructor(limit = ENTRIES) {
    this.limit = limit;
  }

  get(clientId: string, messageId: number): string | undefined {
    return this.answers.get(`${clientId} ${messageId}`);
  }

  set(clientId: string, messageId: number, json: string): void {
    const key = `${clientId} ${messageId}`;
    // Maps keep insertion order: re-inserting makes an entry the newest, so the oldest go first.
    this.answers.delete(key);
    this.answers.set(key, json);
    if (this.answers.size > this.limit) this.answers.delete(this.answers.keys().next().value as string);
  }
}
