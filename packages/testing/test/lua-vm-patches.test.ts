// The patched fengari VM behaves as Redis's Lua does.
import { describe, expect, it } from 'vitest';
import { fengariPatched } from '../src/lua/fengari.js';
import { withPatchedFengari } from '../src/lua/vm-patches.js';
import { withServer } from './helpers.js';

/**
 * The fengari speed patches (src/lua/vm-patches.ts, src/lua/fast-format.ts) must not change
 * what scripts compute. These scripts stress what the patches touch: stack slots reused across
 * calls (closures capturing locals, upvalues closed at block exits and returns, errors unwinding
 * through pcall, coroutines), deleted table keys during traversal, binary table keys, and
 * `%.<p>f` formatting next to fengari's own.
 */
describe('patched fengari VM', () => {
  it('applies every patch to fengari 0.1.5', () => {
    expect(fengariPatched()).toBe(true);
    // Already loaded: a second attempt reports that nothing new was patched.
    expect(withPatchedFengari(() => 0).patched).toBe(false);
  });

  it('keeps closures, upvalues, pcall unwinding and coroutines correct', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const script = `
        local fs = {}
        for i = 1, 5 do
          local x = i * 10
          fs[#fs + 1] = function() x = x + 1 return x end
        end
        local out = {}
        for _, f in ipairs(fs) do f() out[#out + 1] = f() end
        local function counter()
          local n = 0
          return function() n = n + 1 return n end
        end
        local a, b = counter(), counter()
        a() a()
        out[#out + 1] = a() * 100 + b()
        local function deep(k) if k == 0 then error('bottom') end local y = k return deep(k - 1) + y end
        local ok, err = pcall(deep, 50)
        out[#out + 1] = ok and 'no' or string.match(tostring(err), 'bottom')
        local captured = {}
        local ok2 = pcall(function()
          for i = 1, 3 do
            local v = i
            captured[i] = function() return v end
            if i == 3 then error('stop') end
          end
        end)
        out[#out + 1] = tostring(ok2) .. captured[1]() .. captured[2]() .. captured[3]()
        local co = coroutine.wrap(function(s)
          for i = 1, 3 do s = s + coroutine.yield(s * i) end
          return s
        end)
        out[#out + 1] = co(1) .. ',' .. co(2) .. ',' .. co(3) .. ',' .. co(4)
        local function many(...) return select('#', ...), ... end
        local n, p, q = many(1, nil, 3, nil)
        out[#out + 1] = n .. tostring(p) .. tostring(q)
        local t = {}
        for i = 1, 300 do t[i] = i end
        local sum = 0
        for k, v in pairs(t) do if k % 2 == 0 then t[k] = nil end sum = sum + v end
        local left = 0
        for _ in pairs(t) do left = left + 1 end
        out[#out + 1] = sum .. '/' .. left
        local bin = {}
        bin['\\0\\1'] = 'a' bin['\\1\\0'] = 'b' bin['01'] = 'c' bin['\\255'] = 'd'
        out[#out + 1] = bin['\\0\\1'] .. bin['\\1\\0'] .. bin['01'] .. bin['\\255'] .. tostring(bin['\\0'])
        return out`;
      const expected = [12, 22, 32, 42, 52, 301, 'bottom', 'false123', '1,6,18,10', '41nil', '45150/150', 'abcdnil'];
      // Twice: the second run reuses the stack slots the first left behind.
      expect(await client.sendCommand(['EVAL', script, '0'])).toEqual(expected);
      expect(await client.sendCommand(['EVAL', script, '0'])).toEqual(expected);
    });
  });

  it('formats %.<p>f as fengari does and leaves other formats to it', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const script = `
        local f = string.format
        return { f('%.0f', 2.5), f('%.0f', -2.5), f('%.0f', -0.4), f('%.3f', -0.0001), f('%.0f', 1e21), f('%.3f', 1764486806123.4567),
                 f('%.0f', '12'), f('%.2f', 1/0), f('%5.1f', 3.14159), f('x%.0fy', 7), f('%d', 3), f('%s-%s', 'a', 1),
                 f('%.0f', 0/0) ~= nil and 'nan-ok' or 'no', pcall(f, '%.0f') and 'no' or 'arg-error' }`;
      expect(await client.sendCommand(['EVAL', script, '0'])).toEqual([
        '3',
        '-3',
        '-0',
        '-0.000',
        '1e+21',
        '1764486806123.457',
        '12',
        'Infinity',
        '  3.1',
        'x7y',
        '3',
        'a-1',
        'nan-ok',
        'arg-error',
      ]);
    });
  });

  it("formats %d of a number as Redis's Lua 5.1 does (past 2^31, fractions truncated) and leaves other %d formats to fengari", async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const script = `
        local f = string.format
        return { f('%d %s', 2^40, 'x'), f('%d', -2^31 - 1), f('%d', 1e15 + 0.5), f('%%%d%%', 7), f('%d', -0.5),
                 f('%d-%x', 1, 255), f('%5d', 3), f('%d', '12'), pcall(f, '%d', 'x') and 'no' or 'arg-error', pcall(f, '%d') and 'no' or 'arg-error' }`;
      expect(await client.sendCommand(['EVAL', script, '0'])).toEqual([
        '1099511627776 x',
        '-2147483649',
        '1000000000000000',
        '%7%',
        '0',
        '1-ff',
        '    3',
        '12',
        'arg-error',
        'arg-error',
      ]);
    });
  });
});
