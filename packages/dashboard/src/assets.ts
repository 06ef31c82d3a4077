// The static stylesheet, script and icon, served without authentication.
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { Env } from './http.js';

const assetDir = new URL('../assets/', import.meta.url);
const loadAsset = (name: string) => readFileSync(new URL(name, assetDir));

/**
 * The page's stylesheet, script and icon: a fixed list read once, served without
 * authentication (they hold no data).
 */
export function assetRoutes(routes: Hono<Env>): void {
  // A Map, not an object literal: `constructor` or `__proto__` must not name an "asset".
  const assets = new Map<string, { body: Buffer; type: string }>([
    ['dashboard.css', { body: loadAsset('dashboard.css'), type: 'text/css; charset=utf-8' }],
    ['dashboard.js', { body: loadAsset('dashboard.js'), type: 'text/javascript; charset=utf-8' }],
    ['favicon.svg', { body: loadAsset('favicon.svg'), type: 'image/svg+xml' }],
  ]);
  routes.get('/assets/:name', (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) return c.text('Not found', 404);
    return c.body(new Uint8Array(asset.body), 200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300' });
  });
}
