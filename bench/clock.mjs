// The benchmarks' clocks: wall time, and this process's CPU time (robust when other processes
// share the machine: time spent waiting for a core is not counted), plus the median of runs.
export const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };

export async function timed(fn) {
  const w0 = performance.now(), c0 = cpuMs();
  const value = await fn();
  return { wall: performance.now() - w0, cpu: cpuMs() - c0, value };
}

export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
