// Unit tests of the CLI's helpers that need no server.
import { describe, expect, it } from 'vitest';
import { defaultActorName } from '../src/cli/context.js';
import { headerLines, headerNames, headersJson } from '../src/cli/headers.js';

describe('the CLI default actor', () => {
  it('is the OS user; without a passwd entry (a container UID) it falls back to $USER, $LOGNAME, then uid:<n>', () => {
    expect(defaultActorName(() => ({ username: 'alice' }), {}, 1000)).toBe('alice');
    const missing = () => {
      throw Object.assign(new Error('uv_os_get_passwd returned ENOENT'), { code: 'ENOENT' });
    };
    expect(defaultActorName(missing, { USER: 'bob' }, 1000)).toBe('bob');
    expect(defaultActorName(missing, { LOGNAME: 'carol' }, 1000)).toBe('carol');
    expect(defaultActorName(missing, {}, 54321)).toBe('uid:54321');
    expect(defaultActorName(missing, {}, undefined)).toBe('unknown');
  });
});

describe("the CLI's rendering of a queue message's headers", () => {
  it('says none or unreadable, shows bytes with their kind and size (JSON compact, on one line), and cuts long names and values', () => {
    expect(headerLines({})).toEqual(['headers: none']);
    expect(headerLines(null)).toEqual(["headers: unreadable (its headers field is not in the queue's format)"]);
    expect(headerLines({ doc: Buffer.from('{\n"a": 1}'), text: Buffer.from('héllo'), [`${'n'.repeat(201)}`]: 'x' })).toEqual([
      'headers (3):',
      '    doc: [bytes, UTF-8, 9 bytes] {\\x0a"a": 1}',
      '    text: [bytes, UTF-8, 6 bytes] héllo',
      `    ${'n'.repeat(200)}… (201 characters; --json has it all): x`,
    ]);
    expect(headerLines({ big: Buffer.alloc(300, 0xff) })[1]).toBe(
      `    big: [bytes, hex, 300 bytes] ${Array(200).fill('ff').join(' ')}… (first 200 bytes; --json has it all)`,
    );
    expect(headerNames(null)).toBe('unreadable');
    expect(headerNames({})).toBe('-');
    expect(headerNames({ a: 'x', b: 'y' })).toBe('a, b');
    expect(headerNames({ traceparent: 'x', tracestate: 'y', tenant: 'z' }, 20)).toBe('traceparent, traces…');
    expect(headersJson(null)).toBeNull();
  });
});
