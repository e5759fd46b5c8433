// rng.mjs: mulberry32, a small seeded generator for the benchmarks'
// generated data, so that runs are comparable. rng(seed)() -> [0, 1).
export function rng(s) {
  return () => {
    s |= 0; s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
