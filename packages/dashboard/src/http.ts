// Request helpers: the Hono environment, parameters, forms and expected HTTP refusals.
import type { Context } from 'hono';
import type { Principal } from './auth.js';

/** What the authentication middleware puts on every request it lets through. */
export type Env = { Variables: { principal: Principal; csrfToken: string } };
export type Ctx = Context<Env>;

/** A stream entry ID as Redis writes them: `<ms>-<seq>`. */
export const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;
/** The longest name a parameter may carry: the admin API's limit for keys and consumer names. */
const MAX_NAME = 65_536;

/** A link a refusal page offers (the nearest names that exist, the way back). */
export interface HintLink {
  readonly label: string;
  readonly href: string;
}

/** An expected refusal: shown on a page with its status and message (never a 500). */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 503,
    message: string,
    /** Names that do exist, nearest first, as links ("not found" pages). */
    readonly hints: readonly HintLink[] = [],
  ) {
    super(message);
  }
}

/** The admin API's refusal of an argument (unknown resource, malformed ID). */
export const isValidationError = (error: unknown): boolean => {
  try {
    return error instanceof Error && error.name === 'RespireValidationError';
  } catch {
    return false; // a revoked Proxy thrown by user code (authorize, guard)
  }
};

/** A text parameter of the query or form: 400 when missing (unless optional), too long or malformed. */
export function param(source: Record<string, unknown>, name: string, { pattern, optional }: { pattern?: RegExp; optional?: boolean } = {}): string | undefined {
  const value = source[name];
  if (value === undefined || value === '') {
    if (optional) return undefined;
    throw new HttpError(400, `Missing ${name}.`);
  }
  if (typeof value !== 'string' || value.length > MAX_NAME || (pattern && !pattern.test(value))) throw new HttpError(400, `Invalid ${name}.`);
  return value;
}

/** A required text parameter. */
export const need = (source: Record<string, unknown>, name: string, pattern?: RegExp) => param(source, name, { pattern }) as string;

/** A whole-number parameter in `min..max`, else 400. */
export function intParam(source: Record<string, unknown>, name: string, min: number, max: number): number {
  const text = source[name];
  const value = typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) throw new HttpError(400, `Invalid ${name}.`);
  return value;
}

export const query = (c: Ctx) => c.req.query() as Record<string, string>;

/** Rows per page: the `count` parameter (1..1000) or the dashboard's page size. */
export function pageCount(c: Ctx, pageSize: number): number {
  const text = c.req.query('count');
  if (text === undefined) return pageSize;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new HttpError(400, 'Invalid count.');
  return n;
}

/**
 * The POSTed form's fields (none for other content types); 400 when the body is not a readable
 * form. With `all`, a field given several times (checkboxes) is an array.
 */
export async function form(c: Ctx, all = false): Promise<Record<string, unknown>> {
  try {
    return (await c.req.parseBody(all ? { all: true } : {})) as Record<string, unknown>;
  } catch {
    throw new HttpError(400, 'The form could not be read.');
  }
}

/** The page a query asks for: `cursor` (after), `before`, or `last`; each a cursor matching `pattern`. */
export function pageQuery(source: Record<string, unknown>, pattern: RegExp = ENTRY_ID): { cursor?: string; before?: string; last?: boolean } {
  const cursor = param(source, 'cursor', { optional: true, pattern });
  const before = param(source, 'before', { optional: true, pattern });
  const last = source['last'] === '1';
  if ([cursor, before, last || undefined].filter((x) => x !== undefined).length > 1)
    throw new HttpError(400, 'Invalid page: give one of cursor, before and last.');
  return { ...(cursor ? { cursor } : {}), ...(before ? { before } : {}), ...(last ? { last: true } : {}) };
}

/** Whether a paged query reads the first page (no cursor, no before, not the last). */
export const isFirstPage = (q: { cursor?: string; before?: string; last?: boolean }) => !q.cursor && !q.before && !q.last;
