// Security headers (CSP, framing, nosniff, referrer) of every response.
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * Security headers of every response: a strict CSP (no inline script or style; with `scripts`
 * false no script at all), no framing, nosniff, no Referer. HSTS is left to the host
 * application, which owns its whole origin.
 */
export function securityHeaders({ scripts = true }: { scripts?: boolean } = {}) {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      ...(scripts ? { scriptSrc: ["'self'"], connectSrc: ["'self'"] } : {}),
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    referrerPolicy: 'no-referrer',
    xFrameOptions: 'DENY',
    strictTransportSecurity: false,
  });
}

/**
 * Fills in the strict headers (no scripts) on a response that has none, e.g. a server's own 429
 * or redirect around the dashboard; a response that has its own (the dashboard's pages) keeps them.
 */
export async function fillSecurityHeaders(): Promise<MiddlewareHandler> {
  const probe = new Hono().use(securityHeaders({ scripts: false })).get('/', (c) => c.body(null));
  const strict = [...(await probe.request('/')).headers].filter(([name]) => name !== 'content-type');
  return async (c, next) => {
    await next();
    if (c.res.headers.has('content-security-policy')) return;
    for (const [name, value] of strict) c.res.headers.set(name, value);
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  };
}
