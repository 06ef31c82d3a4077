// A user with a read-only grant on the dead-letter stream still acknowledges; a dead letter then faults with the permission.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser, errorSummary } from '@respire/harness';
import { StreamWorker, type StreamEntry } from '../src/index.js';
import { connectClient, pending, recordingLogger, waitFor, within, type TestClient } from './fault-support.js';
import type {} from '@respire/harness/global-setup';

/**
 * Issue 11, kind 6, the worker's share of the dead-letter permission rule (worker README:
 * "Permissions (XRANGE, XACK, XADD) and the destination type are checked before any write, so a
 * refusal leaves the source pending and faults the worker"). Unlike the queue's receive, only the
 * dead-letter completion declares the dead-letter stream as a key: reads, recovery and acks need no
 * access to it, whether XADD is withheld by a command rule or by a read-only key grant (`%R~`).
 */
let admin: TestClient;
beforeAll(async () => void (admin = await connectClient(inject('redisUrl'))));
afterAll(() => admin.destroy());

describe.each([
  ['a command rule (XADD denied on the dead-letter key)', (stream: string, _dead: string) => ['~*', '&*', '+@all', '-xadd', `(~${stream} +xadd)`]],
  ['a read-only key grant (%R~) on the dead-letter key', (stream: string, dead: string) => ['resetkeys', `~${stream}`, `%R~${dead}`, '&*', '+@all']],
] as const)('kind 6: a worker whose user lacks XADD on the dead-letter stream through %s', (_how, rules) => {
  it('reads and acknowledges normally; a dead-letter result faults with a RespirePermissionError and leaves the entry pending without a record', async () => {
    const tag = `dlr-${randomBytes(5).toString('hex')}`;
    const stream = `{${tag}}:events`;
    const dead = `{${tag}}:dead`;
    const user = await createAclUser([inject('redisUrl')], `w-${tag}`, rules(stream, dead));
    const client = await connectClient(user.urlFor(inject('redisUrl')));
    const acked: string[] = [];
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      deadLetterStream: dead,
      logger: recordingLogger(),
      handler: (e: StreamEntry) => (e.getString('k') === 'poison' ? 'dead-letter' : (acked.push(e.id), 'ack')),
    });
    try {
      await worker.start();
      const fine = String(await admin.sendCommand(['XADD', stream, '*', 'k', 'fine']));
      await waitFor(() => acked.includes(fine), 5000, 'the first entry acknowledged');
      const poison = String(await admin.sendCommand(['XADD', stream, '*', 'k', 'poison']));
      const outcome = await within(worker.done, 5000);
      expect({
        faulted: outcome.settled && 'error' in outcome ? errorSummary(outcome.error).code : false,
        pending: (await pending(admin, stream, 'g')).map((p) => p.id),
        records: Number(await admin.sendCommand(['EXISTS', dead])),
      }).toEqual({ faulted: 'PERMISSION_DENIED', pending: [poison], records: 0 });
    } finally {
      await worker.stop(500);
      client.destroy();
    }
  });
});
