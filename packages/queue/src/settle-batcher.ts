// consume()'s settlement batcher: the ACKs (and NACKs of one delay) of handlers that finish close together go out as one ackMany / nackMany.

/** What a consumer asks of one message: acknowledge it, or NACK it with a delay (ms). */
export type Settlement = { readonly action: 'ack' } | { readonly action: 'nack'; readonly delayMs: number };

/**
 * How one message's settlement ended, never a rejection: `settled` is the per-item boolean of
 * ackMany / nackMany (false: the lease was gone); `error` is what the whole batch's call threw,
 * with the message's `index` in that batch (a `NOT_DURABLE` error's reply holds one result per index).
 */
export type SettleOutcome = { readonly ok: true; readonly settled: boolean } | { readonly ok: false; readonly error: unknown; readonly index: number };

/** Sends one batch: ackMany, or nackMany with the delay; one boolean per message, in order. */
export type SendBatch<M> = (settlement: Settlement, messages: readonly M[]) => Promise<readonly boolean[]>;

interface Pending<M> {
  readonly settlement: Settlement;
  readonly messages: M[];
  readonly resolves: ((outcome: SettleOutcome) => void)[];
}

/**
 * Collects settlements until the scheduled flush (by default `setImmediate`: the end of the
 * current turn of the event loop, so an idle consumer adds no timer latency) or until a batch
 * holds `maxBatch` messages, then sends each kind (ACK; NACK per delay) as one call.
 */
export class SettleBatcher<M> {
  readonly #send: SendBatch<M>;
  readonly #maxBatch: number;
  readonly #schedule: (flush: () => void) => void;
  readonly #pending = new Map<string, Pending<M>>();
  readonly #inFlight = new Set<Promise<void>>();
  #scheduled = false;

  /**
   * @param maxBatch - most messages per call (1..1000, ackMany's limit).
   * @param schedule - runs the flush later; tests pass their own to flush without a clock.
   */
  constructor(send: SendBatch<M>, maxBatch: number, schedule: (flush: () => void) => void = (flush) => void setImmediate(flush)) {
    this.#send = send;
    this.#maxBatch = maxBatch;
    this.#schedule = schedule;
  }

  /** Messages waiting for the next flush. */
  get pending(): number {
    let count = 0;
    for (const batch of this.#pending.values()) count += batch.messages.length;
    return count;
  }

  /** Queues one message's settlement; the promise says how its batch's call ended and never rejects. */
  settle(message: M, settlement: Settlement): Promise<SettleOutcome> {
    const key = settlement.action === 'ack' ? 'ack' : `nack:${settlement.delayMs}`;
    let batch = this.#pending.get(key);
    if (batch === undefined) {
      batch = { settlement, messages: [], resolves: [] };
      this.#pending.set(key, batch);
    }
    const outcome = new Promise<SettleOutcome>((resolve) => batch.resolves.push(resolve));
    batch.messages.push(message);
    if (batch.messages.length >= this.#maxBatch) {
      this.#pending.delete(key);
      this.#dispatch(batch);
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => this.flush());
    }
    return outcome;
  }

  /** Sends every waiting batch now. */
  flush(): void {
    this.#scheduled = false;
    const batches = [...this.#pending.values()];
    this.#pending.clear();
    for (const batch of batches) this.#dispatch(batch);
  }

  /** Flushes, then resolves when every batch sent so far has its reply (or its error). */
  async idle(): Promise<void> {
    this.flush();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #dispatch(batch: Pending<M>): void {
    const call = (async () => {
      try {
        const results = await this.#send(batch.settlement, batch.messages);
        batch.resolves.forEach((resolve, index) => resolve({ ok: true, settled: results[index] === true }));
      } catch (error) {
        batch.resolves.forEach((resolve, index) => resolve({ ok: false, error, index }));
      }
    })();
    this.#inFlight.add(call);
    void call.finally(() => this.#inFlight.delete(call));
  }
}
