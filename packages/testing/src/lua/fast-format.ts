// A faster string.format for the formats Respire's scripts use, in the fake server's Lua VM.
import type { Fengari, LuaState } from './fengari.js';

/**
 * Replaces `string.format` with a JS function that answers a format of exactly `%.<p>f` with a
 * number argument itself and hands everything else to fengari's own implementation.
 *
 * Respire's scripts format every integer they store with `string.format('%.0f', n)`; fengari
 * parses the format and runs sprintf-js into a growing byte buffer each time, about a sixth of a
 * script's run time. For a finite number sprintf-js's `%.<p>f` is exactly `n.toFixed(p)`
 * (including `-0.000` for small negatives and `0` for -0), so the result is unchanged.
 *
 * It also answers a format of `%d`, `%s` and `%%` alone (numbers for `%d`, strings for `%s`) as
 * Redis's Lua 5.1 does: `%d` is C's `(long)` cast of the double, so 2^31 and past (receipts, ring
 * positions: lua/includes/receipts.lua, lua/includes/leases-grouped.lua) format as on Redis, where
 * fengari's 32-bit integers would raise "number has no integer representation", and a fraction is
 * truncated, where fengari would raise too.
 */
export function installFastFormat(f: Fengari, L: LuaState): void {
  const { lua, to_luastring } = f;
  if (lua.lua_getglobal(L, to_luastring('string')) !== lua.LUA_TTABLE) {
    lua.lua_pop(L, 1);
    return;
  }
  lua.lua_getfield(L, -1, to_luastring('format'));
  const original = lua.lua_tocfunction(L, -1);
  lua.lua_pop(L, 1);
  if (!original) {
    lua.lua_pop(L, 1);
    return;
  }
  lua.lua_pushjsfunction(L, (state) => {
    const precision = fixedPrecision(f, state);
    if (precision < 0) {
      const formatted = integerFormat(f, state);
      if (formatted === undefined) return original(state);
      lua.lua_pushstring(state, formatted);
      return 1;
    }
    const n = lua.lua_tonumber(state, 2);
    if (!Number.isFinite(n)) return original(state);
    const text = n.toFixed(precision);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    lua.lua_pushstring(state, bytes);
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('format'));
  lua.lua_pop(L, 1);
}

/** p when the call is `format('%.<p>f', <number>, ...)` with p of one or two digits, else -1. */
function fixedPrecision(f: Fengari, L: LuaState): number {
  const { lua } = f;
  if (lua.lua_type(L, 1) !== lua.LUA_TSTRING || lua.lua_type(L, 2) !== lua.LUA_TNUMBER) return -1;
  const s = lua.lua_tolstring(L, 1);
  const n = s.length;
  if (n < 4 || n > 5 || s[0] !== 0x25 /* % */ || s[1] !== 0x2e /* . */ || s[n - 1] !== 0x66 /* f */) return -1;
  let p = 0;
  for (let i = 2; i < n - 1; i++) {
    const d = s[i]! - 0x30;
    if (d < 0 || d > 9) return -1;
    p = p * 10 + d;
  }
  return p;
}

const PERCENT = 0x25;
const LONG_MIN = '-9223372036854775808';

/** C's `(long)` cast of a double on x86-64, in decimal: truncated toward zero; NaN and out of range give LONG_MIN. */
function longCast(n: number): string {
  if (!(n >= -(2 ** 63) && n < 2 ** 63)) return LONG_MIN;
  return BigInt(Math.trunc(n)).toString();
}

/**
 * The result of `format(fmt, ...)` when fmt holds `%d` at least once and no conversion but `%d`
 * (a number argument), `%s` (a string argument) and `%%`; undefined for any other call.
 */
function integerFormat(f: Fengari, L: LuaState): Uint8Array | undefined {
  const { lua } = f;
  if (lua.lua_type(L, 1) !== lua.LUA_TSTRING) return undefined;
  const fmt = lua.lua_tolstring(L, 1);
  const parts: Uint8Array[] = [];
  let arg = 2;
  let integers = 0;
  let start = 0;
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== PERCENT) continue;
    parts.push(fmt.subarray(start, i));
    const conversion = fmt[i + 1];
    if (conversion === PERCENT) {
      parts.push(fmt.subarray(i, i + 1));
    } else if (conversion === 0x64 /* d */ && lua.lua_type(L, arg) === lua.LUA_TNUMBER) {
      const text = longCast(lua.lua_tonumber(L, arg++));
      parts.push(Uint8Array.from(text, (c) => c.charCodeAt(0)));
      integers++;
    } else if (conversion === 0x73 /* s */ && lua.lua_type(L, arg) === lua.LUA_TSTRING) {
      parts.push(lua.lua_tolstring(L, arg++));
    } else {
      return undefined;
    }
    i++;
    start = i + 1;
  }
  if (integers === 0) return undefined;
  parts.push(fmt.subarray(start));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
