// A stream entry as handlers and deserializers see it: ID, delivery count and the entry's own field bytes.
/**
 * One stream entry as a handler or deserializer sees it. Field names and values are the entry's
 * own bytes (Buffers owned by this entry), in stream order; duplicates are kept.
 */
export interface StreamEntry {
  /** The entry ID, e.g. `1700000000000-0`. */
  readonly id: string;
  /** The field/value pairs in stream order, as bytes. */
  readonly fields: readonly (readonly [Buffer, Buffer])[];
  /**
   * The Redis delivery count of this delivery (1 for a first read; incremented by every claim,
   * startup replay and recovery); README "Delivery limits and dead letters".
   */
  readonly deliveryCount: number;
  /** The value of the first field named `name`, or `undefined`. */
  get(name: string): Buffer | undefined;
  /** The value of the first field named `name` decoded as UTF-8, or `undefined`. */
  getString(name: string): string | undefined;
}

/** An entry with its methods on the prototype: no closures per delivery. */
class Entry implements StreamEntry {
  readonly id: string;
  readonly fields: readonly (readonly [Buffer, Buffer])[];
  readonly deliveryCount: number;

  constructor(id: string, fields: readonly (readonly [Buffer, Buffer])[], deliveryCount: number) {
    this.id = id;
    this.fields = fields;
    this.deliveryCount = deliveryCount;
  }

  get(name: string): Buffer | undefined {
    for (const [field, value] of this.fields) if (field.toString() === name) return value;
    return undefined;
  }

  getString(name: string): string | undefined {
    return this.get(name)?.toString('utf8');
  }
}

/** @internal Builds an entry from a raw `[id, [f, v, f, v, ...]]` reply element. */
export function toEntry(id: string, flat: readonly Buffer[], deliveryCount: number): StreamEntry {
  const fields: (readonly [Buffer, Buffer])[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) fields.push([flat[i]!, flat[i + 1]!] as const);
  return new Entry(id, fields, deliveryCount);
}
