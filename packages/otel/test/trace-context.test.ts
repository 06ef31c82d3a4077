// Strict W3C trace-context parsing, and the producer's trace-context fields.
import { ROOT_CONTEXT, context, trace, TraceFlags } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { extractParentContext, parseTraceParent, parseTraceState, traceContextFields } from '@respire/otel';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const valid = `00-${TRACE}-${SPAN}-01`;

describe('traceparent (README "Spans": exactly 55 printable ASCII bytes, version 00, lowercase hex, nonzero IDs)', () => {
  it('accepts a valid version-00 parent', () => {
    expect(valid).toHaveLength(55);
    expect(parseTraceParent(valid)).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-00`)?.traceFlags).toBe(0);
  });

  it.each([
    ['54 bytes', valid.slice(0, 54)],
    ['56 bytes', `${valid}0`],
    ['a trailing space (56 bytes)', `${valid} `],
    ['uppercase hex in the trace ID', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['uppercase hex in the flags', `00-${TRACE}-${SPAN}-0A`],
    ['an all-zero trace ID', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span ID', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 01 with the same length', `01-${TRACE}-${SPAN}-01`],
    ['a non-hex character', `00-${TRACE.slice(0, 31)}g-${SPAN}-01`],
    ['wrong separators', `00_${TRACE}_${SPAN}_01`],
    ['a control character', `00-${TRACE.slice(0, 31)}\u0001-${SPAN}-01`],
    ['a non-ASCII character', `00-${TRACE.slice(0, 31)}é-${SPAN}-01`],
    ['empty', ''],
    ['missing (duplicate fields are passed as missing)', undefined],
  ])('starts a new root for %s', (_label, value) => {
    expect(parseTraceParent(value)).toBeUndefined();
    expect(trace.getSpanContext(extractParentContext(value, 'a=b'))).toBeUndefined();
  });
});

describe('tracestate (README "Spans": ≤ 512 ASCII bytes, ≤ 32 members, distinct keys)', () => {
  it('accepts members with spaces and tabs around them, and multi-tenant keys', () => {
    expect(parseTraceState(' vendor=value ,\tother=x@y ')).toBe('vendor=value,other=x@y');
    expect(parseTraceState('t1@sys=v,a=b')).toBe('t1@sys=v,a=b');
    expect(parseTraceState('a=b,,c=d')).toBe('a=b,c=d');
  });

  it('accepts exactly 32 members and exactly 512 bytes', () => {
    const members = Array.from({ length: 32 }, (_, i) => `k${i}=v`).join(',');
    expect(parseTraceState(members)).toBe(members);
    const long = `a=${'x'.repeat(256)},b=${'y'.repeat(251)}`;
    expect(long).toHaveLength(512);
    expect(parseTraceState(long)).toBe(long);
  });

  it.each([
    ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['513 bytes', `a=${'x'.repeat(256)},b=${'y'.repeat(252)}`],
    ['a value of 257 characters', `a=${'x'.repeat(257)}`],
    ['a duplicate key', 'a=1,b=2,a=3'],
    ['a control character in a value', 'a=x\u0001y'],
    ['a control character in a key', 'a\u0007=x'],
    ['a tab inside a value', 'a=x\ty'],
    ['an uppercase key', 'Vendor=x'],
    ['a member without =', 'vendor'],
    ['an empty value', 'a='],
    ['a comma-only list', ' , '],
    ['non-ASCII', 'a=é'],
  ])('discards the state for %s but keeps a valid parent', (_label, state) => {
    expect(parseTraceState(state)).toBeUndefined();
    const parent = trace.getSpanContext(extractParentContext(valid, state));
    expect(parent).toMatchObject({ traceId: TRACE, spanId: SPAN, isRemote: true });
    expect(parent?.traceState).toBeUndefined();
  });

  it('keeps a valid state on the remote parent', () => {
    const parent = trace.getSpanContext(extractParentContext(valid, 'congo=t61rcWkgMzE'));
    expect(parent?.traceState?.get('congo')).toBe('t61rcWkgMzE');
  });
});

describe('producer helper', () => {
  it('writes the active span as traceparent and tracestate, and nothing without a span', async () => {
    expect(traceContextFields({ context: ROOT_CONTEXT })).toEqual({});
    const provider = new BasicTracerProvider();
    const tracer = provider.getTracer('orders');
    const span = tracer.startSpan('publish order');
    const ctx = trace.setSpan(context.active(), span);
    const fields = traceContextFields({ context: ctx });
    const { traceId, spanId } = span.spanContext();
    expect(fields).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    expect(parseTraceParent(fields.traceparent)).toEqual({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    const renamed = traceContextFields({ context: ctx, traceParentField: 'tp' });
    expect(Object.keys(renamed)).toEqual(['tp']);
    span.end();
  });
});
