// What the pages show and how they page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '@respire/testing';
import {
  addWorkerDeadLetter,
  csrfFor,
  deadLetterQueueMessages,
  get,
  post,
  q,
  queueOf,
  range,
  readAsConsumer,
  startBrokenWorld,
  startWorld,
  TOKENS,
  xadd,
  type BrokenWorld,
  xlen,
  type World,
} from './support.js';

/** What the pages show (counts, unknowns, bodies, payload rendering) and how they page. */
describe('pages on a standalone server', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'pages', dashboard: { pageSize: 2 } });
  });
  afterAll(() => world.close());

  it('shows queue counts and stream counts on the overview; an unknown lag reads "unknown", never 0', async () => {
    const queue = queueOf(world, 3);
    for (let i = 0; i < 4; i++) await queue.send(`m${i}`);
    await queue.receive(60_000, { max: 1 });
    const ids = [
      await xadd(world, world.stream.key, ['n', '1']),
      await xadd(world, world.stream.key, ['n', '2']),
      await xadd(world, world.stream.key, ['n', '3']),
    ];
    await world.raw(world.stream.key, ['XGROUP', 'CREATE', world.stream.key, world.stream.group, '0']);
    // A deleted entry the group has not read yet: Redis cannot tell the lag.
    await world.raw(world.stream.key, ['XDEL', world.stream.key, ids[1]!]);
    const status = await world.admin.streamStatus(world.stream.id);
    expect(status.groups[0]!.lag).toBeNull();

    const page = await get(world, '/');
    expect(page.status).toBe(200);
    const queueRow = new RegExp(`${world.queue.name}</a>[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
    // ready 3, in flight 1, due 0, dead letters 0, stream length 4
    expect([...queueRow.matchAll(/<td class="num[^"]*">(?:<a [^>]*>)?([^<]*)/g)].map((m) => m[1])).toEqual(['3', '1', '0', '0', '4']);
    const groupRow = new RegExp(`>${world.stream.group}</a></td>[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
    expect(groupRow).toContain('<td class="num unknown">unknown</td>');
    expect(page.body).toContain('Server time');
    expect(page.body).not.toContain('id="unavailable-heading"');
  });

  it('shows leased messages without receipts, with their deadline in server time', async () => {
    const page = await get(world, `/deliveries${q({ id: world.queue.id })}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('leased');
    expect(page.body).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
    const receipts = (await world.raw(`{respire-queue:${world.queue.name}}:deadlines`, [
      'ZRANGE',
      `{respire-queue:${world.queue.name}}:deadlines`,
      '0',
      '-1',
    ])) as string[];
    expect(receipts).toHaveLength(1);
    const receipt = String(receipts[0]).split(':')[1]!;
    expect(receipt.length).toBeGreaterThan(4);
    expect(page.body).not.toContain(receipt);
  });

  it('pages the dead letters with a cursor and the pending entries of a group', async () => {
    for (let i = 0; i < 5; i++) await addWorkerDeadLetter(world, `1-${i}`, ['n', String(i)]);
    const seen: string[] = [];
    let path: string | undefined = `/dead-letters${q({ id: world.stream.id, order: 'oldest' })}`;
    for (let pages = 0; path && pages < 10; pages++) {
      const page = await get(world, path);
      expect(page.status).toBe(200);
      seen.push(...[...page.body.matchAll(/<th scope="row"><a [^>]*><code>(\d+-\d+)<\/code>/g)].map((m) => m[1]!));
      const next = /<a href="([^"]+)" rel="next">/.exec(page.body)?.[1];
      path = next ? next.replace(/&amp;/g, '&').replace(world.base, '') : undefined;
    }
    expect(seen).toEqual((await range(world, world.stream.dead)).map(([id]) => id));

    for (let i = 0; i < 3; i++) await xadd(world, world.stream.key, ['n', String(10 + i)]);
    await readAsConsumer(world, 'c-1', 10);
    const first = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group })}`);
    expect([...first.body.matchAll(/name="entry" value="(\d+-\d+)"/g)]).toHaveLength(2);
    expect(first.body).toContain('rel="next"');
  });

  it('shows an entry body on demand, and a deleted body as deleted', async () => {
    const pending = await world.admin.pending(world.stream.id, world.stream.group, { count: 10 });
    const [first, second] = pending.items;
    const shown = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group, body: first!.id })}`);
    expect(shown.body).toContain(`Entry <code>${first!.id}</code>`);
    expect(shown.body).toMatch(/<code><span class="name">n<\/span><\/code>[\s\S]*?<pre>1<\/pre>/);
    await world.raw(world.stream.key, ['XDEL', world.stream.key, second!.id]);
    const gone = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group, body: second!.id })}`);
    expect(gone.body).toContain('deleted or trimmed');
  });

  it('shows worker records with their _respire metadata beside the original fields, and queue records with payload, source ID and delivery count', async () => {
    const record = await addWorkerDeadLetter(world, '5-5', ['order-id', '99', 'note', 'fragile'], { reason: 'explicit', exceptionType: '', attempt: 2 });
    const page = await get(world, `/dead-letter${q({ id: world.stream.id, record })}`);
    expect(page.body).toContain('<dt>Source entry</dt><dd><code>5-5</code></dd>');
    expect(page.body).toContain('<dt>Reason</dt><dd><span class="name">explicit</span></dd>');
    expect(page.body).toContain('<dt>Attempt</dt><dd>2</dd>');
    expect(page.body).toContain('<dt>Group</dt><dd><span class="name">fulfillment</span></dd>');
    expect(page.body).toMatch(/<code><span class="name">order-id<\/span><\/code>[\s\S]*?<pre>99<\/pre>/);
    expect(page.body).not.toContain('<code>_respire.source_id</code>');

    await deadLetterQueueMessages(world, ['{"order":7,"items":["a"]}']);
    const queueRecord = (await range(world, world.queue.deadKey)).find(([, fields]) => fields[1]!.startsWith('{"order":7'));
    const queuePage = await get(world, `/dead-letter${q({ id: world.queue.id, record: queueRecord![0] })}`);
    expect(queuePage.body).toContain('<dt>Delivery count</dt><dd>1</dd>');
    expect(queuePage.body).toContain('JSON');
    expect(queuePage.body).toContain('&quot;order&quot;: 7');
  });
});

