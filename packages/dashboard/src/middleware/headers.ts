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
