// Types of haproxy.mjs (HAProxy and the built API/worker processes, shared by the HA tests and bench/scale).
import type { ChildProcess } from 'node:child_process';

export const ROOT: string;
export interface Proc {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | string | null>;
  alive(): boolean;
}
export interface Server {
  name: string;
  port: number;
}
export function installed(command: string): boolean;
export function haproxyConfig(o: {
  port: number;
  servers: Server[];
  maxconn?: number;
  statsSocket?: string;
  errorLog?: boolean;
}): string;
export function spawnLimited(
  command: string,
  args: string[],
  o?: { env?: NodeJS.ProcessEnv; fdLimit?: number; keep?: number; stdin?: 'ignore' | 'pipe' },
): Proc;
export function killProcess(proc: Proc | null | undefined, signal?: NodeJS.Signals): Promise<void>;
export function startNode(script: 'main' | 'worker', env: NodeJS.ProcessEnv, fdLimit?: number): Proc;
export function until<T>(check: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T>;
export function ready(url: string): Promise<boolean>;
export function startHaproxy(o: {
  dir: string;
  port: number;
  servers: Server[];
  maxconn?: number;
  fdLimit?: number;
  name?: string;
  statsSocket?: string;
  errorLog?: boolean;
}): Proc;
