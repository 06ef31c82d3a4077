// Server and connection commands of the fake server (HELLO, INFO, CLIENT, TIME, ...).
import { CommandError, OK, StatusReply, VerbatimReply, fail, mapOf, type Reply } from '../reply.js';
import { VALKEY_VERSION } from '../versions.js';
import { command, container, is, parseInteger, type CommandContext, type CommandSpec } from './types.js';

const connection = (name: string, arity: number, handler: CommandSpec['handler'], extra: Partial<CommandSpec> = {}): CommandSpec =>
  command({ name, arity, flags: ['fast', 'no-auth'], categories: ['connection', 'fast'], handler, ...extra });

function helloReply(ctx: CommandContext): Reply {
  const valkey = ctx.model.flavour === 'valkey';
  return mapOf(
    'server',
    valkey ? 'valkey' : 'redis',
    'version',
    valkey ? VALKEY_VERSION : ctx.model.version,
    'proto',
    ctx.client.resp,
    'id',
    ctx.client.id,
    'mode',
    'standalone',
    'role',
    'master',
    'modules',
    [],
  );
}

function hello(ctx: CommandContext): Reply {
  const args = ctx.args;
  let proto: 2 | 3 | undefined;
  if (args.length > 1) {
    const version = Number(args[1]);
    if (!/^\d+$/.test(args[1]!)) throw new CommandError('ERR Protocol version is not an integer or out of range');
    if (version !== 2 && version !== 3) throw new CommandError('NOPROTO unsupported protocol version');
    proto = version;
  }
  let name: string | undefined;
  for (let i = 2; i < args.length; i++) {
    if (is(args[i], 'AUTH') && args[i + 2] !== undefined) {
      const user = ctx.engine.acl.authenticate(args[i + 1]!, args[i + 2]!);
      if (!user) throw new CommandError('WRONGPASS invalid username-password pair or user is disabled.');
      ctx.client.user = user;
      ctx.client.authenticated = true;
      i += 2;
    } else if (is(args[i], 'SETNAME') && args[i + 1] !== undefined) name = args[++i]!;
    else throw new CommandError(`ERR Syntax error in HELLO option '${args[i]}'`);
  }
  if (!ctx.client.authenticated)
    throw new CommandError(
      'NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
    );
  if (proto !== undefined) ctx.client.resp = proto;
  if (name !== undefined) ctx.client.name = name;
  return helloReply(ctx);
}

function auth(ctx: CommandContext): Reply {
  const [userName, password] = ctx.args.length === 2 ? ['default', ctx.args[1]!] : [ctx.args[1]!, ctx.args[2]!];
  if (ctx.args.length > 3) fail();
  if (ctx.args.length === 2 && ctx.engine.acl.defaultUser.nopass) {
    throw new CommandError('ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?');
  }
  const user = ctx.engine.acl.authenticate(userName, password);
  if (!user) throw new CommandError('WRONGPASS invalid username-password pair or user is disabled.');
  ctx.client.user = user;
  ctx.client.authenticated = true;
  return OK;
}

