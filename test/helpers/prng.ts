/**
 * The tests' one seeded generator (mulberry32): the fixtures (test/fixtures/lib/prng.ts) and the
 * fuzz run's mutations (test/fuzz/mutate.ts) draw from it, so the same seed gives the same files.
 */
export type Rng = () => number;

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
