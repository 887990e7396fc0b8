/** The caps on uploads in flight, taken before a body is read (http/auth.ts). */

/** Uploads in flight, per server and per key (the public sandbox key has a smaller cap of its own). */
export class UploadGate {
  private total = 0;
  private perKey = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly maxPerKey: number,
    private readonly maxSandbox: number,
  ) {}
  capOf(who: string): number {
    return who === 'sandbox' ? this.maxSandbox : this.maxPerKey;
  }
  /** Take a place, or say which cap refuses it. */
  enter(who: string): 'key' | 'server' | null {
    const mine = this.perKey.get(who) ?? 0;
    if (mine >= this.capOf(who)) return 'key';
    if (this.total >= this.max) return 'server';
    this.total++;
    this.perKey.set(who, mine + 1);
    return null;
  }
  leave(who: string): void {
    this.total--;
    const mine = (this.perKey.get(who) ?? 1) - 1;
    if (mine > 0) this.perKey.set(who, mine);
    else this.perKey.delete(who);
  }
}
