// Conversions between the fake server's replies and Lua values, as Redis converts them.
import { DoubleReply, ErrorReply, MapReply, NullArrayReply, SetReply, StatusReply, VerbatimReply, type Reply } from '../reply.js';
import type { DoubleFormatter } from '../resp.js';
import type { Fengari, LuaState } from './fengari.js';

/** Converts between latin1 JS strings (one char per byte) and Lua strings (bytes). */
export function toLuaBytes(text: string): Uint8Array {
  const n = text.length;
  if (n > 64) return Buffer.from(text, 'latin1');
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * Scratch space for {@link pushLuaString}: `lua_pushstring` copies its argument into a new Lua
 * string anyway, so the bytes need not live in an array of their own.
 */
let scratch = Buffer.allocUnsafeSlow(1024);

/** Pushes a latin1 JS string as a Lua string, without allocating an intermediate byte array. */
export function pushLuaString(f: Fengari, L: LuaState, text: string): void {
  const n = text.length;
  if (n > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.max(n, scratch.length * 2));
  if (n <= 32) for (let i = 0; i < n; i++) scratch[i] = text.charCodeAt(i);
  else scratch.write(text, 0, n, 'latin1');
  f.lua.lua_pushstring(L, scratch.subarray(0, n));
}

/**
 * Builds a flat string: `+=` per byte made a rope of one-char pieces that V8 had to flatten
 * again before hashing it as a Map key (every key and member the scripts pass).
 */
export function fromLuaBytes(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n > 64) return Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('latin1');
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/** Field names used by the conversions, pre-encoded. */
export interface LuaNames {
  ok: Uint8Array;
  err: Uint8Array;
  map: Uint8Array;
  set: Uint8Array;
  double: Uint8Array;
}

/**
 * Pushes a Redis reply as Lua sees it (Redis's "RESP2 to Lua" conversion, or RESP3 after
 * `redis.setresp(3)`): integers become numbers (floats, never 32-bit integers), nil bulk false,
 * status `{ok=...}`, errors `{err=...}`, maps flattened (RESP2) or `{map={...}}` (RESP3).
 */
export function pushReply(f: Fengari, L: LuaState, reply: Reply, resp: 2 | 3, names: LuaNames, formatDouble: DoubleFormatter): void {
  const { lua } = f;
  if (!lua.lua_checkstack(L, 4)) throw new Error('Lua stack exhausted while converting a reply');
  if (typeof reply === 'string') pushLuaString(f, L, reply);
  else if (typeof reply === 'number') lua.lua_pushnumber(L, reply);
  else if (reply === null || reply instanceof NullArrayReply) {
    if (resp === 3) lua.lua_pushnil(L);
    else lua.lua_pushboolean(L, false);
  } else if (Array.isArray(reply)) {
    lua.lua_createtable(L, reply.length, 0);
    for (let i = 0; i < reply.length; i++) {
      pushReply(f, L, reply[i]!, resp, names, formatDouble);
      lua.lua_rawseti(L, -2, i + 1);
    }
  } else if (reply instanceof StatusReply) {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, toLuaBytes(reply.value));
    lua.lua_setfield(L, -2, names.ok);
  } else if (reply instanceof ErrorReply) {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushstring(L, toLuaBytes(reply.message));
    lua.lua_setfield(L, -2, names.err);
  } else if (reply instanceof MapReply) {
    if (resp === 3) {
      lua.lua_createtable(L, 0, 1);
      lua.lua_createtable(L, 0, reply.entries.length);
      for (const [k, v] of reply.entries) {
        pushReply(f, L, k, resp, names, formatDouble);
        pushReply(f, L, v, resp, names, formatDouble);
        lua.lua_rawset(L, -3);
      }
      lua.lua_setfield(L, -2, names.map);
    } else {
      pushReply(
        f,
        L,
        reply.entries.flatMap(([k, v]) => [k, v]),
        resp,
        names,
        formatDouble,
      );
    }
  } else if (reply instanceof SetReply) {
    if (resp === 3) {
      lua.lua_createtable(L, 0, 1);
      lua.lua_createtable(L, 0, reply.items.length);
      for (const item of reply.items) {
        pushReply(f, L, item, resp, names, formatDouble);
        lua.lua_pushboolean(L, true);
        lua.lua_rawset(L, -3);
      }
      lua.lua_setfield(L, -2, names.set);
    } else pushReply(f, L, [...reply.items], resp, names, formatDouble);
  } else if (reply instanceof DoubleReply) {
    if (resp === 3) {
      lua.lua_createtable(L, 0, 1);
      lua.lua_pushnumber(L, reply.value);
      lua.lua_setfield(L, -2, names.double);
    } else lua.lua_pushstring(L, toLuaBytes(formatDouble(reply.value)));
  } else if (reply instanceof VerbatimReply) {
    lua.lua_pushstring(L, toLuaBytes(reply.text));
  } else lua.lua_pushboolean(L, false);
}

