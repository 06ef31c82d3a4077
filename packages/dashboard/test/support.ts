// Shared helpers of the dashboard tests: worlds, fixtures, HTTP and a stub admin.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createClient, createCluster } from 'redis';
import { inject } from 'vitest';
import { RespireAdmin, type AdminApi, type AuditRecord, type RespireAdminOptions } from '@respire/admin';
import { bytesCodec, ReliableQueue, utf8Codec } from '@respire/queue';
import type {} from '@respire/harness/global-setup';
import { createDashboard, type Dashboard, type DashboardOptions, type Principal } from '../src/index.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<R>(check: () => Promise<R> | R, timeoutMs = 10_000, stepMs = 50): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}

/** Bearer tokens of the test users: an operator, a viewer, and a viewer that the guard limits. */
export const TOKENS = {
  operator: 'operator-token',
  viewer: 'viewer-token',
  limited: 'limited-token',
  broken: 'throws-token',
  badRole: 'bad-role-token',
} as const;
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The tests' `authorize`: a bearer token names the principal; `throws-token` makes it throw. */
export function testAuthorize(request: Request): Principal | null {
  const header = request.headers.get('authorization') ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  switch (token) {
    case TOKENS.operator:
      return { name: 'alice', role: 'operator' };
    case TOKENS.viewer:
      return { name: 'victor', role: 'viewer' };
    case TOKENS.limited:
      return { name: 'lena', role: 'operator' };
    case TOKENS.broken:
      throw new Error('identity provider unavailable');
    case TOKENS.badRole:
      return { name: 'mallory', role: 'admin' } as unknown as Principal;
    default:
      return null;
  }
}

type Raw = (key: string, args: (string | Buffer)[]) => Promise<unknown>;

export interface World {
  readonly url: string;
  /** Origin of the dashboard server, e.g. `http://127.0.0.1:1234`. */
  readonly origin: string;
  readonly base: string;
  readonly raw: Raw;
  readonly client: unknown;
  readonly admin: RespireAdmin;
  readonly dashboard: Dashboard;
  readonly audits: AuditRecord[];
  readonly tag: string;
  /** A queue (configured) and its resource id. */
  readonly queue: { name: string; id: string; deadKey: string };
  /** A worker stream with a dead-letter stream in the same slot, and its group. */
  readonly stream: { key: string; dead: string; id: string; group: string };
  close(): Promise<void>;
}

export interface WorldOptions {
  readonly cluster?: boolean;
  readonly dashboard?: Partial<DashboardOptions>;
  readonly admin?: RespireAdminOptions;
  /** Extra streams configured in the admin (after the world's own). */
  readonly extraStreams?: RespireAdminOptions['streams'];
  /** Key of the queue and stream: a fresh random tag by default. */
  readonly label?: string;
  /** A standalone server other than the harness's (e.g. the fake server). */
  readonly url?: string;
}

export const uniqueTag = (label = 't') => `${label}-${randomBytes(5).toString('hex')}`;

/**
 * A private world on the harness's Redis: one queue, one worker stream with its dead-letter
 * stream, the real RespireAdmin over them and the dashboard on a loopback port (node http).
 */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const tag = uniqueTag(options.label ?? 'w');
  let client: unknown;
  let raw: Raw;
  let destroy: () => void;
  if (options.cluster) {
    const cluster = createCluster({ rootNodes: inject('clusterUrls').map((url) => ({ url })) });
    cluster.on('error', () => {});
    await cluster.connect();
    client = cluster;
    raw = (key, args) => cluster.sendCommand(key, false, args);
    destroy = () => void cluster.destroy();
  } else {
    const single = createClient({ url: options.url ?? inject('redisUrl') });
    single.on('error', () => {});
    await single.connect();
    client = single;
    raw = (_key, args) => single.sendCommand(args);
    destroy = () => void single.destroy();
  }
  const queueName = `orders-${tag}`;
  // On a Cluster the worker stream deliberately lives in another slot than the queue.
  const streamKey = `{${tag}-events}:orders`;
  const deadKey = `{${tag}-events}:orders-dead`;
  const audits: AuditRecord[] = [];
  const admin = new RespireAdmin(client, {
    queues: [{ name: queueName }],
    streams: [{ stream: streamKey, deadLetterStream: deadKey, label: `orders ${tag}` }, ...(options.extraStreams ?? [])],
    audit: (record) => void audits.push(record),
    ...options.admin,
  });
  const base = options.dashboard?.basePath ?? '/ops/respire';
  const dashboard = createDashboard({ admin, authorize: testAuthorize, basePath: base, ...options.dashboard });
  const server: Server = createServer(dashboard.nodeListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const queueId = `{respire-queue:${queueName}}:stream`;
  return {
    url: `${origin}${base === '/' ? '' : base}`,
    origin,
    base,
    raw,
    client,
    admin,
    dashboard,
    audits,
    tag,
    queue: { name: queueName, id: queueId, deadKey: `{respire-queue:${queueName}}:dead-letter` },
    stream: { key: streamKey, dead: deadKey, id: streamKey, group: 'fulfillment' },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      destroy();
    },
  };
}

