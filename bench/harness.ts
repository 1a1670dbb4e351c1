/**
 * What the benchmark scripts share: medians, timing a call in a loop, the neutral upstream,
 * Lambda's way of logging.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Sample {
  readonly perRequestMs: number[];
  /** This process's CPU time (every thread: user + system) per request, in µs. */
  readonly cpuMicros: number;
}

/** `run` called `count` times, one after another: each call's wall time, and the CPU per call. */
export async function timeSequential(run: () => Promise<void>, count: number): Promise<Sample> {
  const perRequestMs: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run();
    perRequestMs.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { perRequestMs, cpuMicros: (cpu.user + cpu.system) / count };
}

/**
 * The neutral upstream (neutral-upstream.ts) in its own process, on core 1 when `pin` is set
 * (the caller then runs on core 0).
 */
export async function startNeutralUpstream(
  pin: boolean,
): Promise<{ port: number; child: ChildProcess }> {
  const commandArgs = [process.execPath, 'bench/neutral-upstream.ts'];
  const child = pin
    ? spawn('taskset', ['-c', '1', ...commandArgs], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, commandArgs.slice(1), {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`neutral upstream exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return { port, child };
}

/**
 * console.log as Lambda's Node.js runtime makes it (aws-lambda-nodejs-runtime-interface-client,
 * LogPatch): the line formatted, stamped, and written synchronously to a file descriptor, here
 * /dev/null. So a handler's log lines cost in a benchmark what they cost deployed.
 */
export function logLinesAsLambda(requestId: string): void {
  const devNull = openSync('/dev/null', 'w');
  console.log = (...values: unknown[]) => {
    const line = format(...values).replaceAll('\n', '\r');
    writeSync(devNull, `${new Date().toISOString()}\t${requestId}\tINFO\t${line}\n`);
  };
}