function info(ctx: CommandContext): Reply {
  const sections = ctx.args.slice(1).map((s) => s.toLowerCase());
  const want = (name: string): boolean => sections.length === 0 || sections.some((s) => s === name || s === 'all' || s === 'everything' || s === 'default');
  const valkey = ctx.model.flavour === 'valkey';
  const now = ctx.nowMs();
  const lines: string[] = [];
  if (want('server')) {
    lines.push('# Server');
    if (valkey) lines.push(`redis_version:${ctx.model.redisVersion}`, 'server_name:valkey', `valkey_version:${VALKEY_VERSION}`);
    else lines.push(`redis_version:${ctx.model.version}`);
    lines.push(
      'redis_git_sha1:00000000',
      'redis_mode:standalone',
      'os:respire-fake',
      'arch_bits:64',
      `process_id:${process.pid}`,
      `run_id:${'0'.repeat(40)}`,
      `tcp_port:${ctx.engine.port()}`,
      `server_time_usec:${Math.floor(now * 1000)}`,
      `uptime_in_seconds:${Math.floor((now - ctx.engine.startedAtMs) / 1000)}`,
      `uptime_in_days:${Math.floor((now - ctx.engine.startedAtMs) / 86_400_000)}`,
      'executable:respire-fake-redis',
      '',
    );
  }
  if (want('clients')) {
    lines.push('# Clients', `connected_clients:${ctx.engine.clients.size}`, `blocked_clients:${ctx.engine.blocked.size}`, '');
  }
  if (want('replication')) lines.push('# Replication', 'role:master', 'connected_slaves:0', '');
  if (want('keyspace')) {
    lines.push('# Keyspace');
    ctx.engine.databases.forEach((db, i) => {
      const keys = db.keys();
      if (keys.length) lines.push(`db${i}:keys=${keys.length},expires=${keys.filter((k) => db.expiresAt(k) !== undefined).length},avg_ttl=0`);
    });
    lines.push('');
  }
  return new VerbatimReply(lines.join('\r\n'));
}

function clientInfoLine(ctx: CommandContext, client = ctx.client): string {
  const now = ctx.nowMs();
  return (
    `id=${client.id} addr=${client.address} laddr=127.0.0.1:${ctx.engine.port()} fd=8 name=${client.name} ` +
    `age=${Math.floor((now - client.createdAtMs) / 1000)} idle=${Math.floor((now - client.lastCommandAtMs) / 1000)} ` +
    `flags=${client.blocked ? 'b' : 'N'} db=${client.dbIndex} sub=0 psub=0 ssub=0 multi=${client.multi ? client.multi.queued.length : -1} ` +
    `watch=${client.watched?.size ?? 0} qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 ` +
    `events=r cmd=${client.lastCommand} user=${client.user.name} redir=-1 resp=${client.resp} lib-name=${client.libName} lib-ver=${client.libVersion}`
  );
}

const clientCommand = container(
  'client',
  -2,
  {
    id: command({ name: 'client|id', arity: 2, flags: ['no-auth'], categories: ['connection', 'slow'], handler: (ctx) => ctx.client.id }),
    setname: command({
      name: 'client|setname',
      arity: 3,
      flags: ['no-auth'],
      categories: ['connection', 'slow'],
      handler: (ctx) => {
        const name = ctx.args[2]!;
        if (/[\s]/.test(name)) throw new CommandError('ERR Client names cannot contain spaces, newlines or special characters.');
        ctx.client.name = name;
        return OK;
      },
    }),
    getname: command({ name: 'client|getname', arity: 2, flags: ['no-auth'], categories: ['connection', 'slow'], handler: (ctx) => ctx.client.name || null }),
    setinfo: command({
      name: 'client|setinfo',
      arity: 4,
      flags: ['no-auth'],
      categories: ['connection', 'slow'],
      available: (m) => m.clientSetInfo,
      handler: (ctx) => {
        const attr = ctx.args[2]!.toUpperCase();
        if (attr === 'LIB-NAME') ctx.client.libName = ctx.args[3]!;
        else if (attr === 'LIB-VER') ctx.client.libVersion = ctx.args[3]!;
        else throw new CommandError(`ERR Unrecognized option '${ctx.args[2]}'`);
        return OK;
      },
    }),
    info: command({ name: 'client|info', arity: 2, categories: ['connection', 'slow'], handler: (ctx) => new VerbatimReply(`${clientInfoLine(ctx)}\n`) }),
    list: command({
      name: 'client|list',
      arity: -2,
      flags: ['admin'],
      categories: ['admin', 'slow', 'dangerous', 'connection'],
      handler: (ctx) => new VerbatimReply([...ctx.engine.clients.values()].map((c) => `${clientInfoLine(ctx, c)}\n`).join('')),
    }),
    kill: command({
      name: 'client|kill',
      arity: -3,
      flags: ['admin'],
      categories: ['admin', 'slow', 'dangerous', 'connection'],
      handler: (ctx) => {
        if (ctx.args.length === 3) {
          const target = [...ctx.engine.clients.values()].find((c) => c.address === ctx.args[2]);
          if (!target) throw new CommandError('ERR No such client');
          target.close();
          return OK;
        }
        let killed = 0;
        for (let i = 2; i < ctx.args.length; i += 2) {
          const value = ctx.args[i + 1];
          if (value === undefined) fail();
          for (const c of [...ctx.engine.clients.values()]) {
            const match = is(ctx.args[i], 'ID')
              ? String(c.id) === value
              : is(ctx.args[i], 'ADDR')
                ? c.address === value
                : is(ctx.args[i], 'USER')
                  ? c.user.name === value
                  : false;
            if (match) {
              c.close();
              killed++;
            }
          }
        }
        return killed;
      },
    }),
    unblock: command({
      name: 'client|unblock',
      arity: -3,
      flags: ['admin'],
      categories: ['admin', 'slow', 'dangerous', 'connection'],
      handler: (ctx) => {
        const id = parseInteger(ctx.args[2]!);
        const mode =
          ctx.args[3] === undefined
            ? 'timeout'
            : is(ctx.args[3], 'ERROR')
              ? 'error'
              : is(ctx.args[3], 'TIMEOUT')
                ? 'timeout'
                : fail('ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR');
        return ctx.engine.unblock((b) => b.client.id === id, mode);
      },
    }),
    'no-evict': command({ name: 'client|no-evict', arity: 3, flags: ['admin'], categories: ['admin', 'connection'], handler: () => OK }),
    'no-touch': command({ name: 'client|no-touch', arity: 3, categories: ['connection'], handler: () => OK }),
  },
  ['connection', 'slow'],
);

