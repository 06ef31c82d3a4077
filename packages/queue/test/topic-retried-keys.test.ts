// A subscription's retried hash (queue README "Reliable topic", "Dead letters of a subscription") of another type: receive and ack refuse before any write, on every target.
import { expect, it } from 'vitest';
import { subscriptionKeys, topicKeys } from '@respire/core-scripts/internal';
import { ReliableTopic, isRespireError, utf8Codec } from '@respire/queue';
import { describeOnTargets, targets, uniqueName } from './support.js';

describeOnTargets("ReliableTopic: a subscription's retried hash of another type", targets, (_target, connection) => {
  it('receive refuses with a typed error and takes nothing; ack refuses and the lease still holds', async () => {
    const name = uniqueName();
    const topic = new ReliableTopic<string>(connection().client, name, { codec: utf8Codec });
    const sub = topic.subscription('s', { start: 'earliest' });
    await sub.create();
    const [id] = await topic.publishMany(['a', 'b']);
    const [leased] = await sub.receive(30_000, { max: 1 });
    expect(leased!.id).toBe(id);
    const { retried, deadlines } = subscriptionKeys(topicKeys(name, ''), 's');
    await connection().raw(retried, ['SET', retried, 'x']);

    const received = await sub.receive(30_000, { max: 10 }).catch((e: unknown) => e);
    expect(isRespireError(received, 'WRONG_TYPE'), String(received)).toBe(true);
    const acked = await sub.ack(leased!).catch((e: unknown) => e);
    expect(isRespireError(acked, 'WRONG_TYPE'), String(acked)).toBe(true);
    // Nothing changed: one lease, one pending entry, 'b' still undelivered.
    expect(Number(await connection().raw(deadlines, ['ZCARD', deadlines]))).toBe(1);
    expect(((await connection().raw(topic.streamKey, ['XPENDING', topic.streamKey, 's'])) as unknown[])[0]).toBe(1);

    await connection().raw(retried, ['DEL', retried]);
    expect(await sub.ack(leased!)).toBe(true);
    expect((await sub.receive(30_000, { max: 10 })).map((m) => m.payload)).toEqual(['b']);
  });
});
