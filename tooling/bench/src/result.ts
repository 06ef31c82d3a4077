// How the bench measures a throughput figure: messages/s, Redis and Node CPU, server commands.
import { delta, sampleServer } from './server-stats.js';

/** One measured figure set. */
export interface ThroughputResult {
  readonly scenario: string;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  /** Redis CPU (user + sys) per message, µs. */
  readonly redisCpuUsPerMessage: number;
  /** Commands the server executed per message, scripts' inner commands included. */
  readonly serverCommandsPerMessage: number;
  /** This process's CPU (user + system, `process.cpuUsage`) per message, µs: client, library and handler. */
  readonly nodeCpuUsPerMessage: number;
}

type Raw = { sendCommand(args: string[]): Promise<unknown> };

/** Times `run` and reads the server's CPU and command counts around it. */
export async function measureThroughput(scenario: string, admin: Raw, messages: number, run: () => Promise<void>): Promise<ThroughputResult> {
  const before = await sampleServer(admin);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const node = process.cpuUsage(cpu);
  const d = delta(before, await sampleServer(admin));
  return {
    scenario,
    messages,
    seconds,
    messagesPerSecond: messages / seconds,
    redisCpuUsPerMessage: d.cpuUs / messages,
    serverCommandsPerMessage: d.commandCalls / messages,
    nodeCpuUsPerMessage: (node.user + node.system) / messages,
  };
}

export const payloadOf = (bytes: number) => Buffer.alloc(bytes, 'x');
