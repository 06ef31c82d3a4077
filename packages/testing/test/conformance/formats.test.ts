// Each stored format has one owner in TypeScript (core-scripts src/formats) and one in Lua
// (core-scripts lua/includes): these fixtures round-trip every format through both, with the Lua
// run on the run's real server and on the fake server.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MAX_DEAD_LETTER_FIELD_PAIRS,
  WORKER_DEAD_LETTER_META,
  compareEntryIds,
  entryIdParts,
  isEntryId,
  isReceipt,
  leaseMember,
  newReceiptToken,
  parseLeaseMember,
  queueDeadLetterFields,
  queueEntryFields,
  readHeaders,
  readQueueDeadLetter,
  readQueueEntry,
  readWorkerDeadLetter,
  receiptOf,
  workerDeadLetterFields,
  writeHeaders,
  type FieldPairs,
} from '@respire/core-scripts/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flattenLua } from '../../../core-scripts/scripts/flatten.mjs';
import { FakeRedisServer } from '../../src/index.js';
import { connect, matchingModel, realUrl, uniquePrefix, type RawClient } from '../support.js';

const luaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'core-scripts', 'lua');

/** A script made of `includes` and `body`, flattened as codegen flattens the scripts. */
const program = (includes: readonly string[], body: string): string =>
  flattenLua(luaDir, 'formats.test.ts', [...includes.map((name) => `--@include ${name}`), body].join('\n'));