/** A world whose overview lists unavailable resources, and their keys. */
export interface BrokenWorld extends World {
  /** A worker stream whose key holds a string; labelled with the hostile `BROKEN_LABEL`. */
  readonly broken: string;
  /** Another one, labelled `payroll`, that the guard hides from lena (TOKENS.limited). */
  readonly hidden: string;
}

/** The label of {@link BrokenWorld.broken}: markup that must stay text. */
export const BROKEN_LABEL = '<img src=x onerror=alert(7)>';

/**
 * A world with two extra worker streams whose keys hold strings (WRONGTYPE: the overview lists
 * them as unavailable), one of them hidden from lena by the guard; with `brokenQueue`, the world's
 * queue too (its deadlines key holds a string).
 */
export async function startBrokenWorld(
  label: string,
  { brokenQueue = false, pageSize }: { brokenQueue?: boolean; pageSize?: number } = {},
): Promise<BrokenWorld> {
  const tag = uniqueTag(label);
  const broken = `{${tag}}:invoices`;
  const hidden = `{${tag}}:payroll`;
  const world = await startWorld({
    label,
    extraStreams: [
      { stream: broken, label: BROKEN_LABEL },
      { stream: hidden, label: 'payroll' },
    ],
    dashboard: { guard: (principal, resource) => !(principal.name === 'lena' && resource.id === hidden), ...(pageSize ? { pageSize } : {}) },
  });
  const keys = [broken, hidden, ...(brokenQueue ? [`{respire-queue:${world.queue.name}}:deadlines`] : [])];
  for (const key of keys) await world.raw(key, ['SET', key, 'a string, not a stream or sorted set']);
  return Object.assign(world, { broken, hidden });
}

/** A ReliableQueue (UTF-8 payloads) over the world's queue. */
export function queueOf(world: World, deliveryLimit = 1): ReliableQueue<string> {
  return new ReliableQueue<string>(world.client as never, world.queue.name, { codec: utf8Codec, deliveryLimit });
}

/**
 * Dead-letters `payloads` through the real queue: send, receive (delivery 1 of limit 1), NACK,
 * and the next receive moves each exhausted message to the dead-letter stream.
 */
export async function deadLetterQueueMessages(world: World, payloads: (string | Buffer)[]): Promise<void> {
  const queue = new ReliableQueue<Buffer>(world.client as never, world.queue.name, { codec: bytesCodec, deliveryLimit: 1 });
  for (const payload of payloads) await queue.send(Buffer.isBuffer(payload) ? payload : Buffer.from(payload));
  let left = payloads.length;
  while (left > 0) {
    const batch = await queue.receive(60_000, { max: 100 });
    for (const message of batch) await queue.nack(message, 0);
    left -= batch.length;
  }
  await queue.receive(60_000, { max: 100 });
}

/** Appends a worker dead-letter record the way the worker writes it (five `_respire.*` pairs, then the fields). */
export async function addWorkerDeadLetter(
  world: World,
  sourceId: string,
  fields: (string | Buffer)[],
  meta: { group?: string; attempt?: number; reason?: string; exceptionType?: string } = {},
  dead = world.stream.dead,
): Promise<string> {
  return String(
    await world.raw(dead, [
      'XADD',
      dead,
      '*',
      '_respire.source_id',
      sourceId,
      '_respire.group',
      meta.group ?? world.stream.group,
      '_respire.attempt',
      String(meta.attempt ?? 3),
      '_respire.reason',
      meta.reason ?? 'processing-failed',
      '_respire.exception_type',
      meta.exceptionType ?? 'PaymentGatewayTimeout',
      ...fields,
    ]),
  );
}

/** XADD to a stream with string fields. */
export async function xadd(world: World, key: string, fields: (string | Buffer)[]): Promise<string> {
  return String(await world.raw(key, ['XADD', key, '*', ...fields]));
}

export async function xlen(world: World, key: string): Promise<number> {
  return Number(await world.raw(key, ['XLEN', key]));
}

/** XRANGE as [id, [field, value, ...]] with strings. */
export async function range(world: World, key: string): Promise<[string, string[]][]> {
  const reply = (await world.raw(key, ['XRANGE', key, '-', '+'])) as unknown[][];
  return reply.map((r) => [String(r[0]), (r[1] as unknown[]).map(String)]);
}

/** XPENDING detail rows. */
export async function pendingRows(world: World, key: string, group: string): Promise<{ id: string; consumer: string; idle: number; count: number }[]> {
  const reply = (await world.raw(key, ['XPENDING', key, group, '-', '+', '1000'])) as unknown[][];
  return reply.map((r) => ({ id: String(r[0]), consumer: String(r[1]), idle: Number(r[2]), count: Number(r[3]) }));
}

