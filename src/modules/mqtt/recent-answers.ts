/**
 * The answers to each client's last QoS 1 messages, by message id. MQTT resends a QoS 1 message whose PUBACK
 * was lost with DUP set and the same id: found here, it is answered again and not stored again. A client may
 * reuse an id once a message is acknowledged, which is why only DUP messages look here.
 */
const IDS_PER_CLIENT = 64;
const CLIENTS = 10_000;

export class RecentAnswers {
  private readonly byClient = new Map<string, Map<number, unknown>>();

  get(clientId: string, messageId: number): unknown {
    return this.byClient.get(clientId)?.get(messageId);
  }

  set(clientId: string, messageId: number, answer: unknown): void {
    // Maps keep insertion order: re-inserting makes an entry the newest, so the oldest go first.
    const ids = this.byClient.get(clientId) ?? new Map<number, unknown>();
    this.byClient.delete(clientId);
    this.byClient.set(clientId, ids);
    ids.delete(messageId);
    ids.set(messageId, answer);
    if (ids.size > IDS_PER_CLIENT) ids.delete(ids.keys().next().value as number);
    if (this.byClient.size > CLIENTS) this.byClient.delete(this.byClient.keys().next().value as string);
  }
}
