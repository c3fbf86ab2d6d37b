/**
 * The broker's subscriptions index: mqemitter (aedes's message router) with the filters that have no
 * wildcard in one Map keyed by the whole filter, and only the others in its topic trie (qlobber).
 *
 * Every device subscribes to its own topics by name (`farmstead/devices/{id}/commands`, `…/report/result`).
 * In the trie each of those is a `Map` per topic level below the device's own level, about 700 bytes a
 * device; in the Map it is one entry, about 100. An exact filter matches exactly the topic spelled the same,
 * so the two answer alike: what a message reaches is the trie's matches plus the Map's entry for its topic.
 * Wildcard filters (`+`, `#`, aedes's own `$SYS/+/…`) stay in the trie.
 */
import mqemitter, { type MQEmitter } from 'mqemitter';

type Listener = Parameters<MQEmitter['on']>[1];

/** The matcher mqemitter calls (qlobber's add/remove/match); `remove` without a listener removes them all. */
interface Matcher {
  add(filter: string, listener: Listener): unknown;
  remove(filter: string, listener?: Listener): unknown;
  match(topic: string): Listener[];
}

/** A filter that cannot hold a wildcard level; anything else (a literal `+` in a word too) goes to the trie. */
function isExact(filter: string): boolean {
  return !filter.includes('+') && !filter.includes('#');
}

export class ExactFirstMatcher implements Matcher {
  private readonly exact = new Map<string, Listener[]>();
  private readonly trie: Matcher;

  constructor(trie: Matcher) {
    this.trie = trie;
  }

  add(filter: string, listener: Listener): this {
    if (!isExact(filter)) {
      this.trie.add(filter, listener);
      return this;
    }
    const listeners = this.exact.get(filter);
    if (listeners) listeners.push(listener);
    else this.exact.set(filter, [listener]);
    return this;
  }

  /** As qlobber: one listener's last entry, or with no listener every entry of the filter. */
  remove(filter: string, listener?: Listener): this {
    if (!isExact(filter)) {
      this.trie.remove(filter, listener);
      return this;
    }
    const listeners = this.exact.get(filter);
    if (!listeners) return this;
    if (listener !== undefined) {
      const at = listeners.lastIndexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
    }
    if (listener === undefined || listeners.length === 0) this.exact.delete(filter);
    return this;
  }

  match(topic: string): Listener[] {
    const found = this.trie.match(topic);
    const listeners = this.exact.get(topic);
    if (listeners) for (const listener of listeners) found.push(listener);
    return found;
  }

  /** Exact filters held (for tests). */
  get exactFilters(): number {
    return this.exact.size;
  }
}

/** The emitter aedes is given (`mq`): mqemitter as aedes makes it by default, with the lighter index. */
export function createSubscriptions(concurrency: number): MQEmitter {
  const emitter = mqemitter({ concurrency, matchEmptyLevels: true });
  const internals = emitter as unknown as { _matcher: Matcher };
  internals._matcher = new ExactFirstMatcher(internals._matcher);
  return emitter;
}