/**
 * Reads the Lua value at the top of the stack as a Redis reply (Redis's "Lua to RESP"
 * conversion): numbers truncate to integers, true → 1, false → nil, `{ok=}` status, `{err=}`
 * error, other tables → arrays up to the first nil.
 */
export function readReply(f: Fengari, L: LuaState, names: LuaNames, depth = 0): Reply {
  const { lua } = f;
  const type = lua.lua_type(L, -1);
  if (type === lua.LUA_TSTRING) return fromLuaBytes(lua.lua_tolstring(L, -1));
  if (type === lua.LUA_TNUMBER) return Math.trunc(lua.lua_tonumber(L, -1));
  if (type === lua.LUA_TBOOLEAN) return lua.lua_toboolean(L, -1) ? 1 : null;
  if (type !== lua.LUA_TTABLE || depth > 1000) return null;
  lua.lua_checkstack(L, 4);
  if (lua.lua_getfield(L, -1, names.err) === lua.LUA_TSTRING) {
    const message = fromLuaBytes(lua.lua_tolstring(L, -1));
    lua.lua_pop(L, 1);
    return new ErrorReply(message.startsWith('-') ? message.slice(1) : message);
  }
  lua.lua_pop(L, 1);
  if (lua.lua_getfield(L, -1, names.ok) === lua.LUA_TSTRING) {
    const status = fromLuaBytes(lua.lua_tolstring(L, -1));
    lua.lua_pop(L, 1);
    return new StatusReply(status);
  }
  lua.lua_pop(L, 1);
  if (lua.lua_getfield(L, -1, names.double) === lua.LUA_TNUMBER) {
    const value = lua.lua_tonumber(L, -1);
    lua.lua_pop(L, 1);
    return new DoubleReply(value);
  }
  lua.lua_pop(L, 1);
  for (const kind of ['map', 'set'] as const) {
    if (lua.lua_getfield(L, -1, names[kind]) === lua.LUA_TTABLE) {
      const entries: Array<[Reply, Reply]> = [];
      lua.lua_pushnil(L);
      while (lua.lua_next(L, -2)) {
        const value = readReply(f, L, names, depth + 1);
        lua.lua_pop(L, 1);
        lua.lua_pushvalue(L, -1);
        const key = readReply(f, L, names, depth + 1);
        lua.lua_pop(L, 1);
        entries.push([key, value]);
      }
      lua.lua_pop(L, 1);
      return kind === 'map' ? new MapReply(entries) : new SetReply(entries.map(([k]) => k));
    }
    lua.lua_pop(L, 1);
  }
  const items: Reply[] = [];
  for (let i = 1; ; i++) {
    if (lua.lua_rawgeti(L, -1, i) === lua.LUA_TNIL) {
      lua.lua_pop(L, 1);
      break;
    }
    items.push(readReply(f, L, names, depth + 1));
    lua.lua_pop(L, 1);
  }
  return items;
}
