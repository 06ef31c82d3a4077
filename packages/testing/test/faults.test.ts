// Fault injection and the command log of the fake server.
import { scripts, commandTarget, runScript } from '@respire/core-scripts/internal';
import { describe, expect, it } from 'vitest';
import { attempt, withServer } from './helpers.js';

describe('fault injection', () => {
  it('an error before a command replies with it and does not execute', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      const fault = server.faults.inject({ command: 'SET', action: { type: 'error', message: 'READONLY You cannot write against a read only replica.' } });
      expect(await attempt(client, ['SET', 'k', 'v'])).toEqual({ error: 'READONLY You cannot write against a read only replica.' });
      expect(await client.get('k')).toBeNull();
      expect(fault.hits).toBe(1);
      expect(await client.set('k', 'v')).toBe('OK');
    });
  });

  it('an error after a command executes it and replaces the reply', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.faults.inject({ command: 'INCR', when: 'after', action: { type: 'error', message: 'ERR injected' } });
      expect(await attempt(client, ['INCR', 'n'])).toEqual({ error: 'ERR injected' });
      expect(await client.get('n')).toBe('1');
    });
  });

  it('fires N times, then stops; "always" keeps firing until removed', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.faults.inject({ command: 'PING', action: { type: 'error', message: 'ERR twice' }, times: 2 });
      expect(await attempt(client, ['PING'])).toEqual({ error: 'ERR twice' });
      expect(await attempt(client, ['PING'])).toEqual({ error: 'ERR twice' });
      expect(await client.ping()).toBe('PONG');
      const always = server.faults.inject({ command: 'ECHO', action: { type: 'error', message: 'ERR always' }, times: 'always' });
      for (let i = 0; i < 5; i++) expect(await attempt(client, ['ECHO', 'x'])).toEqual({ error: 'ERR always' });
      expect(always.hits).toBe(5);
      always.remove();
      expect(await client.echo('x')).toBe('x');
    });
  });

  it('a dropped connection before the command: not executed; the client sees the socket close', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      const observer = await open();
      server.faults.inject({ command: 'SET', action: { type: 'drop' } });
      await expect(client.set('k', 'v')).rejects.toThrow(/Socket closed unexpectedly/);
      expect(await observer.get('k')).toBeNull();
    });
  });

  it('a lost reply: executed, then the connection closes before the reply', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      const observer = await open();
      server.faults.inject({ command: 'XADD', action: { type: 'lost-reply' } });
      await expect(client.sendCommand(['XADD', 's', '*', 'f', 'v'])).rejects.toThrow(/Socket closed unexpectedly/);
      expect(await observer.xLen('s')).toBe(1);
      expect(() => server.faults.inject({ command: 'X', when: 'before', action: { type: 'lost-reply' } })).toThrow(RangeError);
    });
  });

  it('latency delays the reply by real milliseconds', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.faults.inject({ command: 'GET', when: 'after', action: { type: 'latency', ms: 120 } });
      const started = Date.now();
      await client.get('k');
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      const again = Date.now();
      await client.get('k');
      expect(Date.now() - again).toBeLessThan(100);
    });
  });

  it('targets scripts by header name, by registered name and by SHA (EVALSHA and EVAL)', async () => {
    await withServer({ scripts: [{ name: 'ack-alias', sha1: scripts.queueAck.sha1 }] }, async (server, open) => {
      const client = await open();
      const target = commandTarget(client);
      const ack = () => runScript(target, scripts.queueAck, ['{q}:s', '{q}:d'], ['g', '1-1', 'r']);
      server.faults.inject({ script: 'queue-ack', action: { type: 'error', message: 'BUSY injected' } });
      await expect(ack()).rejects.toThrow(/BUSY injected/);
      server.faults.inject({ script: 'ack-alias', action: { type: 'error', message: 'ERR by alias' } });
      await expect(ack()).rejects.toThrow(/by alias/);
      server.faults.inject({ script: scripts.queueAck.sha1, action: { type: 'error', message: 'ERR by sha' } });
      await expect(ack()).rejects.toThrow(/by sha/);
      expect(await ack()).toEqual([0]);
      // Other scripts and commands are untouched.
      server.faults.inject({ script: 'queue-nack', action: { type: 'error', message: 'ERR nack' }, times: 'always' });
      expect(await ack()).toEqual([0]);
      expect(await client.ping()).toBe('PONG');
    });
  });

  it('a subcommand rule matches only that subcommand', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.faults.inject({ command: 'XGROUP CREATE', action: { type: 'error', message: 'ERR no groups today' } });
      expect(await attempt(client, ['XGROUP', 'DESTROY', 's', 'g'])).toMatchObject({ error: expect.stringContaining('requires the key to exist') });
      expect(await attempt(client, ['XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM'])).toEqual({ error: 'ERR no groups today' });
    });
  });

  it('UNBLOCKED: ends a parked blocking read with an error (or as a timeout)', async () => {
    await withServer({}, async (server, open) => {
      const reader = await open();
      const admin = await open();
      await admin.sendCommand(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
      const parked = attempt(reader, ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>']);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(server.faults.unblock({ command: 'XREADGROUP', key: 'other' })).toBe(0);
      expect(server.faults.unblock({ command: 'XREADGROUP', key: 's' })).toBe(1);
      expect(await parked).toEqual({ error: 'UNBLOCKED client unblocked via CLIENT UNBLOCK' });
      const second = reader.sendCommand(['XREAD', 'BLOCK', '0', 'STREAMS', 's', '$']);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(server.faults.unblock({}, 'timeout')).toBe(1);
      expect(await second).toBeNull();
      // CLIENT UNBLOCK does the same from a client.
      const id = await reader.clientId();
      const third = attempt(reader, ['XREAD', 'BLOCK', '0', 'STREAMS', 's', '$']);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await admin.sendCommand(['CLIENT', 'UNBLOCK', String(id), 'ERROR'])).toBe(1);
      expect(await third).toEqual({ error: 'UNBLOCKED client unblocked via CLIENT UNBLOCK' });
    });
  });

  it('faults apply to pipelined commands in order', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.faults.inject({ command: 'INCR', action: { type: 'error', message: 'ERR second' } });
      const results = await Promise.allSettled([client.set('n', '1'), client.incr('n'), client.incr('n'), client.get('n')]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['OK', 'ERR second', 2, '2']);
    });
  });
});

describe('command log', () => {
  it('records client commands and the calls scripts make, with arguments', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      server.commandLog.clear();
      await client.set('k', 'v');
      await client.sendCommand(['EVAL', "return redis.call('GET', KEYS[1])", '1', 'k']);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM']);
      expect(server.commandLog.names('client')).toEqual(['SET', 'EVAL', 'XGROUP CREATE']);
      expect(server.commandLog.names('script')).toEqual(['GET']);
      const [get] = server.commandLog.find('get');
      expect(get).toMatchObject({ origin: 'script', args: ['k'], scriptSha: expect.stringMatching(/^[0-9a-f]{40}$/) });
      expect(server.commandLog.find('XGROUP CREATE')[0]?.args).toEqual(['s', 'g', '0', 'MKSTREAM']);
      expect(server.commandLog.entries().every((e, i, all) => i === 0 || e.seq > all[i - 1]!.seq)).toBe(true);
    });
  });

  it('keeps only the configured number of entries', async () => {
    await withServer({ commandLogLimit: 3 }, async (server, open) => {
      const client = await open();
      for (let i = 0; i < 5; i++) await client.set(`k${i}`, 'v');
      expect(server.commandLog.entries().map((e) => e.args[0])).toEqual(['k2', 'k3', 'k4']);
    });
  });
});
