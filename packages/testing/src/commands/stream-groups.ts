// Consumer-group commands of the fake server (XGROUP, XINFO).
import { CommandError, OK, fail, mapOf, type Reply } from '../reply.js';
import { ConsumerGroup, Stream, formatId, parseId, type StreamId } from '../stream-model.js';
import { entryReply, noGroupForKey, streamAt, streamCommand } from './stream-common.js';
import { container, is, keyRange, parseInteger, type CommandContext, type CommandSpec } from './types.js';

const KEY_MUST_EXIST =
  'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.';

function groupStartId(stream: Stream | undefined, text: string): StreamId {
  if (text === '$') return stream?.lastId ?? { ms: 0, seq: 0 };
  return parseId(text, 0, true);
}

function parseEntriesRead(ctx: CommandContext, i: number): number | null | undefined {
  if (i >= ctx.args.length) return undefined;
  if (!ctx.model.streamLag || !is(ctx.args[i], 'ENTRIESREAD') || ctx.args[i + 1] === undefined) fail();
  const n = parseInteger(ctx.args[i + 1]!);
  if (n < 0 && n !== -1) throw new CommandError('ERR value for ENTRIESREAD must be positive or -1');
  return n === -1 ? null : n;
}

const xgroup = container(
  'xgroup',
  -2,
  {
    create: streamCommand(
      'xgroup|create',
      -5,
      true,
      (ctx) => {
        const [, , key, name, idText] = ctx.args as [string, string, string, string, string];
        let mkstream = false;
        let i = 5;
        if (is(ctx.args[i], 'MKSTREAM')) {
          mkstream = true;
          i++;
        }
        const entriesRead = parseEntriesRead(ctx, i);
        let stream = streamAt(ctx.db, key);
        const id = groupStartId(stream, idText);
        if (!stream) {
          if (!mkstream) throw new CommandError(KEY_MUST_EXIST);
          stream = ctx.db.getOrCreate(key, 'stream', () => new Stream());
        }
        if (stream.groups.has(name)) throw new CommandError('BUSYGROUP Consumer Group name already exists');
        stream.groups.set(name, new ConsumerGroup(name, id, entriesRead ?? null));
        ctx.db.touch(key);
        return OK;
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
    setid: streamCommand(
      'xgroup|setid',
      -5,
      true,
      (ctx) => {
        const [, , key, name, idText] = ctx.args as [string, string, string, string, string];
        const entriesRead = parseEntriesRead(ctx, 5);
        const stream = streamAt(ctx.db, key);
        if (!stream) throw new CommandError(KEY_MUST_EXIST);
        const group = stream.groups.get(name);
        if (!group) throw new CommandError(noGroupForKey(key, name));
        group.lastId = groupStartId(stream, idText);
        group.entriesRead = entriesRead ?? null;
        return OK;
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
    destroy: streamCommand(
      'xgroup|destroy',
      4,
      true,
      (ctx) => {
        const [, , key, name] = ctx.args as [string, string, string, string];
        const stream = streamAt(ctx.db, key);
        if (!stream) throw new CommandError(KEY_MUST_EXIST);
        const existed = stream.groups.delete(name);
        if (existed) ctx.db.touch(key);
        return existed ? 1 : 0;
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
    createconsumer: streamCommand(
      'xgroup|createconsumer',
      5,
      true,
      (ctx) => {
        const [, , key, name, consumer] = ctx.args as [string, string, string, string, string];
        const stream = streamAt(ctx.db, key);
        if (!stream) throw new CommandError(KEY_MUST_EXIST);
        const group = stream.groups.get(name);
        if (!group) throw new CommandError(noGroupForKey(key, name));
        if (group.consumers.has(consumer)) return 0;
        group.consumer(consumer, ctx.nowMs(), true);
        return 1;
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
    delconsumer: streamCommand(
      'xgroup|delconsumer',
      5,
      true,
      (ctx) => {
        const [, , key, name, consumer] = ctx.args as [string, string, string, string, string];
        const stream = streamAt(ctx.db, key);
        if (!stream) throw new CommandError(KEY_MUST_EXIST);
        const group = stream.groups.get(name);
        if (!group) throw new CommandError(noGroupForKey(key, name));
        if (!group.consumers.has(consumer)) return 0;
        let pending = 0;
        for (const [id, entry] of group.pel) {
          if (entry.consumer === consumer) {
            group.pel.delete(id);
            pending++;
          }
        }
        group.consumers.delete(consumer);
        return pending;
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
  },
  ['stream', 'slow'],
);

function infoStream(ctx: CommandContext): Reply {
  const key = ctx.args[2]!;
  const stream = streamAt(ctx.db, key);
  if (!stream) throw new CommandError('ERR no such key');
  const nodes = new Set(stream.entries.map((e) => e.node)).size;
  const head: Reply[] = ['length', stream.length, 'radix-tree-keys', nodes, 'radix-tree-nodes', nodes + 1, 'last-generated-id', formatId(stream.lastId)];
  if (ctx.model.streamLag) {
    head.push('max-deleted-entry-id', formatId(stream.maxDeletedId), 'entries-added', stream.entriesAdded, 'recorded-first-entry-id', formatId(stream.firstId));
  }
  if (ctx.model.idempotentAdd) {
    let iids = 0;
    for (const producer of stream.idmp.values()) iids += producer.size;
    head.push('idmp-duration', stream.idmpDurationS, 'idmp-maxsize', stream.idmpMaxSize, 'pids-tracked', stream.idmp.size, 'iids-tracked', iids);
    head.push('iids-added', stream.idmpAdded, 'iids-duplicates', stream.idmpDuplicates);
  }
  if (is(ctx.args[3], 'FULL')) {
    let count = 10;
    if (ctx.args.length > 4) {
      if (!is(ctx.args[4], 'COUNT') || ctx.args[5] === undefined) fail();
      count = parseInteger(ctx.args[5]);
    }
    const limit = count === 0 ? undefined : count;
    const groups = [...stream.groups.values()].map((g) => {
      const pel = g.pendingSorted();
      const fields: Reply[] = ['name', g.name, 'last-delivered-id', formatId(g.lastId)];
      if (ctx.model.streamLag) fields.push('entries-read', g.entriesRead, 'lag', stream.lag(g));
      fields.push(
        'pel-count',
        pel.length,
        'pending',
        pel.slice(0, limit).map((p) => [p.key, p.consumer, Math.floor(p.deliveryTimeMs), p.deliveryCount]),
        'consumers',
        [...g.consumers.values()].map((c) => {
          const own = pel.filter((p) => p.consumer === c.name);
          const cf: Reply[] = ['name', c.name, 'seen-time', Math.floor(c.seenTimeMs)];
          if (ctx.model.consumerInactive) cf.push('active-time', Math.floor(c.activeTimeMs));
          cf.push(
            'pel-count',
            own.length,
            'pending',
            own.slice(0, limit).map((p) => [p.key, Math.floor(p.deliveryTimeMs), p.deliveryCount]),
          );
          return mapOf(...cf);
        }),
      );
      return mapOf(...fields);
    });
    return mapOf(...head, 'entries', stream.entries.slice(0, limit).map(entryReply), 'groups', groups);
  }
  if (ctx.args.length > 3) fail();
  const first = stream.entries[0];
  const last = stream.entries[stream.length - 1];
  return mapOf(...head, 'groups', stream.groups.size, 'first-entry', first ? entryReply(first) : null, 'last-entry', last ? entryReply(last) : null);
}

const xinfo = container(
  'xinfo',
  -2,
  {
    stream: streamCommand('xinfo|stream', -3, false, infoStream, { keys: keyRange(2), categories: ['slow'] }),
    groups: streamCommand(
      'xinfo|groups',
      3,
      false,
      (ctx) => {
        const stream = streamAt(ctx.db, ctx.args[2]!);
        if (!stream) throw new CommandError('ERR no such key');
        return [...stream.groups.values()].map((g) => {
          const fields: Reply[] = ['name', g.name, 'consumers', g.consumers.size, 'pending', g.pel.size, 'last-delivered-id', formatId(g.lastId)];
          if (ctx.model.streamLag) fields.push('entries-read', g.entriesRead, 'lag', stream.lag(g));
          return mapOf(...fields);
        });
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
    consumers: streamCommand(
      'xinfo|consumers',
      4,
      false,
      (ctx) => {
        const [, , key, name] = ctx.args as [string, string, string, string];
        const stream = streamAt(ctx.db, key);
        if (!stream) throw new CommandError('ERR no such key');
        const group = stream.groups.get(name);
        if (!group) throw new CommandError(noGroupForKey(key, name));
        const now = ctx.nowMs();
        return [...group.consumers.values()].map((c) => {
          const fields: Reply[] = ['name', c.name, 'pending', group.pendingOf(c.name), 'idle', Math.max(0, Math.floor(now - c.seenTimeMs))];
          if (ctx.model.consumerInactive) fields.push('inactive', c.activeTimeMs < 0 ? -1 : Math.max(0, Math.floor(now - c.activeTimeMs)));
          return mapOf(...fields);
        });
      },
      { keys: keyRange(2), categories: ['slow'] },
    ),
  },
  ['stream', 'slow'],
);

export const streamGroupCommands: CommandSpec[] = [xgroup, xinfo];