describe('resources whose status could not be read (Overview.unavailable)', () => {
  let world: BrokenWorld;
  beforeAll(async () => {
    world = await startBrokenWorld('unavailable', { brokenQueue: true });
    await xadd(world, world.stream.key, ['n', '1']);
  });
  afterAll(() => world.close());

  /** The unavailable section's rows: [name cell text, kind, code, message]. */
  const rows = (body: string) => {
    const section = /<section aria-labelledby="unavailable-heading">([\s\S]*?)<\/section>/.exec(body)?.[1] ?? '';
    return [
      ...section.matchAll(
        /<tr><th scope="row">([\s\S]*?)<\/th><td class="kind">([^<]*)<\/td><td class="danger"><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map((m) => m.slice(1));
  };
  const names = (body: string) => rows(body).map(([name]) => name!.replace(/<[^>]+>/g, ''));

  it('lists them with their error code and message, as text, beside the resources that could be read', async () => {
    const page = await get(world, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('The server refused the status of 3 resources; the others are shown');
    const listed = rows(page.body);
    expect(listed.map(([, kind, code]) => [kind, code])).toEqual([
      ['queue', 'WRONG_TYPE'],
      ['worker stream', 'WRONG_TYPE'],
      ['worker stream', 'WRONG_TYPE'],
    ]);
    expect(names(page.body)).toEqual([world.queue.name, `&lt;img src=x onerror=alert(7)&gt; ${world.broken}`, `payroll ${world.hidden}`]);
    for (const [, , , message] of listed) expect(message).toMatch(/WRONGTYPE|another type|wrong kind/);
    expect(page.body).not.toContain('<img src=x');
    // The stream that could be read is still on the page, with its counts.
    expect(page.body).toContain(`>orders ${world.tag}</a>`);
    // A viewer sees them too.
    expect(rows((await get(world, '/', TOKENS.viewer)).body)).toHaveLength(3);
  });

  it('applies the guard to them: a resource hidden from a principal stays hidden when it is unavailable', async () => {
    const page = await get(world, '/', TOKENS.limited);
    expect(page.status).toBe(200);
    expect(page.body).toContain('The server refused the status of 2 resources');
    expect(names(page.body)).toEqual([world.queue.name, `&lt;img src=x onerror=alert(7)&gt; ${world.broken}`]);
    expect(page.body).not.toContain('payroll');
    expect(page.body).not.toContain(world.hidden);
  });

  it("pages them like the other lists (?upage=), keeping the other lists' pages", async () => {
    const paged = await startBrokenWorld('unavailable-pages', { brokenQueue: true, pageSize: 2 });
    try {
      const first = await get(paged, '/');
      expect(rows(first.body)).toHaveLength(2);
      expect(first.body).toContain('Unavailable resources, 1 to 2 of 3');
      expect(first.body).toContain('?upage=1');
      const second = await get(paged, '/?upage=1&spage=0');
      expect(names(second.body)).toEqual([`payroll ${paged.hidden}`]);
      expect(second.body).toContain('Unavailable resources, 3 to 3 of 3');
    } finally {
      await paged.close();
    }
  });
});

describe('hostile data (server-rendered HTML)', () => {
  const svg = '"><svg onload=alert(1)>';
  let world: World;
  let hostile: { key: string; dead: string };
  beforeAll(async () => {
    const tag = `evil-${Date.now()}`;
    hostile = { key: `{${tag}}${svg}`, dead: `{${tag}}:dead<script>alert(2)</script>` };
    world = await startWorld({ label: 'evil', extraStreams: [{ stream: hostile.key, deadLetterStream: hostile.dead }] });
    const id = await xadd(world, hostile.key, [svg, '<script>alert(3)</script>']);
    await world.raw(hostile.key, ['XGROUP', 'CREATE', hostile.key, `g${svg}`, '0']);
    await world.raw(hostile.key, ['XREADGROUP', 'GROUP', `g${svg}`, `c${svg}`, 'COUNT', '1', 'STREAMS', hostile.key, '>']);
    await addWorkerDeadLetter(
      world,
      id,
      [svg, `<img src=x onerror=alert(4)>`],
      { reason: `<b>${svg}</b>`, exceptionType: `</code><script>alert(5)</script>` },
      hostile.dead,
    );
    await addWorkerDeadLetter(world, id, ['big', Buffer.alloc(1024 * 1024, 'A')], {}, hostile.dead);
    await addWorkerDeadLetter(world, id, ['bytes', Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x3c, 0x73])], {}, hostile.dead);
  });
  afterAll(() => world.close());

  const pages = () => ['/', `/stream${q({ id: hostile.key })}`, `/group${q({ id: hostile.key, group: `g${svg}` })}`, `/dead-letters${q({ id: hostile.key })}`];

  it('renders stream, group, consumer and field names, reasons, exception types and payloads as text', async () => {
    for (const path of pages()) {
      const page = await get(world, path);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toContain('<svg');
      expect(page.body, path).not.toMatch(/<script>alert|<img src=x|<b>&quot;/);
      // The only "onload=" / "onerror=" left are inside escaped text.
      expect(page.body.replaceAll('&lt;svg onload=', '').replaceAll('&lt;img src=x onerror=', ''), path).not.toMatch(/onload=|onerror=/);
    }
    const list = await get(world, `/dead-letters${q({ id: hostile.key })}`);
    expect(list.body).toContain('&quot;&gt;&lt;svg onload=alert(1)&gt;');
    expect(list.body).toContain('&lt;/code&gt;&lt;script&gt;alert(5)&lt;/script&gt;');
  });

  it('caps a 1 MiB value at 64 KiB and says so; shows invalid UTF-8 as hex', async () => {
    const records = await world.admin.deadLetters(hostile.key, { count: 10, order: 'oldest' });
    const big = await get(world, `/dead-letter${q({ id: hostile.key, record: records.items[1]!.id })}`);
    expect(big.body).toContain('Showing the first 64 KiB of 1.0 MiB');
    expect(big.body.length).toBeLessThan(80 * 1024);
    const bytes = await get(world, `/dead-letter${q({ id: hostile.key, record: records.items[2]!.id })}`);
    expect(bytes.body).toContain('hex (not valid UTF-8)');
    expect(bytes.body).toContain('ff fe c3 28 3c 73');
  });

  it("shows a delayed send's due time and state (waiting, then parked) and its headers inert: markup, ANSI escapes, a very long value, bytes; unreadable headers say so", async () => {
    const queue = queueOf(world, 3);
    const long = `${'v'.repeat(30_000)}<tail>`;
    const headers = {
      '<script>alert(7)</script>': `${svg}<script>alert(8)</script>`,
      ansi: '\u001b[31mred\u001b]0;pwned\u0007\u009b2J',
      long,
      raw: Buffer.from([0xff, 0x00, 0x3c, 0x62, 0x3e]),
      json: Buffer.from('{"a":1}'),
    };
    const id = await queue.send('later', { delayMs: 600_000, headers });
    const mine = (path: string) => `${path}${q({ id: world.queue.id })}`;
    const check = (body: string) => {
      expect(body).not.toMatch(/<script>alert|<svg|<b>/);
      // eslint-disable-next-line no-control-regex
      expect(body).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
    };

    const list = await get(world, mine('/messages'));
    expect(list.status).toBe(200);
    check(list.body);
    const row = new RegExp(`${id}</code></a></th>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    // 10 min 00 s when the page is read within the millisecond the send's due time was set from.
    expect(row).toMatch(/<td>delayed until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC <span class="muted small">\(in (?:9 min 5\d|10 min 00) s\)<\/span><\/td>/);
    expect(row).toContain('<code>&lt;script&gt;alert(7)&lt;/script&gt;, ansi, long, raw, json</code>');

    const waiting = await get(world, `/message${q({ id: world.queue.id, entry: id })}`);
    expect(waiting.status).toBe(200);
    check(waiting.body);
    expect(waiting.body).toContain('Delayed send: not yet delivered, not receivable before its due time');
    expect(waiting.body).toMatch(/<dt>Delayed until<\/dt><dd class="">\d{4}-\d\d-\d\d [\d:.]+ UTC \(in (?:9 min 5\d|10 min 00) s; sent with a delay\)<\/dd>/);
    expect(waiting.body).toContain('<dt>Headers</dt><dd class="">5 (below)</dd>');
    expect(waiting.body).toContain('&lt;script&gt;alert(7)&lt;/script&gt;');
    expect(waiting.body).toContain('&quot;&gt;&lt;svg onload=alert(1)&gt;&lt;script&gt;alert(8)&lt;/script&gt;');
    expect(waiting.body).toContain('\\u001B[31mred\\u001B]0;pwned\\u0007\\u009B2J');
    expect(waiting.body).toContain(`${'v'.repeat(30_000)}&lt;tail&gt;`);
    expect(waiting.body).toContain('<span class="tag">bytes, hex (not valid UTF-8)</span><span class="muted small">5 B</span>');
    expect(waiting.body).toContain('ff 00 3c 62 3e');
    expect(waiting.body).toContain('<span class="tag">bytes, JSON</span>');
    expect(waiting.body).toContain('<span class="tag">string</span>');
    // Decoded above, so the raw fields (the encoded headers) are not shown again; no actions before a receive parks it.
    expect(waiting.body).not.toContain('All fields');
    expect(waiting.body).not.toContain('Release now');
    const found = await get(world, `/find${q({ id: world.queue.id, q: id })}`);
    expect(found.body).toMatch(/>Delayed send until \d{4}-\d\d-\d\d [\d:.]+ UTC: not yet delivered</);

    // A receive meets it before its due time and parks it: delayed, delivery count 0, and an operator can delete it.
    expect(await queue.receive(60_000)).toEqual([]);
    const parked = await get(world, `/message${q({ id: world.queue.id, entry: id })}`);
    check(parked.body);
    expect(parked.body).toContain('Delayed send: not yet delivered, waiting for its due time');
    expect(parked.body).not.toContain('Lease deadline');
    expect(parked.body).toContain('Release now');
    const confirm = /href="([^"]*\/confirm\/delete-message[^"]*)"/.exec(parked.body)![1]!.replaceAll('&amp;', '&');
    expect(confirm).toContain('deliveryCount=0');
    const asked = await get(world, new URL(confirm, world.url).href);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('(a delayed send, not yet delivered) is acknowledged for good');
    const inFlight = await get(world, `/messages${q({ id: world.queue.id, view: 'in-flight' })}`);
    expect(inFlight.body).toContain('<td>delayed send, not yet delivered</td>');
    expect((await get(world, `/find${q({ id: world.queue.id, q: id })}`)).body).toMatch(/>Delayed send until [\d-]+ [\d:.]+ UTC: not yet delivered</);

    // Headers another writer made, not in the queue's format: said so, and the raw fields shown.
    const foreign = await xadd(world, `{respire-queue:${world.queue.name}}:stream`, ['payload', 'p', 'headers', '9<b>bold</b>']);
    const unreadable = await get(world, `/message${q({ id: world.queue.id, entry: foreign })}`);
    check(unreadable.body);
    expect(unreadable.body).toContain('Unreadable: its headers field is not in the queue&#39;s format');
    expect(unreadable.body).toContain('All fields');
    expect(unreadable.body).toContain('9&lt;b&gt;bold&lt;/b&gt;');
    const listed = await get(world, mine('/messages'));
    expect(new RegExp(`${foreign}</code></a></th>[\\s\\S]*?</tr>`).exec(listed.body)?.[0]).toContain('<td class="preview warn"><code>unreadable</code>');
  });

  it('escapes query parameters echoed on a page', async () => {
    await world.raw(world.stream.key, ['XGROUP', 'CREATE', world.stream.key, world.stream.group, '0', 'MKSTREAM']);
    const page = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group, consumer: `${svg}<script>alert(6)</script>` })}`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<svg');
    expect(page.body).not.toContain('<script>alert(6)');
    expect(page.body).toContain('&lt;script&gt;alert(6)&lt;/script&gt;');
  });
});

describe('Cluster: the queue and the worker stream in different slots', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'cl', cluster: true });
  });
  afterAll(() => world.close());

  it('shows both on the overview and retries and deletes dead letters of each', async () => {
    const slot = async (key: string) => Number(await world.raw(key, ['CLUSTER', 'KEYSLOT', key]));
    expect(await slot(world.queue.id)).not.toBe(await slot(world.stream.key));

    await deadLetterQueueMessages(world, ['cluster order']);
    const source = await xadd(world, world.stream.key, ['order-id', '3']);
    const record = await addWorkerDeadLetter(world, source, ['order-id', '3']);
    await readAsConsumer(world, 'c-1', 1);
    const overview = await get(world, '/');
    expect(overview.status).toBe(200);
    expect(overview.body).toContain(world.queue.name);
    expect(overview.body).toContain(`>${world.stream.group}</a>`);

    const token = await csrfFor(world);
    expect((await post(world, '/actions/retry', { id: world.stream.id, record, _csrf: token })).status).toBe(303);
    expect(await xlen(world, world.stream.dead)).toBe(0);
    expect((await range(world, world.stream.key)).at(-1)![1]).toEqual(['order-id', '3']);

    const [queueRecord] = await range(world, world.queue.deadKey);
    expect((await post(world, '/actions/retry', { id: world.queue.id, record: queueRecord![0], _csrf: token })).status).toBe(303);
    expect((await queueOf(world, 5).receive(10_000, { max: 5 })).map((m) => m.payload)).toEqual(['cluster order']);

    const release = await post(world, '/actions/release', {
      id: world.stream.id,
      group: world.stream.group,
      entry: source,
      deliveryCount: 1,
      consumer: 'c-1',
      _csrf: token,
    });
    expect(release.status).toBe(303);
    for (const path of [
      `/group${q({ id: world.stream.id, group: world.stream.group })}`,
      `/deliveries${q({ id: world.queue.id })}`,
      `/dead-letters${q({ id: world.queue.id })}`,
    ]) {
      expect((await get(world, path)).status, path).toBe(200);
    }
  });
});