/** Name/value pairs of bytes from a flat XRANGE field list. */
const pairsOf = (flat: readonly Buffer[]): FieldPairs => {
  const pairs: [Buffer, Buffer][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
};
const bytes = (...values: string[]) => values.map((v) => Buffer.from(v));

describe.each([
  ['the real server', async () => ({ raw: await connect(realUrl(), 3), close: async () => {} })],
  [
    'the fake server',
    async () => {
      const server = await FakeRedisServer.start({ version: matchingModel() });
      return { raw: await connect(server.url, 3), close: () => server.close() };
    },
  ],
] as const)('stored formats agree between TypeScript and Lua on %s', (_name, open) => {
  let raw: RawClient;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ raw, close } = await open());
  });
  afterAll(async () => {
    raw.close();
    await close();
  });

  /** Runs a script; Lua's false (nil in the reply) reads as false. */
  const evalLua = async (source: string, keys: readonly string[], args: readonly (string | Buffer)[]) =>
    ((await raw.send(['EVAL', source, String(keys.length), ...keys, ...args])) as unknown) ?? false;
  const binary = async (args: readonly (string | Buffer)[]) =>
    (await (raw.client as { sendCommand(a: unknown[], o: object): Promise<unknown> }).sendCommand([...args], { typeMapping: { 36: Buffer } })) as unknown;

  describe('entry IDs', () => {
    const ids = [
      '0-0',
      '1-1',
      '1700000000000-0',
      '01-1',
      '0000000000000000000000000000001-000',
      '18446744073709551615-18446744073709551615',
      '18446744073709551616-0',
      '0-18446744073709551616',
      '99999999999999999999999-0',
      '1',
      '1-',
      '-1',
      'a-1',
      '1-1-1',
      '',
      ' 1-1',
      '1-1 ',
      '+1-1',
    ];

    it('are read the same way: the same parts, or none', async () => {
      const lua = program(
        ['entry-ids'],
        `local out = {}
for i = 1, #ARGV do
  local ms, seq = respire_entry_id_parts(ARGV[i])
  out[i] = ms and (ms .. '-' .. seq) or false
end
return out`,
      );
      const fromLua = ((await evalLua(lua, ['{f}'], ids)) as (string | null)[]).map((v) => v ?? false);
      const fromTs = ids.map((id) => entryIdParts(id)?.join('-') ?? false);
      expect(fromLua).toEqual(fromTs);
      expect(fromTs.slice(0, 9)).toEqual(['0-0', '1-1', '1700000000000-0', '1-1', '1-0', '18446744073709551615-18446744073709551615', false, false, false]);
      expect(fromTs.slice(9).every((v) => v === false)).toBe(true);
      expect(ids.map((id) => isEntryId(id))).toEqual(fromTs.map((v) => v !== false));
    });

    it('are ordered the same way, exactly past 2^53', async () => {
      const sample = ['10-0', '9-0', '9-10', '9-9', '9007199254740993-0', '9007199254740992-1', '18446744073709551615-0', '18446744073709551614-99', '0-0'];
      const lua = program(
        ['entry-ids'],
        `local ids = {}
for i = 1, #ARGV do ids[i] = ARGV[i] end
table.sort(ids, function(a, b) return respire_entry_id_compare(a, b) < 0 end)
local out = { ids }
for i = 1, #ARGV do
  for j = 1, #ARGV do out[#out + 1] = respire_entry_id_compare(ARGV[i], ARGV[j]) end
end
return out`,
      );
      const [sortedByLua, ...comparisons] = (await evalLua(lua, ['{f}'], sample)) as [string[], ...number[]];
      const expected = ['0-0', '9-0', '9-9', '9-10', '10-0', '9007199254740992-1', '9007199254740993-0', '18446744073709551614-99', '18446744073709551615-0'];
      expect(sortedByLua).toEqual(expected);
      expect([...sample].sort(compareEntryIds)).toEqual(expected);
      expect(comparisons).toEqual(sample.flatMap((a) => sample.map((b) => compareEntryIds(a, b))));
    });
    it("as Redis writes them, are ordered by the quick comparison as by the exact one (the grouped take's oldest head)", async () => {
      // Canonical IDs (no leading zeros): ms parts and seq parts of equal and unequal lengths, equal ms parts, past 2^53.
      const sample = ['0-0', '0-1', '9-0', '9-9', '9-10', '10-0', '10-9', '99-100', '100-99', '1700000000000-0', '1700000000000-10', '1700000000001-2'];
      sample.push('9007199254740993-0', '9007199254740992-1', '18446744073709551615-18446744073709551615', '18446744073709551614-99');
      const lua = program(
        ['entry-ids'],
        `local out = {}
for i = 1, #ARGV do
  for j = 1, #ARGV do out[#out + 1] = respire_entry_id_before(ARGV[i], ARGV[j]) and 1 or 0 end
end
return out`,
      );
      const quick = (await evalLua(lua, ['{f}'], sample)) as number[];
      expect(quick).toEqual(sample.flatMap((a) => sample.map((b) => (compareEntryIds(a, b) < 0 ? 1 : 0))));
      expect(quick.filter((v) => v === 1)).toHaveLength((sample.length * (sample.length - 1)) / 2);
    });
  });

  describe('receipts and deadlines-index members', () => {
    it('are written the same way and each side reads what the other wrote', async () => {
      const token = newReceiptToken();
      const cases: [number, number][] = [
        [1, 1],
        [3, 1000],
        [2_147_483_647, 7],
        [9_007_199_254_740_000, 2],
      ];
      const lua = program(
        ['receipts'],
        `local token, out = ARGV[1], {}
for i = 2, #ARGV, 3 do
  local receipt = respire_receipt(tonumber(ARGV[i + 1]), token, tonumber(ARGV[i + 2]))
  out[#out + 1] = respire_member(ARGV[i], receipt)
end
for i = 2, #ARGV, 3 do
  local id, count, receipt = respire_parse_member(ARGV[i] .. ':' .. ARGV[i + 1])
  out[#out + 1] = { id, respire_int(count), receipt or false }
end
return out`,
      );
      const args = [token, ...cases.flatMap(([count, position], i) => [`${1700000000000 + i}-${i}`, String(count), String(position)])];
      const reply = (await evalLua(lua, ['{f}'], args)) as unknown[];
      const written = reply.slice(0, cases.length) as string[];
      expect(written).toEqual(cases.map(([count, position], i) => leaseMember(`${1700000000000 + i}-${i}`, receiptOf(count, token, position))));
      expect(written[1]).toBe(`1700000000001-1:3.${token}.1000`);
      for (const [i, member] of written.entries()) {
        const parsed = parseLeaseMember(member);
        expect(parsed).toEqual({ entryId: `${1700000000000 + i}-${i}`, deliveryCount: cases[i]![0], receipt: receiptOf(cases[i]![0], token, cases[i]![1]) });
        expect(isReceipt(parsed!.receipt)).toBe(true);
      }
      // A revoked member (a NACK): the count alone, no receipt.
      expect((reply.slice(cases.length) as unknown[][]).map((r) => r.map((v) => v ?? false))).toEqual(
        cases.map(([count], i) => [`${1700000000000 + i}-${i}`, String(count), false]),
      );
      expect(parseLeaseMember(leaseMember('5-1', 4))).toEqual({ entryId: '5-1', deliveryCount: 4, receipt: undefined });
    });
  });

  describe('queue entries', () => {
    it('an entry Lua appends reads back in TypeScript, and one TypeScript writes reads back in Lua, bytes intact', async () => {
      const key = `{${uniquePrefix('qe')}}:stream`;
      const payload = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const headers = Buffer.from([0, 1, 2, 255, 58, 44]);
      const add = program(
        ['queue-entries'],
        `local due = ARGV[2] ~= '' and tonumber(ARGV[2]) or nil
return redis.call('XADD', KEYS[1], '*', unpack(respire_queue_entry_fields(ARGV[1], due, ARGV[3])))`,
      );
      await evalLua(add, [key], [payload, '1700000000123', headers]);
      await evalLua(add, [key], [payload, '', '']);
      const entries = (await binary(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][];
      expect(readQueueEntry(pairsOf(entries[0]![1]))).toEqual({ payload, dueMs: 1_700_000_000_123, headers });
      expect(readQueueEntry(pairsOf(entries[1]![1]))).toEqual({ payload, dueMs: undefined, headers: undefined });
      expect(entries[1]![1].map(String)[0]).toBe('payload');
      expect(entries[1]![1]).toHaveLength(2);

      await raw.send(['XADD', key, '*', ...queueEntryFields({ payload, dueMs: 1_700_000_000_999, headers })]);
      await raw.send(['XADD', key, '*', ...queueEntryFields({ payload, headers: Buffer.alloc(0) })]);
      const read = program(
        ['queue-entries'],
        `local out = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
  if _ > 2 then
    out[#out + 1] = respire_queue_entry_due(entry[2]) or false
    out[#out + 1] = respire_queue_entry_headers(entry[2])
    out[#out + 1] = #entry[2]
  end
end
return out`,
      );
      const luaRead = (await (raw.client as { sendCommand(a: unknown[], o: object): Promise<unknown> }).sendCommand(['EVAL', read, '1', key], {
        typeMapping: { 36: Buffer },
      })) as unknown[];
      expect(luaRead[0]).toBe(1_700_000_000_999);
      expect(Buffer.compare(luaRead[1] as Buffer, headers)).toBe(0);
      expect(luaRead[2]).toBe(6);
      expect(luaRead[3] ?? false).toBe(false);
      expect((luaRead[4] as Buffer).length).toBe(0);
      expect(luaRead[5]).toBe(2);
    });
  });

  describe('queue message headers', () => {
    it('round-trip through a stream field byte for byte, strings as strings and bytes as bytes; foreign bytes get a problem', async () => {
      const key = `{${uniquePrefix('qh')}}:stream`;
      const headers = { a: 'x', 'ünï:code': 's1:', raw: Buffer.from([0, 58, 115, 98, 255]), empty: '', none: Buffer.alloc(0) };
      const encoded = writeHeaders(Object.entries(headers));
      // Lua copies the field and never parses it: what it hands back is what TypeScript wrote.
      const copy = program(['queue-entries'], `return redis.call('XADD', KEYS[1], '*', unpack(respire_queue_entry_fields('p', nil, ARGV[1])))`);
      await evalLua(copy, [key], [encoded]);
      const [, fields] = ((await binary(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][])[0]!;
      const entry = readQueueEntry(pairsOf(fields));
      expect(Buffer.compare(entry.headers!, encoded)).toBe(0);
      expect(readHeaders(entry.headers!)).toEqual({ headers });
      expect(readHeaders(Buffer.alloc(0))).toEqual({ headers: {} });
      for (const foreign of ['2', '1x', '11:a', '1:as', '1:ax1:v', '1:as5:v', '0:s1:v', '1:as1:v1:as1:w']) {
        expect(readHeaders(Buffer.from(foreign)), foreign).toHaveProperty('problem');
      }
    });
  });

  describe('queue dead-letter records', () => {
    it('a record Lua appends reads back in TypeScript, and one TypeScript writes is a record to Lua, payload bytes intact', async () => {
      const key = `{${uniquePrefix('qdl')}}:dead`;
      const payload = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const add = program(['queue-dead-letters'], 'return respire_queue_dead_letter_add(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]))');
      await evalLua(add, [key], [payload, '1700000000000-5', '5']);
      const [, fields] = ((await binary(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][])[0]!;
      expect(readQueueDeadLetter(pairsOf(fields))).toEqual({ payload, sourceId: '1700000000000-5', deliveryCount: 5 });
      expect(fields.slice(0, 1).concat(fields[2]!, fields[4]!).map(String)).toEqual(['payload', 'source_id', 'delivery_count']);

      const written = queueDeadLetterFields({ payload, sourceId: '9-9', deliveryCount: 12 });
      await raw.send(['XADD', key, '*', ...written]);
      const read = program(
        ['queue-dead-letters'],
        `local record = redis.call('XRANGE', KEYS[1], '-', '+')[2][2]
return { respire_queue_dead_letter_problem(record) or false, respire_queue_dead_letter_payload(record) }`,
      );
      const [problem, luaPayload] = (await (raw.client as { sendCommand(a: unknown[], o: object): Promise<unknown> }).sendCommand(['EVAL', read, '1', key], {
        typeMapping: { 36: Buffer },
      })) as [unknown, Buffer];
      expect(problem ?? false).toBe(false);
      expect(Buffer.compare(luaPayload, payload)).toBe(0);
    });

    it('a grouped record (group after headers) round-trips both ways; an ungrouped one is byte for byte as before', async () => {
      const key = `{${uniquePrefix('gdl')}}:dead`;
      const payload = Buffer.from([0, 255, 10, 13]);
      const headers = Buffer.from('1:k1:v');
      const add = program(
        ['queue-dead-letters'],
        "return respire_queue_dead_letter_add(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5] ~= '' and ARGV[5] or nil)",
      );
      await evalLua(add, [key], [payload, '1700000000000-5', '3', headers, 'g-\u00e9']);
      await evalLua(add, [key], [payload, '1700000000000-6', '4', '', 'g2']);
      await evalLua(add, [key], [payload, '1700000000000-7', '5', headers, '']);
      const entries = (await binary(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][];
      const names = entries.map(([, fields]) => fields.filter((_, i) => i % 2 === 0).map(String));
      expect(names).toEqual([
        ['payload', 'source_id', 'delivery_count', 'headers', 'group'],
        ['payload', 'source_id', 'delivery_count', 'group'],
        ['payload', 'source_id', 'delivery_count', 'headers'],
      ]);
      expect(readQueueDeadLetter(pairsOf(entries[0]![1]))).toEqual({ payload, sourceId: '1700000000000-5', deliveryCount: 3, headers, group: 'g-\u00e9' });
      expect(readQueueDeadLetter(pairsOf(entries[1]![1]))).toEqual({ payload, sourceId: '1700000000000-6', deliveryCount: 4, group: 'g2' });
      expect(readQueueDeadLetter(pairsOf(entries[2]![1]))).toEqual({ payload, sourceId: '1700000000000-7', deliveryCount: 5, headers });

      const read = program(
        ['queue-dead-letters'],
        `local out = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
  local r = entry[2]
  out[#out + 1] = { respire_queue_dead_letter_problem(r) or false, respire_queue_dead_letter_headers(r), respire_queue_dead_letter_group(r) or false,
    respire_queue_dead_letter_grouped_problem(r) or false, respire_queue_dead_letter_ungrouped_problem(r) or false }
end
return out`,
      );
      const key2 = `{${uniquePrefix('gdl')}}:dead`;
      await raw.send(['XADD', key2, '*', ...queueDeadLetterFields({ payload, sourceId: '9-9', deliveryCount: 2, headers, group: 'g' })]);
      await raw.send(['XADD', key2, '*', ...queueDeadLetterFields({ payload, sourceId: '9-10', deliveryCount: 2, group: 'h' })]);
      await raw.send(['XADD', key2, '*', ...queueDeadLetterFields({ payload, sourceId: '9-11', deliveryCount: 2 })]);
      await raw.send(['XADD', key2, '*', ...queueDeadLetterFields({ payload, sourceId: '9-12', deliveryCount: 2, group: '' })]);
      await raw.send(['XADD', key2, '*', 'payload', payload, 'source_id', '9-13', 'delivery_count', '2', 'group', '']);
      await raw.send(['XADD', key2, '*', 'payload', payload, 'source_id', '9-14', 'delivery_count', '2', 'group', 'g'.repeat(1025)]);
      await raw.send(['XADD', key2, '*', 'payload', payload, 'source_id', '9-15', 'delivery_count', '2', 'group', 'g'.repeat(1024)]);
      await raw.send(['XADD', key2, '*', 'payload', payload, 'source_id', '9-16', 'delivery_count', '2', 'group', Buffer.from([0xed, 0xa0, 0x80])]);
      await raw.send(['XADD', key2, '*', 'payload', payload, 'source_id', '9-17', 'delivery_count', '2', 'group', '\u00e9\u{1f600}']);
      const fromLua = (await evalLua(read, [key2], [])) as unknown[][];
      const norm = (v: unknown) => (v === null ? false : v);
      expect(fromLua.map((r) => r.map(norm))).toEqual([
        [false, '1:k1:v', 'g', false, expect.stringContaining('group field')],
        [false, '', 'h', false, expect.stringContaining('group field')],
        [false, '', false, expect.stringContaining('no group field'), false],
        [false, '', false, expect.stringContaining('no group field'), false],
        [false, '', '', 'group is empty: it names no group to retry it into', expect.stringContaining('group field')],
        [false, '', 'g'.repeat(1025), 'group is longer than 1,024 bytes: not a group ID a send accepts', expect.stringContaining('group field')],
        [false, '', 'g'.repeat(1024), false, expect.stringContaining('group field')],
        [false, '', expect.anything(), 'group is not well-formed UTF-8: not a group ID a send accepts', expect.stringContaining('group field')],
        [false, '', '\u00e9\u{1f600}', false, expect.stringContaining('group field')],
      ]);
    });

    it("a grouped record's group is well-formed UTF-8 in Lua exactly when Node's decoder keeps its bytes", async () => {
      // Edges of every sequence length (stray, overlong, surrogate, past U+10FFFF, truncated), then random bytes biased high.
      const groups = [
        [0x7f],
        [0x80],
        [0xc1, 0xbf],
        [0xc2, 0x80],
        [0xdf, 0xbf],
        [0xe0, 0x9f, 0xbf],
        [0xe0, 0xa0, 0x80],
        [0xed, 0x9f, 0xbf],
        [0xed, 0xa0, 0x80],
        [0xee, 0x80, 0x80],
        [0xef, 0xbf, 0xbf],
        [0xf0, 0x8f, 0xbf, 0xbf],
        [0xf0, 0x90, 0x80, 0x80],
        [0xf4, 0x8f, 0xbf, 0xbf],
        [0xf4, 0x90, 0x80, 0x80],
        [0xf5, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
        [0x61, 0xf0, 0x9f, 0x98],
      ].map((b) => Buffer.from(b));
      let seed = 7;
      const next = () => (seed = (seed * 48_271) % 2_147_483_647);
      for (let i = 0; i < 400; i++)
        groups.push(Buffer.from(Array.from({ length: 1 + (next() % 6) }, () => (next() % 4 === 0 ? next() % 128 : 128 + (next() % 128)))));
      // Random text (code points of every length, no surrogates), then its bytes cut short or with a byte more.
      for (let i = 0; i < 100; i++) {
        const points = Array.from(
          { length: 1 + (next() % 4) },
          () => [next() % 0x80, 0x80 + (next() % 0x780), 0xe000 + (next() % 0x2000), 0x10000 + (next() % 0x100000)][next() % 4]!,
        );
        const bytes = Buffer.from(String.fromCodePoint(...points), 'utf8');
        groups.push(bytes, Buffer.concat([bytes, Buffer.from([next() % 256])]));
        if (bytes.length > 1) groups.push(bytes.subarray(0, bytes.length - 1));
      }
      const lua = program(
        ['queue-dead-letters'],
        `local out = {}
for i = 1, #ARGV do out[i] = respire_queue_dead_letter_grouped_problem({ 'payload', 'x', 'source_id', '1-1', 'delivery_count', '1', 'group', ARGV[i] }) or false end
return out`,
      );
      const fromLua = ((await evalLua(lua, ['{f}'], groups)) as unknown[]).map((v) => v ?? false);
      const wellFormed = groups.map((g) => Buffer.from(g.toString('utf8'), 'utf8').equals(g));
      expect(wellFormed.filter(Boolean).length).toBeGreaterThan(100);
      expect(wellFormed.filter((w) => !w).length).toBeGreaterThan(100);
      expect(fromLua).toEqual(wellFormed.map((w) => (w ? false : 'group is not well-formed UTF-8: not a group ID a send accepts')));
    });

    it('foreign records get the same problem from both', async () => {
      const foreign = [
        bytes('payload', 'x', 'source_id', '1-1'),
        bytes('payload', 'x', 'source_id', '1-1', 'delivery_count', 'two'),
        bytes('data', 'x', 'source_id', '1-1', 'delivery_count', '1'),
        bytes('payload', 'x', 'source_id', '1-1', 'delivery_count', '1', 'group', 'g', 'headers', 'h'),
        bytes('payload', 'x', 'source_id', '1-1', 'delivery_count', '1', 'group', 'g', 'group', 'h'),
        bytes('payload', 'x', 'source_id', '1-1', 'delivery_count', '1', 'other', 'g'),
      ];
      const lua = program(['queue-dead-letters'], 'return respire_queue_dead_letter_problem(ARGV) or false');
      for (const fields of foreign) {
        const fromLua = await evalLua(lua, ['{f}'], fields);
        const fromTs = readQueueDeadLetter(pairsOf(fields));
        expect('problem' in fromTs && fromTs.problem).toBe(fromLua);
      }
    });
  });

  describe('worker dead-letter records', () => {
    const check = program(['worker-dead-letters'], "respire_worker_dead_letter_check('1-1', ARGV)\nreturn 'ok'");

    it('a record Lua appends reads back in TypeScript, and one TypeScript writes is a record to Lua', async () => {
      const key = `{${uniquePrefix('wdl')}}:dead`;
      const original = bytes('order-id', '42', 'payload', '\u00e9t\u00e9');
      const add = program(
        ['worker-dead-letters'],
        'local fields = {}\nfor i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end\nreturn respire_worker_dead_letter_add(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], fields)',
      );
      await evalLua(add, [key], ['1700000000000-3', 'billing', '4', 'processing-failed', 'HttpError', ...original]);
      const [, fields] = ((await binary(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][])[0]!;
      expect(fields.filter((_, i) => i % 2 === 0 && i < 10).map(String)).toEqual([...WORKER_DEAD_LETTER_META]);
      expect(readWorkerDeadLetter(pairsOf(fields))).toEqual({
        sourceId: '1700000000000-3',
        group: 'billing',
        attempt: 4,
        reason: 'processing-failed',
        exceptionType: 'HttpError',
        fields: pairsOf(original),
      });

      const written = workerDeadLetterFields({ sourceId: '7-7', group: 'g', attempt: 2, reason: 'nack', exceptionType: '', fields: pairsOf(original) });
      const read = program(['worker-dead-letters'], 'return { respire_worker_dead_letter_problem(ARGV) or false, respire_worker_dead_letter_original(ARGV) }');
      const [problem, luaOriginal] = (await evalLua(read, ['{f}'], written)) as [unknown, string[]];
      expect(problem ?? false).toBe(false);
      expect(luaOriginal).toEqual(original.map(String));
    });

    it('foreign records get the same problem from both, the 1,024-pair limit included', async () => {
      const meta = (attempt = '1') =>
        bytes('_respire.source_id', '1-1', '_respire.group', 'g', '_respire.attempt', attempt, '_respire.reason', 'nack', '_respire.exception_type', '');
      const many = (n: number) => Array.from({ length: n }, (_, i) => bytes(`f${i}`, 'v')).flat();
      expect(MAX_DEAD_LETTER_FIELD_PAIRS).toBe(1024);
      const cases = [
        meta(),
        [...meta('x'), ...bytes('a', 'b')],
        [...bytes('_respire.group', 'g'), ...meta().slice(2), ...bytes('a', 'b')],
        [...meta(), ...many(1024)],
        [...meta(), ...many(1025)],
      ];
      const lua = program(['worker-dead-letters'], 'return respire_worker_dead_letter_problem(ARGV) or false');
      const problems: unknown[] = [];
      for (const fields of cases) {
        const fromLua = await evalLua(lua, ['{f}'], fields);
        const fromTs = readWorkerDeadLetter(pairsOf(fields));
        expect('problem' in fromTs ? fromTs.problem : false).toBe(fromLua);
        problems.push(fromLua);
      }
      expect(problems).toEqual([
        'no original fields after the five _respire.* pairs',
        '_respire.attempt is not a whole number',
        'pair 1 is not _respire.source_id',
        false,
        'more than 1,024 original field/value pairs',
      ]);
      // A source entry may carry at most 1,024 pairs into a record.
      expect(await evalLua(check, ['{f}'], many(1024))).toBe('ok');
      await expect(evalLua(check, ['{f}'], many(1025))).rejects.toThrow(/^RESPIRE_TOO_MANY_FIELDS entry 1-1 has more than 1024 field\/value pairs/);
    });
  });
});
