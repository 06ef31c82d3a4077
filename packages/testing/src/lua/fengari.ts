// Loading fengari (Lua in JavaScript), patched, for the fake server.
import { createRequire } from 'node:module';
import { formatG } from '../resp.js';
import { withPatchedFengari } from './vm-patches.js';

/** The parts of fengari's C-like API the bridge uses (fengari ships no types). */
interface LuaApi {
  LUA_OK: number;
  LUA_REGISTRYINDEX: number;
  LUA_TNIL: number;
  LUA_TBOOLEAN: number;
  LUA_TNUMBER: number;
  LUA_TSTRING: number;
  LUA_TTABLE: number;
  LUA_MASKCOUNT: number;
  lua_gettop(L: LuaState): number;
  lua_settop(L: LuaState, index: number): void;
  lua_pop(L: LuaState, n: number): void;
  lua_type(L: LuaState, index: number): number;
  lua_checkstack(L: LuaState, n: number): boolean;
  lua_pushnil(L: LuaState): void;
  lua_pushboolean(L: LuaState, b: boolean): void;
  lua_pushnumber(L: LuaState, n: number): void;
  lua_pushstring(L: LuaState, s: Uint8Array): void;
  lua_pushliteral(L: LuaState, s: string): void;
  lua_pushjsfunction(L: LuaState, fn: (L: LuaState) => number): void;
  lua_createtable(L: LuaState, narr: number, nrec: number): void;
  lua_rawseti(L: LuaState, index: number, i: number): void;
  lua_rawgeti(L: LuaState, index: number, i: number): number;
  lua_rawset(L: LuaState, index: number): void;
  lua_setfield(L: LuaState, index: number, key: Uint8Array): void;
  lua_getfield(L: LuaState, index: number, key: Uint8Array): number;
  lua_getglobal(L: LuaState, name: Uint8Array): number;
  lua_setglobal(L: LuaState, name: Uint8Array): void;
  lua_toboolean(L: LuaState, index: number): boolean;
  lua_tonumber(L: LuaState, index: number): number;
  lua_tolstring(L: LuaState, index: number): Uint8Array;
  lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
  lua_error(L: LuaState): never;
  lua_sethook(L: LuaState, fn: ((L: LuaState) => void) | null, mask: number, count: number): void;
  lua_insert(L: LuaState, index: number): void;
  lua_rawequal(L: LuaState, a: number, b: number): boolean;
  lua_rawget(L: LuaState, index: number): number;
  lua_pushvalue(L: LuaState, index: number): void;
  lua_next(L: LuaState, index: number): boolean;
  lua_atnativeerror(L: LuaState, fn: (L: LuaState) => number): void;
  lua_touserdata(L: LuaState, index: number): unknown;
  lua_tocfunction(L: LuaState, index: number): ((L: LuaState) => number) | null;
}

interface LauxApi {
  luaL_newstate(): LuaState;
  luaL_loadbuffer(L: LuaState, buffer: Uint8Array, size: number, name: Uint8Array): number;
  luaL_ref(L: LuaState, table: number): number;
  luaL_unref(L: LuaState, table: number, ref: number): void;
  luaL_requiref(L: LuaState, name: Uint8Array, open: (L: LuaState) => number, global: number): void;
}

interface LuaLibApi {
  luaL_openlibs(L: LuaState): void;
  luaopen_base(L: LuaState): number;
  luaopen_table(L: LuaState): number;
  luaopen_string(L: LuaState): number;
  luaopen_math(L: LuaState): number;
  luaopen_debug(L: LuaState): number;
  luaopen_coroutine(L: LuaState): number;
}

/** An opaque fengari lua_State. */
export type LuaState = { readonly __luaState: unique symbol };

export interface Fengari {
  lua: LuaApi;
  lauxlib: LauxApi;
  lualib: LuaLibApi;
  to_luastring(s: string): Uint8Array;
}

let loaded: Fengari | undefined;
let patched = false;

/** Whether fengari runs with the speed patches of vm-patches.ts (false: unpatched, slower). */
export function fengariPatched(): boolean {
  loadFengari();
  return patched;
}

/**
 * Loads fengari with Lua 5.1 number formatting: integral floats print without `.0` and numbers
 * use `%.14g`, as Redis's Lua does. The patch is applied to fengari's luaconf before the VM
 * modules read it, so it holds for every later load in this process.
 */
export function loadFengari(): Fengari {
  if (loaded) return loaded;
  const nodeRequire = createRequire(import.meta.url);
  // defs.js and luaconf.js require each other: load defs first so luaconf completes, then patch
  // luaconf before lobject.js (which copies lua_number2str) is loaded by the main module.
  nodeRequire('fengari/src/defs.js');
  const luaconf = nodeRequire('fengari/src/luaconf.js') as Record<string, unknown>;
  luaconf['LUA_COMPAT_FLOATSTRING'] = true;
  luaconf['lua_number2str'] = (n: number): string => {
    if (n === Infinity) return 'inf';
    if (n === -Infinity) return '-inf';
    if (Number.isNaN(n)) return 'nan';
    return formatG(n, 14);
  };
  const result = withPatchedFengari(() => nodeRequire('fengari') as Fengari);
  patched = result.patched;
  loaded = result.value;
  return loaded;
}
