// The mount recipes: node:http, Express, Fastify, Hono.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../src/index.js';
import { addWorkerDeadLetter, csrfFor, get, post, range, startWorld, testAuthorize, xlen, type World } from './support.js';

/**
 * The README's mount recipes, each under `/ops/respire` beside the host application's own
 * routes: node:http, Express, Fastify and Hono. Each serves the pages and the assets, and runs
 * an action (its form body reaches the dashboard intact).
 */
let world: World;
beforeAll(async () => {
  world = await startWorld({ label: 'mount' });
});
afterAll(() => world.close());

const BASE = '/ops/respire';

async function listening(server: Server): Promise<{ origin: string; close(): Promise<void> }> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Pages, assets, 401, an action through the mount, and the host's own route. */
async function exercise(origin: string): Promise<void> {
  const target: World = { ...world, origin, url: `${origin}${BASE}` };
  const overview = await get(target, '/');
  expect(overview.status).toBe(200);
  expect(overview.body).toContain(world.queue.name);
  expect(overview.body).toContain(`href="${BASE}/assets/dashboard.css"`);
  expect((await get(target, '', null)).status).toBe(401);
  expect((await get(target, '/assets/dashboard.css', null)).status).toBe(200);

  const record = await addWorkerDeadLetter(world, '1-1', ['order-id', '1']);
  const token = await csrfFor(target);
  const deleted = await post(target, '/actions/delete', { id: world.stream.id, record, _csrf: token });
  expect(deleted.status).toBe(303);
  expect(deleted.headers.get('location')).toMatch(new RegExp(`^${BASE}/dead-letters\\?`));
  expect((await range(world, world.stream.dead)).map(([id]) => id)).not.toContain(record);

  const host = await fetch(`${origin}/health`);
  expect(await host.text()).toBe('host app ok');
}

describe('mount recipes', () => {
  it('node:http — route the base path to dashboard.nodeListener', async () => {
    const dashboard = createDashboard({ admin: world.admin, authorize: testAuthorize, basePath: BASE });
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path === BASE || path.startsWith(`${BASE}/`)) return dashboard.nodeListener(req, res);
      res.end('host app ok');
    }).listen(0, '127.0.0.1');
    const { origin, close } = await listening(server);
    try {
      await exercise(origin);
    } finally {
      await close();
    }
  });

  it('Express — app.use(basePath, dashboard.nodeListener), before the body parsers', async () => {
    const dashboard = createDashboard({ admin: world.admin, authorize: testAuthorize, basePath: BASE });
    const app = express();
    app.use(BASE, dashboard.nodeListener);
    app.use(express.urlencoded({ extended: false }));
    app.get('/health', (_req, res) => void res.send('host app ok'));
    const { origin, close } = await listening(app.listen(0, '127.0.0.1'));
    try {
      await exercise(origin);
    } finally {
      await close();
    }
  });

  it('Fastify — a scope that leaves bodies unparsed and hands the raw request to dashboard.nodeListener', async () => {
    const dashboard = createDashboard({ admin: world.admin, authorize: testAuthorize, basePath: BASE });
    const app = Fastify();
    app.get('/health', async () => 'host app ok');
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      const handler = (
        request: { raw: Parameters<typeof dashboard.nodeListener>[0] },
        reply: { hijack(): void; raw: Parameters<typeof dashboard.nodeListener>[1] },
      ) => {
        reply.hijack();
        dashboard.nodeListener(request.raw, reply.raw);
      };
      scope.all(BASE, handler);
      scope.all(`${BASE}/*`, handler);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { origin } = await listening(app.server);
    try {
      await exercise(origin);
    } finally {
      await app.close();
    }
  });

  it('Hono — app.all(basePath + "/*", (c) => dashboard.fetch(c.req.raw))', async () => {
    const dashboard = createDashboard({ admin: world.admin, authorize: testAuthorize, basePath: BASE });
    const app = new Hono();
    app.get('/health', (c) => c.text('host app ok'));
    app.all(BASE, (c) => dashboard.fetch(c.req.raw));
    app.all(`${BASE}/*`, (c) => dashboard.fetch(c.req.raw));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    const { origin, close } = await listening(server);
    try {
      await exercise(origin);
    } finally {
      await close();
    }
  });

  it('at the root path, and never answers outside its base path', async () => {
    const root = createDashboard({ admin: world.admin, authorize: testAuthorize });
    const page = await root.fetch(new Request('http://127.0.0.1/', { headers: { authorization: 'Bearer operator-token' } }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="/assets/dashboard.css"');
    const mounted = createDashboard({ admin: world.admin, authorize: testAuthorize, basePath: BASE });
    const outside = await mounted.fetch(new Request('http://127.0.0.1/elsewhere', { headers: { authorization: 'Bearer operator-token' } }));
    expect(outside.status).toBe(404);
    expect(await xlen(world, world.stream.dead)).toBe(0);
  });
});
