// The fake server's Lua runtime: redis.call, redis.pcall and the rest of Redis's script API.
import type { ClientState, Engine, ScriptRunner } from '../engine.js';
import { sha1hex } from '../engine.js';
import { CommandError, ErrorReply, type Reply } from '../reply.js';
import { fromLuaBytes, pushLuaString, pushReply, readReply, toLuaBytes, type LuaNames } from './convert.js';
import { installFastFormat } from './fast-format.js';
import { loadFengari, type Fengari, type LuaState } from './fengari.js';
import { floatLiterals } from './rewrite.js';

/** Lua set up once per server: Lua 5.1 compatibility, global protection, the error handler. */
const PRELUDE = `
unpack = table.unpack
table.getn = function(t) return #t end
math.pow = function(a, b) return a ^ b end
math.mod = math.fmod
local raw_tonumber = tonumber
tonumber = function(v, base)
  local n
  if base == nil then n = raw_tonumber(v) else n = raw_tonumber(v, base) end
  if n then return n + 0.0 end
  return n
end
local dbg = debug
local function err_handler(err)
  local i = dbg.getinfo(2, 'nSl')
  for level = 2, 8 do
    local info = dbg.getinfo(level, 'nSl')
    if not info then break end
    if info.what ~= 'C' and info.source ~= '=[JS]' and info.source ~= '=prelude' then i = info break end
  end
  if type(err) ~= 'table' then err = { err = 'ERR ' .. tostring(err) } end
  if i then
    err['source'] = i.source
    err['line'] = i.currentline
  end
  return err
end
KEYS = {}
ARGV = {}
local create_message = ...
setmetatable(_G, {
  __index = function(_, name)
    error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 2)
  end,
  __newindex = function(_, name)
    if create_message then error("Script attempted to create global variable '" .. tostring(name) .. "'", 2) end
    error('Attempt to modify a readonly table', 2)
  end,
})
return err_handler
`;

interface Running {
  readonly client: ClientState;
  readonly sha: string;
  readonly readOnly: boolean;
  resp: 2 | 3;
}

/** Options of the Lua runtime. */
interface LuaRuntimeOptions {
  /** Wall-clock limit of one script, ms; a script running longer is aborted with an error. */
  timeLimitMs: number;
}

/**
 * Runs EVAL/EVALSHA scripts in one fengari state per server, with the redis.* API, Redis's
 * reply conversions and its error formats. Scripts run synchronously: nothing else runs
 * until a script finishes, so they are atomic.
 */
