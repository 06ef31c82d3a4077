// W3C trace context: strict parsing of an entry's traceparent and tracestate, and the producer's fields.
import { ROOT_CONTEXT, TraceFlags, context as contextApi, createTraceState, isSpanContextValid, trace, type Context } from '@opentelemetry/api';

/** README "Spans": a traceparent is exactly 55 ASCII bytes, version 00, lowercase hex. */
const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const MAX_TRACE_STATE_BYTES = 512;
const MAX_TRACE_STATE_MEMBERS = 32;
/** W3C tracestate key: simple-key, or `tenant@system`. */
const KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
/** W3C tracestate value: printable ASCII except ',' and '=', no trailing space. */
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

export interface ParsedTraceParent {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/**
 * Parses a W3C version-00 traceparent strictly: exactly 55 printable ASCII characters, lowercase
 * hex, nonzero trace and span IDs. Anything else returns `undefined` (a new root).
 */
export function parseTraceParent(value: string | undefined): ParsedTraceParent | undefined {
  if (typeof value !== 'string' || value.length !== 55) return undefined;
  const match = TRACE_PARENT.exec(value);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/**
 * Validates a W3C tracestate: at most 512 ASCII bytes and 32 members with distinct keys;
 * spaces and tabs around members are allowed, control characters inside keys or values are not.
 * Returns the normalized header (members trimmed, empty members dropped) or `undefined` to discard it.
 */
export function parseTraceState(value: string | undefined): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_TRACE_STATE_BYTES) return undefined;
  // eslint-disable-next-line no-control-regex -- ASCII check: every byte below 0x80
  if (!/^[\x00-\x7f]*$/.test(value)) return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of value.split(',')) {
    const member = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    if (member === '') continue;
    const eq = member.indexOf('=');
    if (eq <= 0) return undefined;
    const key = member.slice(0, eq);
    const memberValue = member.slice(eq + 1);
    if (!KEY.test(key) || !VALUE.test(memberValue) || keys.has(key)) return undefined;
    keys.add(key);
    members.push(member);
  }
  if (members.length === 0 || members.length > MAX_TRACE_STATE_MEMBERS) return undefined;
  return members.join(',');
}

/**
 * The parent context for a consumer span: the remote parent from the entry's fields when its
 * traceparent is valid (tracestate kept only when valid too), else the root context — never the
 * host's active span. No baggage is read.
 */
export function extractParentContext(traceParent: string | undefined, traceState: string | undefined): Context {
  const parent = parseTraceParent(traceParent);
  if (!parent) return ROOT_CONTEXT;
  const state = parseTraceState(traceState);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.traceFlags,
    isRemote: true,
    ...(state ? { traceState: createTraceState(state) } : {}),
  });
}

/** Field names for {@link traceContextFields}. */
export interface TraceContextFieldOptions {
  /** @defaultValue 'traceparent' */
  traceParentField?: string;
  /** @defaultValue 'tracestate' */
  traceStateField?: string;
  /** The context whose span is the parent; @defaultValue the active context. */
  context?: Context;
}

/**
 * Producer helper (README "Set-up"): the W3C fields of the current span, to append to a
 * stream entry once each. Returns `{}` when there is no valid span. Never copies baggage.
 *
 * @example
 * ```ts
 * await tracer.startActiveSpan('publish order', { kind: SpanKind.PRODUCER }, async (span) => {
 *   await client.xAdd('{orders}:events', '*', { payload: orderJson, ...traceContextFields() });
 *   span.end();
 * });
 * ```
 */
export function traceContextFields(options: TraceContextFieldOptions = {}): Record<string, string> {
  const spanContext = trace.getSpanContext(options.context ?? contextApi.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  const fields: Record<string, string> = {
    [options.traceParentField ?? 'traceparent']: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
  };
  const state = spanContext.traceState?.serialize();
  if (state) fields[options.traceStateField ?? 'tracestate'] = state;
  return fields;
}
