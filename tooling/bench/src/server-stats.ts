// What a server says about itself (CPU, commands), read before and after a scenario.
/** What the server says about itself, read before and after a scenario. */
export interface ServerSample {
  /** used_cpu_user + used_cpu_sys, µs. */
  readonly cpuUs: number;
  /** Total command calls from INFO commandstats (commands run inside scripts included). */
  readonly commandCalls: number;
  /** Calls per command name (lowercase). */
  readonly calls: ReadonlyMap<string, number>;
  /** used_memory, bytes. */
  readonly usedMemory: number;
}

type Raw = { sendCommand(args: string[]): Promise<unknown> };

export async function sampleServer(client: Raw): Promise<ServerSample> {
  const info = String(await client.sendCommand(['INFO', 'ALL']));
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  return {
    cpuUs: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6,
    commandCalls: [...calls.values()].reduce((a, b) => a + b, 0),
    calls,
    usedMemory: field('used_memory'),
  };
}

/** after − before, with the INFO calls themselves left out. */
export function delta(before: ServerSample, after: ServerSample) {
  const calls = new Map<string, number>();
  for (const [name, n] of after.calls) {
    const d = n - (before.calls.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (d > 0) calls.set(name, d);
  }
  return {
    cpuUs: after.cpuUs - before.cpuUs,
    commandCalls: [...calls.values()].reduce((a, b) => a + b, 0),
    calls,
    usedMemory: after.usedMemory - before.usedMemory,
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `task` for every item with at most `window` in flight (node-redis pipelines them). */
export async function pooled<T>(items: number, window: number, task: (index: number) => Promise<T>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(window, items) }, async () => {
    while (next < items) await task(next++);
  });
  await Promise.all(lanes);
}