/** Creates the world's group at 0 and reads `n` entries as `consumer` (they become pending). */
export async function readAsConsumer(world: World, consumer: string, n: number, key = world.stream.key, group = world.stream.group): Promise<void> {
  await world.raw(key, ['XGROUP', 'CREATE', key, group, '0', 'MKSTREAM']).catch(() => {});
  await world.raw(key, ['XREADGROUP', 'GROUP', group, consumer, 'COUNT', String(n), 'STREAMS', key, '>']);
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Got {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** GET `path` (relative to the world's base URL, or absolute) as `token` (null: no credentials). */
export async function get(world: World, path: string, token: string | null = TOKENS.operator, headers: Record<string, string> = {}): Promise<Got> {
  const response = await fetch(path.startsWith('http') ? path : `${world.url}${path}`, {
    redirect: 'manual',
    headers: { ...(token ? bearer(token) : {}), ...headers },
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** POST a form to `path`, as a same-origin browser would (Origin and Sec-Fetch-Site) unless overridden. */
export async function post(
  world: World,
  path: string,
  form: Record<string, string | number>,
  { token = TOKENS.operator, headers = {} }: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<Got> {
  const body = new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const response = await fetch(`${world.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: world.origin,
      'sec-fetch-site': 'same-origin',
      ...(token ? bearer(token) : {}),
      ...headers,
    },
    body,
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The CSRF token a page's forms carry. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no CSRF token on the page');
  return match[1];
}

/** A fresh CSRF token for `token`'s principal (from the overview page). */
export async function csrfFor(world: World, token: string = TOKENS.operator): Promise<string> {
  const page = await get(world, '/', token);
  const match = /<meta name="csrf-token" content="([^"]+)"/.exec(page.body);
  if (match?.[1]) return match[1];
  throw new Error(`no CSRF token on the overview (status ${page.status})`);
}

/** `?id=...&...` */
export const q = (params: Record<string, string | number | undefined>) =>
  `?${new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  ).toString()}`;

// ---------------------------------------------------------------------------------------------
// A dashboard over a stub admin API (no Redis): for what the real one cannot be made to do.

export const STUB_STREAM = { kind: 'stream', id: 'orders', stream: 'orders', deadLetterStream: 'orders-dead', label: 'orders', retryAtomic: true } as const;

/**
 * An AdminApi whose methods answer `overrides`, else an empty world with one stream
 * (`orders`); any other id is unknown (RespireValidationError, as the real one throws).
 */
export function stubAdmin(overrides: Record<string, (...args: never[]) => unknown> = {}): AdminApi {
  const unknown = (id: string) =>
    Object.assign(new Error(`resource: unknown resource '${id}'`), {
      name: 'RespireValidationError',
      code: 'INVALID_ARGUMENT',
      argument: 'resource',
      unknownResource: id,
    });
  const defaults: Record<string, (...args: never[]) => unknown> = {
    resource: (id: string) => {
      if (id === STUB_STREAM.id) return STUB_STREAM;
      throw unknown(id);
    },
    resources: () => ({ resources: [STUB_STREAM], discoveryTruncated: false }),
    overview: () => ({ serverTimeMs: Date.now(), queues: [], streams: [], discoveryTruncated: false, unavailable: [] }),
    streamStatus: () => ({ resource: STUB_STREAM, length: 0, exists: true, groups: [], deadLetters: 0 }),
    consumers: () => ({ items: [], total: 0, truncated: false }),
    pending: () => ({ items: [], next: undefined }),
    deadLetters: () => ({ items: [], next: undefined }),
  };
  return new Proxy({} as AdminApi, {
    get:
      (_target, name: string) =>
      async (...args: never[]) => {
        const method = overrides[name] ?? defaults[name];
        if (!method) throw new Error(`stub admin: ${name} not stubbed`);
        return method(...args);
      },
  });
}

/** A dashboard over `admin` on a loopback port, as `startWorld` serves one (nodeListener). */
export async function serveDashboard(
  options: Partial<DashboardOptions> & { admin: AdminApi },
): Promise<{ url: string; origin: string; dashboard: Dashboard; close(): Promise<void> }> {
  const dashboard = createDashboard({ authorize: testAuthorize, basePath: '/ops/respire', ...options });
  const server: Server = createServer(dashboard.nodeListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${dashboard.basePath}`,
    origin,
    dashboard,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `text` as raw HTTP/1.1 on a fresh connection (paths no fetch client would send) and returns the response. */
export function rawHttp(origin: string, text: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => void (out += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = out.indexOf('\r\n\r\n');
      resolve({ status: Number(out.slice(9, 12)), head: out.slice(0, split), body: out.slice(split + 4) });
    });
  });
}