const configCommand = container(
  'config',
  -2,
  {
    get: command({
      name: 'config|get',
      arity: -3,
      flags: ['admin'],
      categories: ['admin', 'slow', 'dangerous'],
      handler: (ctx) => {
        const known: Record<string, string> = {
          'maxmemory-policy': 'noeviction',
          databases: '16',
          'stream-node-max-entries': '100',
          'lua-time-limit': '5000',
          port: String(ctx.engine.port()),
        };
        const out: Reply[] = [];
        for (const pattern of ctx.args.slice(2)) {
          for (const [k, v] of Object.entries(known)) if (new RegExp(`^${pattern.replace(/\*/g, '.*')}$`).test(k)) out.push(k, v);
        }
        return mapOf(...out);
      },
    }),
    set: command({ name: 'config|set', arity: -4, flags: ['admin'], categories: ['admin', 'slow', 'dangerous'], handler: () => OK }),
    resetstat: command({ name: 'config|resetstat', arity: 2, flags: ['admin'], categories: ['admin', 'slow', 'dangerous'], handler: () => OK }),
  },
  ['admin', 'slow'],
);

function commandInfo(ctx: CommandContext, name: string): Reply {
  const spec = ctx.engine.table.get(name.toLowerCase());
  if (!spec || (spec.available && !spec.available(ctx.model))) return null;
  const keys = spec.keys(['x', 'k1', 'k2', 'k3']);
  return [
    spec.name,
    spec.arity,
    spec.flags.map((f) => new StatusReply(f)),
    keys[0] ?? 0,
    keys.length ? keys[keys.length - 1]! : 0,
    1,
    spec.categories.map((c) => new StatusReply(`@${c}`)),
  ];
}

const commandCommand = container(
  'command',
  -1,
  {
    count: command({ name: 'command|count', arity: 2, categories: ['connection', 'slow'], handler: (ctx) => ctx.engine.table.size }),
    info: command({ name: 'command|info', arity: -2, categories: ['connection', 'slow'], handler: (ctx) => ctx.args.slice(2).map((n) => commandInfo(ctx, n)) }),
    docs: command({ name: 'command|docs', arity: -2, categories: ['connection', 'slow'], handler: () => mapOf() }),
    list: command({ name: 'command|list', arity: -2, categories: ['connection', 'slow'], handler: (ctx) => [...ctx.engine.table.keys()] }),
  },
  ['connection', 'slow'],
);