describe('bounded reads', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'big' });
    // 200,000 dead letters and a pending entries list of 100,000, made inside Redis.
    await world.raw(world.stream.dead, [
      'EVAL',
      "for i = 1, 200000 do redis.call('XADD', KEYS[1], '*', '_respire.source_id', i .. '-0', '_respire.group', 'g', '_respire.attempt', '3', '_respire.reason', 'explicit', '_respire.exception_type', '', 'n', i) end",
      '1',
      world.stream.dead,
    ]);
    await world.raw(world.stream.key, [
      'EVAL',
      "for i = 1, 100000 do redis.call('XADD', KEYS[1], '*', 'n', i) end redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0') redis.call('XREADGROUP', 'GROUP', ARGV[1], 'c-1', 'COUNT', '100000', 'STREAMS', KEYS[1], '>') return 0",
      '1',
      world.stream.key,
      world.stream.group,
    ]);
  }, 120_000);
  afterAll(async () => {
    await world.raw(world.stream.key, ['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
    await world.raw(world.stream.key, ['CONFIG', 'SET', 'slowlog-max-len', '128']);
    await world.raw(world.stream.key, ['UNLINK', world.stream.key, world.stream.dead]);
    await world.close();
  });

  it('reads pages of a 200,000-record dead-letter stream and a 100,000-entry PEL with COUNT, never the whole range', async () => {
    await world.raw(world.stream.key, ['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
    await world.raw(world.stream.key, ['CONFIG', 'SET', 'slowlog-max-len', '10000']);
    await world.raw(world.stream.key, ['SLOWLOG', 'RESET']);
    const started = Date.now();
    const paths = [
      '/',
      `/dead-letters${q({ id: world.stream.id })}`,
      `/dead-letters${q({ id: world.stream.id, order: 'oldest' })}`,
      `/group${q({ id: world.stream.id, group: world.stream.group })}`,
      `/confirm/job${q({ id: world.stream.id, action: 'retry' })}`,
    ];
    for (const path of paths) {
      const page = await get(world, path);
      expect(page.status, path).toBe(200);
      expect(page.body.length, path).toBeLessThan(200_000);
    }
    const elapsed = Date.now() - started;
    const log = (await world.raw(world.stream.key, ['SLOWLOG', 'GET', '10000'])) as unknown[][];
    await world.raw(world.stream.key, ['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
    const commands = log.map((entry) => (entry[3] as unknown[]).map(String));
    const reads = commands.filter((args) => ['XRANGE', 'XREVRANGE', 'XPENDING', 'SCAN'].includes(args[0]!.toUpperCase()));
    expect(reads.length).toBeGreaterThan(0);
    for (const args of reads) {
      const count = args.findIndex((a) => a.toUpperCase() === 'COUNT');
      const bounded = args[0]!.toUpperCase() === 'XPENDING' ? args.length >= 6 && Number(args[5]) <= 1000 : count > 0 && Number(args[count + 1]) <= 1000;
      expect(bounded, args.join(' ')).toBe(true);
    }
    expect(commands.some((args) => args[0]!.toUpperCase() === 'KEYS')).toBe(false);
    expect(elapsed).toBeLessThan(10_000);
  });
});

describe('on the fake server (@respire/testing), which runs the same Lua', () => {
  it('renders the pages and retries a dead letter of each kind', async () => {
    const fake = await FakeRedisServer.start({ version: '7.0' });
    const world = await startWorld({ label: 'fake', url: fake.url });
    try {
      await deadLetterQueueMessages(world, ['fake order']);
      const source = await xadd(world, world.stream.key, ['order-id', '8']);
      const record = await addWorkerDeadLetter(world, source, ['order-id', '8']);
      await readAsConsumer(world, 'c-1', 1);
      for (const path of [
        '/',
        `/group${q({ id: world.stream.id, group: world.stream.group })}`,
        `/dead-letters${q({ id: world.queue.id })}`,
        `/deliveries${q({ id: world.queue.id })}`,
      ]) {
        expect((await get(world, path)).status, path).toBe(200);
      }
      const token = await csrfFor(world);
      expect((await post(world, '/actions/retry', { id: world.stream.id, record, _csrf: token })).status).toBe(303);
      const [queueRecord] = await range(world, world.queue.deadKey);
      expect((await post(world, '/actions/retry', { id: world.queue.id, record: queueRecord![0], _csrf: token })).status).toBe(303);
      expect(await xlen(world, world.stream.dead)).toBe(0);
      expect((await queueOf(world, 5).receive(10_000, { max: 5 })).map((m) => m.payload)).toEqual(['fake order']);
    } finally {
      await world.close();
      await fake.close();
    }
  });
});
