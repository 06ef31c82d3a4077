// The fake server's ACL users against Respire's scripts.
import { createAclUser } from '@respire/harness';
import { commandTarget, runScript, scripts } from '@respire/core-scripts/internal';
import { describe, expect, it } from 'vitest';
import { attempt, withServer } from './helpers.js';

describe('ACL users', () => {
  it('authenticates users from the options and enforces command and key permissions', async () => {
    const users = [{ name: 'worker', password: 'secret', rules: ['~jobs:*', '+@all', '-xdel'] }];
    await withServer({ users }, async (server, open) => {
      const worker = await open(`redis://worker:secret@127.0.0.1:${server.port}`);
      expect(await worker.sendCommand(['ACL', 'WHOAMI'])).toBe('worker');
      expect(await worker.set('jobs:1', 'v')).toBe('OK');
      expect(await attempt(worker, ['GET', 'other'])).toEqual({ error: 'NOPERM this user has no permissions to access one of the keys used as arguments' });
      expect(await attempt(worker, ['XDEL', 'jobs:s', '1-1'])).toEqual({ error: "NOPERM this user has no permissions to run the 'xdel' command" });
      await expect(open(`redis://worker:wrong@127.0.0.1:${server.port}`)).rejects.toThrow(/WRONGPASS/);
    });
  });

  it('uses the 7.2+ NOPERM wording on 7.2 and later', async () => {
    await withServer({ version: '7.2', users: [{ name: 'u', password: 'p', rules: ['~a*', '+get'] }] }, async (server, open) => {
      const client = await open(`redis://u:p@127.0.0.1:${server.port}`);
      expect(await attempt(client, ['SET', 'a', 'v'])).toEqual({ error: "NOPERM User u has no permissions to run the 'set' command" });
      expect(await attempt(client, ['GET', 'b'])).toEqual({ error: 'NOPERM No permissions to access a key' });
    });
  });

  it('a password on the default user requires AUTH first', async () => {
    await withServer({ password: 'pw' }, async (server, open) => {
      await expect(open()).rejects.toThrow(/NOAUTH/);
      const client = await open(`redis://:pw@127.0.0.1:${server.port}`);
      expect(await client.ping()).toBe('PONG');
    });
  });

  it('redis.acl_check_cmd checks commands and keys for the calling user', async () => {
    await withServer({ users: [{ name: 'u', password: 'p', rules: ['~q:*', '+@all', '-zadd'] }] }, async (server, open) => {
      const client = await open(`redis://u:p@127.0.0.1:${server.port}`);
      const check =
        "return {redis.acl_check_cmd('GET', 'q:1') and 1 or 0, redis.acl_check_cmd('GET', 'x') and 1 or 0, redis.acl_check_cmd('ZADD', 'q:1', '1', 'm') and 1 or 0, redis.acl_check_cmd('XGROUP', 'CREATE', 'q:s', 'g', '0') and 1 or 0}";
      expect(await client.sendCommand(['EVAL', check, '0'])).toEqual([1, 0, 0, 1]);
      expect(await attempt(client, ['EVAL', "return redis.acl_check_cmd('NOSUCH')", '0'])).toMatchObject({
        error: expect.stringMatching(/^ERR Invalid command passed to redis.acl_check_cmd\(\)/),
      });
      expect(await attempt(client, ['EVAL', "return redis.call('ZADD', 'q:z', 1, 'm')", '0'])).toMatchObject({
        error: expect.stringMatching(/^ERR The user executing the script can't run this command or subcommand script:/),
      });
    });
  });

  it('ACL SETUSER works, so the harness helper creates users on the fake too; scripts see the refusal', async () => {
    await withServer({}, async (server, open) => {
      const user = await createAclUser([server.url], 'limited', ['~*', '+@all', '-zadd']);
      const client = await open(user.urlFor(server.url));
      const target = commandTarget(client);
      await expect(runScript(target, scripts.queueNack, ['{q}:d', '{q}:w'], ['0', '1-1', 'r'])).resolves.toEqual([0]);
      const admin = await open();
      await admin.zAdd('{q}:d', { score: Date.now() + 60_000, value: '1-1:r' });
      await expect(runScript(target, scripts.queueNack, ['{q}:d', '{q}:w'], ['0', '1-1', 'r'])).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
      expect(await admin.zRange('{q}:d', 0, -1)).toEqual(['1-1:r']);
      expect(await admin.exists('{q}:w')).toBe(0);
      expect(await admin.sendCommand(['ACL', 'USERS'])).toEqual(['default', 'limited']);
      expect(await admin.sendCommand(['ACL', 'DELUSER', 'limited'])).toBe(1);
    });
  });
});
