// The partitions bench: one ReliableQueue vs PartitionedQueues on a 3-master Cluster, producers and consumers in child processes.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { keySlot } from '@respire/core-scripts/internal';
import type { RedisClusterHandle } from '@respire/harness';
import { PartitionedQueue, ReliableQueue, bytesCodec } from '@respire/queue';
import { createClient } from 'redis';
import { delta, sampleServer } from '../server-stats.js';
import type { ChildCommand, ChildReport } from './partitions-child.js';

const CHILD = fileURLToPath(new URL('./partitions-child.ts', import.meta.url));

export interface PartitionsRun {
  messages: number;
  /** Partition count; 0 = one ReliableQueue. */
  partitions: number;
  /** Receive `max`; each receive's batch is acknowledged with one `ackMany`. */
  batch: number;
  payloadBytes: number;
}

export interface PartitionsResult {
  readonly scenario: string;
  readonly partitions: number;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  /** Redis CPU (used_cpu_user + used_cpu_sys delta) of each master per message, µs, in the Cluster's master order. */
  readonly redisCpuUsPerMessageByMaster: readonly number[];
  /** Their sum: the whole Cluster's Redis CPU per message, µs. */
  readonly redisCpuUsPerMessage: number;
  /** The busiest master's Redis CPU ÷ the mean over the masters (1 = an even split, 3 = all on one of 3). */
  readonly busiestOverMean: number;
  /** Commands each master executed per message (scripts' inner commands included). */
  readonly serverCommandsPerMessageByMaster: readonly number[];
  /** CPU of every producer and consumer process per message, µs. */
  readonly nodeCpuUsPerMessage: number;
  /** How many of the queue's partitions (its one stream for one queue) each master serves. */
  readonly partitionsByMaster: readonly number[];
}

type Child = { process: ChildProcess; role: 'producer' | 'consumer'; next(type: ChildReport['type']): Promise<ChildReport> };

/**
 * Producer and consumer processes, kept for several runs (so their JIT is warm after the first):
 * each holds one Cluster client; the parent tells them which queue to use and when to start.
 */
export class PartitionsFleet {
  readonly #children: Child[];
  readonly #cluster: RedisClusterHandle;
  readonly #nodes: ReturnType<typeof createClient>[];
  #acked = 0;
  #onAcked: (() => void) | undefined;

  private constructor(cluster: RedisClusterHandle, children: Child[], nodes: ReturnType<typeof createClient>[]) {
    this.#cluster = cluster;
    this.#children = children;
    this.#nodes = nodes;
  }

  /** Starts `producers` + `consumers` child processes connected to `cluster`, and one admin connection per master. */
  static async start(cluster: RedisClusterHandle, producers: number, consumers: number): Promise<PartitionsFleet> {
    const urls = cluster.nodes.map((node) => node.url);
    const children: Child[] = [];
    let acknowledged: (count: number) => void = () => {};
    const roles = [...Array<'producer'>(producers).fill('producer'), ...Array<'consumer'>(consumers).fill('consumer')];
    for (const role of roles) {
      const child = fork(CHILD, urls, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const inbox: ChildReport[] = [];
      const waiting: { type: ChildReport['type']; resolve(report: ChildReport): void; reject(error: Error): void }[] = [];
      const deliver = () => {
        for (let i = 0; i < waiting.length; i++) {
          const at = inbox.findIndex((report) => report.type === waiting[i]!.type || report.type === 'failed');
          if (at < 0) continue;
          const [report] = inbox.splice(at, 1);
          const [waiter] = waiting.splice(i--, 1);
          if (report!.type === 'failed') waiter!.reject(new Error(`partitions bench ${role} failed: ${report!.error}`));
          else waiter!.resolve(report!);
        }
      };
      child.on('message', (report: ChildReport) => {
        if (report.type === 'acked') acknowledged(report.count);
        else inbox.push(report);
        deliver();
      });
      child.on('exit', (code) => {
        inbox.push({ type: 'failed', error: `exited with code ${code}` });
        deliver();
      });
      children.push({
        process: child,
        role,
        next: (type) =>
          new Promise((resolve, reject) => {
            waiting.push({ type, resolve, reject });
            deliver();
          }),
      });
    }
    const nodes: ReturnType<typeof createClient>[] = [];
    try {
      await Promise.all(children.map((child) => child.next('ready')));
      for (const node of cluster.nodes) {
        const client = createClient({ url: node.url });
        client.on('error', () => {});
        nodes.push((await client.connect()) as ReturnType<typeof createClient>);
      }
    } catch (error) {
      for (const child of children) child.process.kill('SIGKILL');
      for (const node of nodes) node.destroy();
      throw error;
    }
    const fleet = new PartitionsFleet(cluster, children, nodes);
    acknowledged = (count) => fleet.#acknowledged(count);
    return fleet;
  }

  #acknowledged(count: number): void {
    this.#acked += count;
    this.#onAcked?.();
  }

