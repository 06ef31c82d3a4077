// A grouped queue's send coalescer: the sends issued in one turn of the event loop go out as one batch call.

/** Sends one batch; one result per item, in order. */
export type SendBatchCall<I, R> = (items: readonly I[]) => Promise<readonly R[]>;

interface Waiting<R> {
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Collects items until the scheduled flush (by default `process.nextTick`: after the promise
 * continuations of the current turn, so sends issued together go out together and a lone send
 * waits for no timer), or until the batch would pass `maxItems` items or `maxBytes` bytes, then
 * sends them as one call. Batches go out in the order their items were added, each item in its
 * batch in the order it was added, so the server applies the items in add order (one connection
 * keeps its commands in order). Each item's promise gets its own result; when the batch's call
 * fails, every item of that batch rejects with that error (the call ran entirely or not at all).
 */
export class SendCoalescer<I, R> {
  readonly #send: SendBatchCall<I, R>;
  readonly #maxItems: number;
  readonly #maxBytes: number;
  readonly #schedule: (flush: () => void) => void;
  #items: I[] = [];
  #waiting: Waiting<R>[] = [];
  #bytes = 0;
  #scheduled = false;

  /**
   * @param maxItems - most items per call (1..1000, sendMany's limit).
   * @param maxBytes - most bytes per call; an item larger than this goes alone.
   * @param schedule - runs the flush later; tests pass their own to flush without a clock.
   */
  constructor(send: SendBatchCall<I, R>, maxItems: number, maxBytes: number, schedule: (flush: () => void) => void = (flush) => process.nextTick(flush)) {
    this.#send = send;
    this.#maxItems = maxItems;
    this.#maxBytes = maxBytes;
    this.#schedule = schedule;
  }

  /** Items waiting for the next flush. */
  get pending(): number {
    return this.#items.length;
  }

  /** Adds one item of `bytes` bytes; resolves with its own result, or rejects with its batch's error. */
  add(item: I, bytes: number): Promise<R> {
    if (this.#items.length > 0 && this.#bytes + bytes > this.#maxBytes) this.flush();
    const result = new Promise<R>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#items.push(item);
    this.#bytes += bytes;
    if (this.#items.length >= this.#maxItems) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => {
        this.#scheduled = false;
        this.flush();
      });
    }
    return result;
  }

  /** Sends the waiting items now (nothing when none wait); the call is issued before this returns. */
  flush(): void {
    if (this.#items.length === 0) return;
    const items = this.#items;
    const waiting = this.#waiting;
    this.#items = [];
    this.#waiting = [];
    this.#bytes = 0;
    let call: Promise<readonly R[]>;
    try {
      call = this.#send(items);
    } catch (error) {
      call = Promise.reject(error);
    }
    call.then(
      (results) => {
        waiting.forEach((w, index) => w.resolve(results[index]!));
      },
      (error: unknown) => {
        for (const w of waiting) w.reject(error);
      },
    );
  }
}
