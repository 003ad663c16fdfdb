/**
 * Seeded random streams of the simulator. Each stream is mulberry32 seeded
 * with SHA-256 of (url, purpose), so adding a stream for a new purpose never
 * shifts the values another stream gives.
 */
import { createHash } from 'node:crypto';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded stream: one per (url, purpose). */
export class Rng {
  private readonly next: () => number;
  constructor(url: string, purpose: string) {
    const digest = createHash('sha256').update(url).update('\u0000').update(purpose).digest();
    this.next = mulberry32(digest.readUInt32BE(0));
  }
  float(): number {
    return this.next();
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
    }
    return indexes
      .slice(0, Math.min(count, items.length))
      .sort((a, b) => a - b)
      .map((i) => items[i]);
  }
  /** Skewed towards small values: most people have few of something, some have many. */
  skewed(max: number): number {
    return Math.floor(Math.pow(this.next(), 2.2) * (max + 1));
  }
}