  /** Sends `run.messages` through the queue and acknowledges them all; times it and reads each master's CPU around it. */
  async run(run: PartitionsRun): Promise<PartitionsResult> {
    const name = `bench-partitions-${randomBytes(4).toString('hex')}`;
    const producers = this.#children.filter((child) => child.role === 'producer');
    const share = (index: number) => Math.floor(run.messages / producers.length) + (index < run.messages % producers.length ? 1 : 0);
    for (const child of this.#children) {
      const index = producers.indexOf(child);
      const command: ChildCommand = {
        type: 'prepare',
        role: child.role,
        queue: name,
        partitions: run.partitions,
        messages: index < 0 ? 0 : share(index),
        batch: run.batch,
        payloadBytes: run.payloadBytes,
      };
      child.process.send(command);
    }
    await Promise.all(this.#children.map((child) => child.next('ready')));
    this.#acked = 0;
    const allAcked = new Promise<void>((resolve) => {
      this.#onAcked = () => {
        if (this.#acked >= run.messages) resolve();
      };
    });
    const before = await Promise.all(this.#nodes.map((node) => sampleServer(node)));
    const started = process.hrtime.bigint();
    const done = this.#children.map((child) => child.next('done'));
    for (const child of this.#children) child.process.send({ type: 'go' } satisfies ChildCommand);
    await Promise.race([allAcked, Promise.all(done).then(() => Promise.reject(new Error('every child finished before all messages were acknowledged')))]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const after = await Promise.all(this.#nodes.map((node) => sampleServer(node)));
    this.#onAcked = undefined;
    for (const child of this.#children) if (child.role === 'consumer') child.process.send({ type: 'stop' } satisfies ChildCommand);
    const reports = (await Promise.all(done)) as Extract<ChildReport, { type: 'done' }>[];
    const deltas = before.map((sample, i) => delta(sample, after[i]!));
    const cpu = deltas.map((d) => d.cpuUs / run.messages);
    const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
    const streams = await this.#streamKeys(name, run.partitions);
    await this.#cleanUp(streams);
    return {
      scenario: run.partitions === 0 ? 'one ReliableQueue' : `PartitionedQueue, ${run.partitions} partitions`,
      partitions: run.partitions,
      messages: run.messages,
      seconds,
      messagesPerSecond: run.messages / seconds,
      redisCpuUsPerMessageByMaster: cpu,
      redisCpuUsPerMessage: cpu.reduce((a, b) => a + b, 0),
      busiestOverMean: Math.max(...cpu) / mean,
      serverCommandsPerMessageByMaster: deltas.map((d) => d.commandCalls / run.messages),
      nodeCpuUsPerMessage: reports.reduce((sum, report) => sum + report.cpuUs, 0) / run.messages,
      partitionsByMaster: await this.#byMaster(streams),
    };
  }

  /** The queue's streams: one per partition, or the one queue's. */
  async #streamKeys(name: string, partitions: number): Promise<readonly string[]> {
    // A queue object holds no connection: only its key names are read here.
    const client = this.#nodes[0]!;
    return partitions === 0
      ? [new ReliableQueue(client, name, { codec: bytesCodec }).streamKey]
      : new PartitionedQueue(client, name, { codec: bytesCodec, partitions }).streamKeys;
  }

  /** How many of `streams` each master's slot ranges hold (CLUSTER SLOTS). */
  async #byMaster(streams: readonly string[]): Promise<number[]> {
    const slots = (await this.#nodes[0]!.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
    const counts = this.#cluster.nodes.map(() => 0);
    for (const stream of streams) {
      const slot = keySlot(stream);
      const range = slots.find(([from, to]) => slot >= Number(from) && slot <= Number(to))!;
      counts[this.#cluster.nodes.findIndex((node) => node.port === Number(range[2][1]))]!++;
    }
    return counts;
  }

  /** Deletes what the run left (empty streams, their consumer groups and indexes) on the master serving each. */
  async #cleanUp(streams: readonly string[]): Promise<void> {
    const slots = (await this.#nodes[0]!.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
    for (const stream of streams) {
      const slot = keySlot(stream);
      const range = slots.find(([from, to]) => slot >= Number(from) && slot <= Number(to))!;
      const node = this.#nodes[this.#cluster.nodes.findIndex((n) => n.port === Number(range[2][1]))]!;
      await node.sendCommand(['DEL', stream, stream.replace(/:stream$/, ':deadlines')]);
    }
  }

  /** Ends the children and the admin connections. */
  async close(): Promise<void> {
    const exits = this.#children.map((child) => new Promise((resolve) => child.process.once('exit', resolve)));
    for (const child of this.#children) if (child.process.connected) child.process.send({ type: 'exit' } satisfies ChildCommand);
    const timer = setTimeout(() => {
      for (const child of this.#children) child.process.kill('SIGKILL');
    }, 5000);
    await Promise.all(exits);
    clearTimeout(timer);
    for (const node of this.#nodes) node.destroy();
  }
}
