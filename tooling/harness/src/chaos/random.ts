// Seeded pseudo-random numbers for the chaos suites: every random choice comes from one printed seed.

/** splitmix32 over a string: a well-mixed 32-bit state for a seed and a stream label. */
function hash32(text: string): number {
  let h = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x85ebca6b);
    h ^= h >>> 13;
  }
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A small, fast, seeded generator (sfc32) with the helpers the chaos suites need. The same seed
 * gives the same sequence on every machine and Node version.
 *
 * Independent decisions draw from independent streams ({@link SeededRandom.fork}): the producer,
 * the fault schedule and each process's configuration each have their own, so a decision taken
 * earlier or later in one (timing varies from run to run) never shifts the others. A repeated seed
 * therefore repeats the plan (entries, faults, configurations), though not the interleaving the
 * machine's timing produces.
 */
export class SeededRandom {
  readonly seed: number;
  readonly label: string;
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number, label = '') {
    this.seed = seed >>> 0;
    this.label = label;
    this.#a = hash32(`${this.seed}:a:${label}`);
    this.#b = hash32(`${this.seed}:b:${label}`);
    this.#c = hash32(`${this.seed}:c:${label}`);
    this.#d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A number in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('SeededRandom.pick: no items');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the choices, with probability proportional to its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [value, weight] of choices) {
      if (at < weight) return value;
      at -= weight;
    }
    return choices[choices.length - 1]![0];
  }

  /** An exponentially distributed wait with mean `mean` (the gaps of a Poisson process), capped at `max`. */
  exponential(mean: number, max = mean * 5): number {
    return Math.min(max, -Math.log(1 - this.next()) * mean);
  }

  /** An independent stream for one kind of decision, derived from this seed and `label`. */
  fork(label: string): SeededRandom {
    return new SeededRandom(this.seed, this.label === '' ? label : `${this.label}/${label}`);
  }
}
