// The fake's lists beyond what the conformance suite compares: ACL categories, WATCH, SCAN TYPE, long lists.
import { describe, expect, it } from 'vitest';
import { attempt, withServer } from './helpers.js';

describe('lists', () => {
  it('are in the @list category, and read and write categories and key permissions apply to them', async () => {
    const users = [
      { name: 'nolist', password: 'p', rules: ['~q:*', '+@all', '-@list'] },
      { name: 'reader', password: 'p', rules: ['~q:*', '+@read', '+eval'] },
      { name: 'rkeys', password: 'p', rules: ['%R~q:*', '+@all'] },
      { name: 'wkeys', password: 'p', rules: ['%W~q:*', '+@all'] },
    ];
    await withServer({ users }, async (server, open) => {
      const admin = await open();
      await admin.rPush('q:l', ['a', 'b']);
      const as = (name: string) => open(`redis://${name}:p@127.0.0.1:${server.port}`);
      const nolist = await as('nolist');
      expect(await attempt(nolist, ['RPUSH', 'q:l', 'x'])).toEqual({ error: "NOPERM this user has no permissions to run the 'rpush' command" });
      expect(await attempt(nolist, ['LLEN', 'q:l'])).toEqual({ error: "NOPERM this user has no permissions to run the 'llen' command" });
      const reader = await as('reader');
      expect(await reader.sendCommand(['LRANGE', 'q:l', '0', '-1'])).toEqual(['a', 'b']);
      expect(await attempt(reader, ['LTRIM', 'q:l', '0', '0'])).toEqual({ error: "NOPERM this user has no permissions to run the 'ltrim' command" });
      const rkeys = await as('rkeys');
      expect(await rkeys.sendCommand(['LINDEX', 'q:l', '-1'])).toBe('b');
      expect(await attempt(rkeys, ['RPUSH', 'q:l', 'x'])).toEqual({ error: 'NOPERM this user has no permissions to access one of the keys used as arguments' });
      const wkeys = await as('wkeys');
      expect(await wkeys.sendCommand(['LLEN', 'q:l'])).toBe(2);
      expect(await attempt(wkeys, ['LPOP', 'q:l', '0'])).toEqual({ error: 'NOPERM this user has no permissions to access one of the keys used as arguments' });
      // The grouped queue's scripts ask before they write (respire_allow); each answer follows the
      // user's rules as on a real 7.0 server. The key goes in ARGV: Redis checks EVAL's KEYS for writing.
      const check = (cmd: string, ...args: string[]) => `redis.acl_check_cmd('${cmd}', ARGV[1]${args.map((a) => `, '${a}'`).join('')}) and 1 or 0`;
      const calls = [
        check('LTRIM', '0', '-1'),
        check('RPUSH', 'x'),
        check('LREM', '0', 'x'),
        check('LRANGE', '0', '-1'),
        check('LINDEX', '0'),
        check('LLEN'),
        check('LPOP'),
      ];
      const script = ['EVAL', `return {${calls.join(', ')}}`, '0', 'q:l'];
      expect(await admin.sendCommand(script)).toEqual([1, 1, 1, 1, 1, 1, 1]);
      expect(await nolist.sendCommand(script)).toEqual([0, 0, 0, 0, 0, 0, 0]);
      expect(await reader.sendCommand(script)).toEqual([0, 0, 0, 1, 1, 1, 0]);
      expect(await rkeys.sendCommand(script)).toEqual([0, 0, 0, 1, 1, 1, 0]);
      expect(await wkeys.sendCommand(script)).toEqual([1, 1, 1, 0, 0, 1, 0]);
    });
  });

  it('a list write dirties WATCH; LTRIM always does, LREM and LPOP count 0 only when they remove something', async () => {
    await withServer({}, async (_server, open) => {
      const a = await open();
      const b = await open();
      await b.rPush('l', ['a', 'b', 'c']);
      // EXEC answers nil when a watched key changed; node-redis rejects with WatchError.
      const watched = async (write: string[]): Promise<unknown> => {
        await a.watch('l');
        await b.sendCommand(write);
        return a
          .multi()
          .lLen('l')
          .exec()
          .catch((error: Error) => (/watched keys/.test(error.message) ? 'aborted' : Promise.reject(error)));
      };
      expect(await watched(['RPUSH', 'l', 'd'])).toBe('aborted');
      expect(await watched(['LTRIM', 'l', '0', '-1'])).toBe('aborted');
      expect(await watched(['LSET', 'l', '0', 'x'])).toBe('aborted');
      expect(await watched(['LREM', 'l', '0', 'zz'])).toEqual([4]);
      expect(await watched(['LPOP', 'l', '0'])).toEqual([4]);
      expect(await watched(['LRANGE', 'l', '0', '-1'])).toEqual([4]);
      expect(await watched(['LPOP', 'l', '4'])).toBe('aborted');
      expect(await b.exists('l')).toBe(0);
    });
  });

  it('SCAN TYPE list finds lists; a list emptied by any command is gone', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      await client.rPush('l1', 'a');
      await client.rPush('l2', ['a', 'b']);
      await client.set('s', 'v');
      await client.hSet('h', 'f', 'v');
      expect(await client.sendCommand(['SCAN', '0', 'TYPE', 'list'])).toEqual(['0', ['l1', 'l2']]);
      expect(await client.sendCommand(['LREM', 'l1', '0', 'a'])).toBe(1);
      expect(await client.sendCommand(['RPOP', 'l2', '2'])).toEqual(['b', 'a']);
      expect(await client.sendCommand(['SCAN', '0', 'TYPE', 'list'])).toEqual(['0', []]);
      expect(await client.dbSize()).toBe(2);
    });
  });

  it('keeps order for long pushes from either end (no argument spread limit)', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const values = Array.from({ length: 200_000 }, (_, i) => String(i));
      expect(await client.sendCommand(['RPUSH', 'l', 'r'])).toBe(1);
      expect(await client.sendCommand(['LPUSH', 'l', ...values])).toBe(200_001);
      expect(await client.sendCommand(['LRANGE', 'l', '0', '2'])).toEqual(['199999', '199998', '199997']);
      expect(await client.sendCommand(['LRANGE', 'l', '-2', '-1'])).toEqual(['0', 'r']);
      expect(await client.sendCommand(['LPOS', 'l', '5', 'RANK', '-1'])).toBe(199_994);
    });
  });
});
