/**
 * The processes a test starts, seen from outside: a process's children, whether one still runs,
 * and a port nothing listens on.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The pids of `pid`'s children (none when it has none). */
export const childPids = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** Running, and not a zombie waiting for init to reap it after its parent exited. */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** Whether `pid` is gone within 2 s. */
export const exitsSoon = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 40 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
};

/** A port free on 127.0.0.1 a moment ago. */
export { freePort } from '../../local/free-port';