export class LuaRuntime implements ScriptRunner {
  private readonly f: Fengari;
  private readonly L: LuaState;
  private readonly functions = new Map<string, { ref: number; body: string }>();
  private readonly names: LuaNames;
  private readonly errHandlerRef: number;
  private running: Running | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly options: LuaRuntimeOptions,
  ) {
    this.f = loadFengari();
    const { lua, lauxlib, lualib, to_luastring } = this.f;
    const L = lauxlib.luaL_newstate();
    this.L = L;
    this.names = { ok: to_luastring('ok'), err: to_luastring('err'), map: to_luastring('map'), set: to_luastring('set'), double: to_luastring('double') };
    const libs: Array<[string, (L: LuaState) => number]> = [
      ['_G', lualib.luaopen_base],
      ['table', lualib.luaopen_table],
      ['string', lualib.luaopen_string],
      ['math', lualib.luaopen_math],
      ['debug', lualib.luaopen_debug],
      ['coroutine', lualib.luaopen_coroutine],
    ];
    for (const [name, open] of libs) {
      lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
      lua.lua_pop(L, 1);
    }
    installFastFormat(this.f, L);
    for (const unsafe of ['dofile', 'loadfile', 'require', 'print']) {
      lua.lua_pushnil(L);
      lua.lua_setglobal(L, to_luastring(unsafe));
    }
    // A JS exception inside a bridge function (a bug in the fake) becomes a Lua error, so the
    // script fails with an error reply instead of leaving the VM in an unknown state.
    lua.lua_atnativeerror(L, (state) => {
      const error = lua.lua_touserdata(state, -1) as { message?: unknown } | undefined;
      lua.lua_pushstring(state, toLuaBytes(`internal error in the fake server: ${String(error?.message ?? error)}`));
      return 1;
    });
    this.installRedisTable();
    const prelude = to_luastring(PRELUDE);
    if (lauxlib.luaL_loadbuffer(L, prelude, prelude.length, to_luastring('=prelude')) !== lua.LUA_OK) {
      throw new Error(`Lua prelude failed to compile: ${fromLuaBytes(lua.lua_tolstring(L, -1))}`);
    }
    lua.lua_pushboolean(L, !engine.model.redis7);
    if (lua.lua_pcall(L, 1, 1, 0) !== lua.LUA_OK) throw new Error(`Lua prelude failed: ${fromLuaBytes(lua.lua_tolstring(L, -1))}`);
    this.errHandlerRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  }

  get runningSha(): string | undefined {
    return this.running?.sha;
  }

  has(sha: string): boolean {
    return this.functions.has(sha.toLowerCase());
  }

  body(sha: string): string | undefined {
    return this.functions.get(sha.toLowerCase())?.body;
  }

  flush(): void {
    for (const { ref } of this.functions.values()) this.f.lauxlib.luaL_unref(this.L, this.f.lua.LUA_REGISTRYINDEX, ref);
    this.functions.clear();
  }

  load(body: string): string {
    const sha = sha1hex(body);
    if (this.functions.has(sha)) return sha;
    const { lua, lauxlib, to_luastring } = this.f;
    const code = toLuaBytes(floatLiterals(body));
    if (lauxlib.luaL_loadbuffer(this.L, code, code.length, to_luastring('@user_script')) !== lua.LUA_OK) {
      const message = fromLuaBytes(lua.lua_tolstring(this.L, -1)).replace(/ near <eof>$/, " near '<eof>'");
      lua.lua_settop(this.L, 0);
      throw new CommandError(`ERR Error compiling script (new function): ${message}`);
    }
    this.functions.set(sha, { ref: lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX), body });
    return sha;
  }

  run(client: ClientState, sha: string, body: string, keys: string[], args: string[], readOnly: boolean): Reply {
    const { lua } = this.f;
    const L = this.L;
    if (!this.functions.has(sha)) this.load(body);
    const fn = this.functions.get(sha)!;
    lua.lua_settop(L, 0);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.errHandlerRef);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, fn.ref);
    this.setArray('KEYS', keys);
    this.setArray('ARGV', args);
    const started = performance.now();
    lua.lua_sethook(
      L,
      (state) => {
        if (performance.now() - started > this.options.timeLimitMs) {
          lua.lua_pushstring(state, toLuaBytes(`Script killed: it ran longer than the fake server's limit of ${this.options.timeLimitMs} ms`));
          lua.lua_error(state);
        }
      },
      lua.LUA_MASKCOUNT,
      1_000_000,
    );
    this.running = { client, sha, readOnly, resp: 2 };
    let status: number;
    try {
      status = lua.lua_pcall(L, 0, 1, 1);
    } finally {
      this.running = undefined;
      lua.lua_sethook(L, null, 0, 0);
    }
    try {
      if (status !== lua.LUA_OK) return this.errorReply(sha);
      return readReply(this.f, L, this.names);
    } finally {
      lua.lua_settop(L, 0);
    }
  }

  private errorReply(sha: string): ErrorReply {
    const { lua, to_luastring } = this.f;
    const L = this.L;
    if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) {
      const text = lua.lua_type(L, -1) === lua.LUA_TSTRING ? fromLuaBytes(lua.lua_tolstring(L, -1)) : 'unknown error';
      return new ErrorReply(`ERR ${text}`);
    }
    const field = (name: string): string | undefined => {
      const type = lua.lua_getfield(L, -1, to_luastring(name));
      const value = type === lua.LUA_TSTRING || type === lua.LUA_TNUMBER ? fromLuaBytes(lua.lua_tolstring(L, -1)) : undefined;
      lua.lua_pop(L, 1);
      return value;
    };
    let message = field('err') ?? 'ERR unknown error';
    if (message.startsWith('-')) message = message.slice(1);
    const source = field('source');
    const line = field('line');
    if (!this.engine.model.redis7) {
      return new ErrorReply(source && line ? `ERR Error running script (call to f_${sha}): ${source}:${line}: ${message}` : message);
    }
    return new ErrorReply(source && line ? `${message} script: ${sha}, on ${source}:${line}.` : message);
  }

  private readonly globalNames = new Map<string, Uint8Array>();

  private setArray(name: string, values: readonly string[]): void {
    const { lua, to_luastring } = this.f;
    lua.lua_createtable(this.L, values.length, 0);
    for (let i = 0; i < values.length; i++) {
      pushLuaString(this.f, this.L, values[i]!);
      lua.lua_rawseti(this.L, -2, i + 1);
    }
    let encoded = this.globalNames.get(name);
    if (!encoded) this.globalNames.set(name, (encoded = to_luastring(name)));
    lua.lua_setglobal(this.L, encoded);
  }

  /** Raises a Redis-style error table `{err=message}` from a JS function. */
  private raise(L: LuaState, message: string): never {
    const { lua } = this.f;
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, toLuaBytes(message));
    lua.lua_setfield(L, -2, this.names.err);
    return lua.lua_error(L);
  }

  private stringArgs(L: LuaState): string[] {
    const { lua } = this.f;
    const n = lua.lua_gettop(L);
    const args: string[] = [];
    for (let i = 1; i <= n; i++) {
      const type = lua.lua_type(L, i);
      if (type === lua.LUA_TSTRING) args.push(fromLuaBytes(lua.lua_tolstring(L, i)));
      else if (type === lua.LUA_TNUMBER) {
        const value = lua.lua_tonumber(L, i);
        args.push(Number.isInteger(value) && Math.abs(value) < 1e17 ? value.toFixed(0) : this.engine.model.formatDouble(value));
      } else this.raise(L, 'ERR Lua redis lib command arguments must be strings or integers');
    }
    return args;
  }

  private installRedisTable(): void {
    const { lua, to_luastring } = this.f;
    const L = this.L;
    const model = this.engine.model;
    lua.lua_createtable(L, 0, 32);
    const fn = (name: string, impl: (L: LuaState) => number): void => {
      lua.lua_pushjsfunction(L, impl);
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    const str = (name: string, value: string): void => {
      lua.lua_pushstring(L, toLuaBytes(value));
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    const num = (name: string, value: number): void => {
      lua.lua_pushnumber(L, value);
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    const call =
      (raise: boolean) =>
      (state: LuaState): number => {
        const running = this.running;
        if (!running) return this.raise(state, 'ERR redis.call used outside a script');
        if (lua.lua_gettop(state) === 0) return this.raise(state, 'ERR Please specify at least one argument for this redis lib call');
        const args = this.stringArgs(state);
        const reply = this.engine.callFromScript(running.client, args, running.readOnly);
        if (reply instanceof ErrorReply && raise) return this.raise(state, reply.message);
        pushReply(this.f, state, reply, running.resp, this.names, model.formatDouble);
        return 1;
      };
    fn('call', call(true));
    fn('pcall', call(false));
    fn('error_reply', (state) => {
      const message = fromLuaBytes(lua.lua_tolstring(state, 1) ?? new Uint8Array());
      lua.lua_createtable(state, 0, 1);
      lua.lua_pushstring(state, toLuaBytes(message));
      lua.lua_setfield(state, -2, this.names.err);
      return 1;
    });
    fn('status_reply', (state) => {
      const message = fromLuaBytes(lua.lua_tolstring(state, 1) ?? new Uint8Array());
      lua.lua_createtable(state, 0, 1);
      lua.lua_pushstring(state, toLuaBytes(message));
      lua.lua_setfield(state, -2, this.names.ok);
      return 1;
    });
    fn('sha1hex', (state) => {
      if (lua.lua_gettop(state) !== 1) return this.raise(state, 'wrong number of arguments');
      lua.lua_pushstring(state, toLuaBytes(sha1hex(fromLuaBytes(lua.lua_tolstring(state, 1) ?? new Uint8Array()))));
      return 1;
    });
    fn('log', (state) => {
      const n = lua.lua_gettop(state);
      if (n < 2) return this.raise(state, 'redis.log() requires two arguments or more.');
      const level = lua.lua_tonumber(state, 1);
      const parts: string[] = [];
      for (let i = 2; i <= n; i++) parts.push(fromLuaBytes(lua.lua_tolstring(state, i) ?? new Uint8Array()));
      this.engine.scriptLog.push({ level, message: parts.join(' ') });
      return 0;
    });
    fn('setresp', (state) => {
      const version = lua.lua_tonumber(state, 1);
      if (version !== 2 && version !== 3) return this.raise(state, 'RESP version must be 2 or 3.');
      if (this.running) this.running.resp = version;
      return 0;
    });
    fn('set_repl', () => 0);
    fn('replicate_commands', (state) => {
      lua.lua_pushboolean(state, true);
      return 1;
    });
    fn('breakpoint', (state) => {
      lua.lua_pushboolean(state, false);
      return 1;
    });
    fn('debug', () => 0);
    num('LOG_DEBUG', 0);
    num('LOG_VERBOSE', 1);
    num('LOG_NOTICE', 2);
    num('LOG_WARNING', 3);
    num('REPL_NONE', 0);
    num('REPL_AOF', 1);
    num('REPL_SLAVE', 2);
    num('REPL_REPLICA', 2);
    num('REPL_ALL', 3);
    if (model.redis7) {
      str('REDIS_VERSION', model.redisVersion);
      num('REDIS_VERSION_NUM', model.redisVersionNum);
      fn('acl_check_cmd', (state) => {
        const running = this.running;
        const args = this.stringArgs(state);
        const spec = this.engine.lookup(args);
        if (!spec || !running) return this.raise(state, 'ERR Invalid command passed to redis.acl_check_cmd()');
        if (model.aclCheckArity && typeof this.engine.resolve(args, true) === 'string') {
          return this.raise(state, 'ERR Invalid number of arguments passed to redis.acl_check_cmd()');
        }
        lua.lua_pushboolean(state, this.engine.acl.denial(running.client.user, spec, args, model) === undefined);
        return 1;
      });
    }
    if (model.flavour === 'valkey') {
      str('SERVER_NAME', 'valkey');
      str('VALKEY_VERSION', model.version);
      const [major = 0, minor = 0, patch = 0] = model.version.split('.').map(Number);
      num('VALKEY_VERSION_NUM', (major << 16) | (minor << 8) | patch);
      lua.lua_pushvalue(L, -1);
      lua.lua_setglobal(L, to_luastring('server'));
    }
    lua.lua_setglobal(L, to_luastring('redis'));
  }
}