export const serverCommands: CommandSpec[] = [
  connection('ping', -1, (ctx) => (ctx.args.length > 2 ? fail("ERR wrong number of arguments for 'ping' command") : (ctx.args[1] ?? new StatusReply('PONG'))), {
    flags: ['fast'],
  }),
  connection('echo', 2, (ctx) => ctx.args[1]!, { flags: ['fast'] }),
  connection('hello', -1, hello),
  connection('auth', -2, auth),
  connection('quit', -1, (ctx) => {
    setImmediate(() => ctx.client.close());
    return OK;
  }),
  connection('reset', 1, (ctx) => {
    ctx.engine.discard(ctx.client);
    ctx.client.resp = 2;
    ctx.client.dbIndex = 0;
    ctx.client.name = '';
    return new StatusReply('RESET');
  }),
  connection(
    'select',
    2,
    (ctx) => {
      const index = parseInteger(ctx.args[1]!);
      if (index < 0 || index >= ctx.engine.databases.length) throw new CommandError('ERR DB index is out of range');
      ctx.client.dbIndex = index;
      return OK;
    },
    { flags: ['fast'] },
  ),
  command({
    name: 'time',
    arity: 1,
    flags: ['fast'],
    categories: ['fast'],
    handler: (ctx) => {
      const now = ctx.nowMs();
      const seconds = Math.floor(now / 1000);
      const micros = Math.floor((now - seconds * 1000) * 1000);
      return [String(seconds), String(Math.min(999_999, Math.max(0, micros)))];
    },
  }),
  command({ name: 'info', arity: -1, categories: ['slow', 'dangerous'], handler: info }),
  command({ name: 'lastsave', arity: 1, categories: ['admin', 'fast', 'dangerous'], handler: (ctx) => Math.floor(ctx.engine.startedAtMs / 1000) }),
  // No replicas: WAIT counts none. No AOF: WAITAOF (7.2+, Valkey) refuses numlocal as a server with appendonly off does.
  command({ name: 'wait', arity: 3, categories: ['slow', 'connection'], handler: () => 0 }),
  command({
    name: 'waitaof',
    arity: 4,
    categories: ['slow', 'connection'],
    available: (m) => m.clientSetInfo,
    handler: (ctx) => {
      const numlocal = parseInteger(ctx.args[1]!);
      parseInteger(ctx.args[2]!);
      if (numlocal > 0) throw new CommandError('ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.');
      return [0, 0];
    },
  }),
  command({ name: 'readonly', arity: 1, flags: ['fast'], categories: ['fast', 'connection'], handler: () => OK }),
  clientCommand,
  configCommand,
  commandCommand,
  command({
    name: 'multi',
    arity: 1,
    flags: ['no-multi', 'noscript', 'fast'],
    categories: ['transaction', 'fast'],
    handler: (ctx) => ctx.engine.multi(ctx.client),
  }),
  command({ name: 'exec', arity: 1, flags: ['noscript'], categories: ['transaction', 'slow'], handler: (ctx) => ctx.engine.exec(ctx.client) }),
  command({ name: 'discard', arity: 1, flags: ['noscript', 'fast'], categories: ['transaction', 'fast'], handler: (ctx) => ctx.engine.discard(ctx.client) }),
  command({
    name: 'watch',
    arity: -2,
    flags: ['noscript', 'fast'],
    categories: ['transaction', 'fast'],
    keys: (args) => args.map((_, i) => i).slice(1),
    handler: (ctx) => ctx.engine.watch(ctx.client, ctx.args.slice(1)),
  }),
  command({
    name: 'unwatch',
    arity: 1,
    flags: ['noscript', 'fast'],
    categories: ['transaction', 'fast'],
    handler: (ctx) => {
      ctx.engine.unwatch(ctx.client);
      return OK;
    },
  }),
];
