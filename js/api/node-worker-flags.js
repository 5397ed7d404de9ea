// Starts a Node worker_thread with the process's Node flags that a worker can take. Node refuses
// the whole worker (ERR_WORKER_INVALID_EXEC_ARGV) for one flag only a process can have — V8's
// (--expose-gc, --max-old-space-size, --stack-trace-limit) and the process's own (--title) —
// while the rest (--conditions, --import, --enable-source-maps, …) a worker should inherit, as it
// would without an execArgv. Which flags are which depends on the Node version, so Node is asked:
// its refusal names the flags, which are dropped and the worker started again.
import { Worker } from 'node:worker_threads';

/**
 * `new Worker(url, {...options, execArgv})` with execArgv the usable part of `processFlags`.
 * --input-type is always dropped: it is for a main script (`node --input-type=module -e …`), and
 * a worker given it fails to start.
 */
export function startWorkerWithProcessFlags(url, options = {}, processFlags = process.execArgv) {
  let execArgv = processFlags.filter((flag) => !flag.startsWith('--input-type'));
  // Three tries at most: these flags, without the ones Node named, then none at all (if Node's
  // message ever stops naming them, or names something that is not one of ours).
  for (let attempt = 0; ; attempt++) {
    try {
      return new Worker(url, { ...options, execArgv });
    } catch (error) {
      if (error?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || execArgv.length === 0) throw error;
      const refused = refusedFlags(error.message);
      const kept = execArgv.filter((flag) => !refused.has(flag));
      execArgv = attempt === 0 && kept.length < execArgv.length ? kept : [];
    }
  }
}

// "Initiated Worker with invalid execArgv flags: --expose-gc, --title=x" → {'--expose-gc', '--title=x'}.
function refusedFlags(message) {
  const list = /flags: (.*)$/s.exec(String(message))?.[1] ?? '';
  return new Set(list.split(', ').map((flag) => flag.trim()).filter(Boolean));
}
