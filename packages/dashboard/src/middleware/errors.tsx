// The 404 and error pages: expected refusals as pages, Redis unavailable to a read as a 503, the rest as a 500 with a reference.
import { randomBytes } from 'node:crypto';
import type { ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isNotFound, isRespireError } from '@respire/admin';
import { HttpError, isValidationError, type Ctx, type Env } from '../http.js';
import type { Settings } from '../options.js';
import { bare, page } from '../respond.js';
import { Name } from '../views/name.js';

/** `value[key]`, undefined when the read throws (a value thrown by user code may be a revoked Proxy). */
const safeGet = (value: unknown, key: string): unknown => {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
};

const argumentOf = (error: unknown) => {
  const argument = safeGet(error, 'argument');
  return typeof argument === 'string' && /^[\w.]{1,64}$/.test(argument) ? argument : 'request';
};

/** `error instanceof type`, false when the check throws (a revoked Proxy thrown by user code such as `authorize`). */
const isA = (error: unknown, type: abstract new (...args: never[]) => unknown): boolean => {
  try {
    return error instanceof type;
  } catch {
    return false;
  }
};

/** `isNotFound`, false when the check throws (a revoked Proxy thrown by user code). */
const safeNotFound = (error: unknown) => {
  try {
    return isNotFound(error);
  } catch {
    return undefined;
  }
};

const TITLES = { 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict', 503: 'Try again' } as const;

/** An unknown page: a bare page before sign-in, the dashboard's layout after. */
export function notFound(s: Settings): NotFoundHandler<Env> {
  return (c) => {
    if (!c.get('principal')) return bare(c, s.base, 404, 'Not found', 'There is no such page.');
    return page(s, c, 404, 'Not found', <p>There is no such page.</p>);
  };
}

/**
 * A page that only reads, failed because Redis did not answer or answered that it cannot now (a
 * Cluster failover, a lost connection, `BUSY`, `LOADING`, `CLUSTERDOWN`): it changed nothing, and a
 * reload may work. An action's failure is never this: its outcome may be unknown.
 */
const unavailableRead = (error: unknown, method: string): boolean =>
  (method === 'GET' || method === 'HEAD') && (isRespireError(error, 'TRANSPORT_FAILED') || (isRespireError(error) && safeGet(error, 'retryable') === true));

/**
 * Expected refusals (400/403/404/409) as pages; anything else goes to `onError` and shows a 500
 * page, or a 503 "Try again" page for a read that Redis could not answer (see `unavailableRead`).
 */
export function errorPage(s: Settings): ErrorHandler {
  return (error, context) => {
    const c = context as unknown as Ctx;
    // What reaches here may come from user code (authorize, guard): every check of it is guarded.
    if (isA(error, HttpError)) {
      const http = error as HttpError;
      return page(
        s,
        c,
        http.status,
        TITLES[http.status],
        <>
          <p>{http.message}</p>
          {http.hints.length > 0 ? (
            <>
              <p>Nearest that exist:</p>
              <ul class="hints">
                {http.hints.map((h) => (
                  <li>
                    <Name value={h.label} href={h.href} />
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>,
      );
    }
    // Something the request names does not exist (a group removed meanwhile): 404, naming what.
    const missing = safeNotFound(error);
    if (missing) return page(s, c, 404, 'Not found', <p>No such {missing.kind === 'group' ? 'consumer group' : missing.kind}.</p>);
    // The admin API's message quotes the rejected value: name the parameter only.
    if (isValidationError(error)) return page(s, c, 400, 'Bad request', <p>Invalid {argumentOf(error)}.</p>);
    if (isA(error, HTTPException) && (error as HTTPException).status === 403) {
      // Hono's csrf(): a form posted from another origin.
      return page(s, c, 403, 'Cross-site request refused', <p>This form did not come from this dashboard's own pages. Nothing was changed.</p>);
    }
    if (isA(error, HTTPException)) return (error as HTTPException).getResponse();
    // The details (a Redis URL, a host, a key of a hidden resource) go to the log only; the page
    // shows a reference to find them there, and the error's class name.
    const reference = randomBytes(6).toString('hex');
    try {
      const reported: unknown = s.onError(error, c.req.raw, { reference });
      void Promise.resolve(reported).catch(() => {}); // an async onError that rejects changes nothing
    } catch {
      // A failing logger must not turn the error page into Hono's bare 500.
    }
    if (unavailableRead(error, c.req.method)) {
      const text = `Redis did not answer in time (a failover, a lost connection or a busy server). This page only reads and changed nothing: reload it in a few seconds (reference ${reference}).`;
      if (!c.get('principal')) return bare(c, s.base, 503, TITLES[503], text);
      return page(s, c, 503, TITLES[503], <p>{text}</p>);
    }
    if (!c.get('principal')) return bare(c, s.base, 500, 'Error', `Something went wrong (reference ${reference}).`);
    const type = isA(error, Error) ? safeGet(error, 'name') : undefined;
    const name = typeof type === 'string' && /^[A-Za-z][\w]{0,63}$/.test(type) ? type : 'Error';
    return page(
      s,
      c,
      500,
      'Something went wrong',
      <p>
        The request failed ({name}, reference <code>{reference}</code>). The details are in the server's log.
      </p>,
    );
  };
}
