// Helpers of the conformance tests: raw clients, the real server, ID normalization.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { inject } from 'vitest';
import type { RedisVersion } from '../src/index.js';
import type {} from '@respire/harness/global-setup'; // the ProvidedContext keys inject() reads

/** A raw-command client: node-redis v6 (RESP3) or v5 (RESP2). */
export interface RawClient {
  readonly protocol: 2 | 3;
  send(args: readonly (string | Buffer)[]): Promise<unknown>;
  /** Sends and captures an error reply as `{ error: message }`. */
  capture(args: readonly (string | Buffer)[]): Promise<unknown>;
  readonly client: unknown;
  close(): void;
}

export async function connect(url: string, protocol: 2 | 3): Promise<RawClient> {
  const client = protocol === 3 ? createClient({ url }) : createClientV5({ url });
  client.on('error', () => {});
  await client.connect();
  const send = (args: readonly (string | Buffer)[]) => client.sendCommand([...args]) as Promise<unknown>;
  return {
    protocol,
    client,
    send,
    capture: async (args) => {
      try {
        return await send(args);
      } catch (error) {
        return { error: (error as Error).message };
      }
    },
    close: () => client.destroy(),
  };
}

/** The private real server of this run (never any other). */
export function realUrl(): string {
  return inject('redisUrl');
}

/** The fake's version model that matches the real server of this run (`7.0.15` → `'7.0'`). */
export function matchingModel(): RedisVersion {
  const [major, minor] = inject('redisVersion').split('.');
  const version = `${major}.${minor}`;
  const known: RedisVersion[] = ['6.2', '7.0', '7.2', '8.2', '8.4', '8.6', '8.8'];
  if (!known.includes(version as RedisVersion)) throw new Error(`no fake model for real Redis ${inject('redisVersion')}`);
  return version as RedisVersion;
}

/** A key prefix no other test uses. */
export function uniquePrefix(label: string): string {
  return `t:${label}:${randomBytes(4).toString('hex')}`;
}

export { sleep } from '@respire/harness';

/**
 * Replaces generated stream IDs (`<13 digits>-<n>`) and ms timestamps by stable placeholders in
 * order of first appearance, so replies of two servers compare.
 */
export function normalizeIds(value: unknown, seen = new Map<string, string>()): unknown {
  if (typeof value === 'string') {
    return value.replace(/\b\d{12,14}-\d+\b/g, (id) => {
      if (!seen.has(id)) seen.set(id, `<id${seen.size + 1}>`);
      return seen.get(id)!;
    });
  }
  if (Array.isArray(value)) return value.map((v) => normalizeIds(v, seen));
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [normalizeIds(k, seen), normalizeIds(v, seen)]));
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [normalizeIds(k, seen) as string, normalizeIds(v, seen)]));
  }
  return value;
}
