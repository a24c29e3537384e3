// When a crashed server is restarted on its own and when the person is asked.
//
// A server that dies once (killed, out of memory) comes back without fuss; a
// server that keeps dying is left stopped, so a broken binary or store does
// not restart in a loop, and the person gets a Restart button instead.
export class CrashBudget {
    private crashes: number[] = [];

    constructor(
        private readonly maxRestarts = 3,
        private readonly windowMs = 3 * 60 * 1000,
    ) {}

    /** Records a crash at `now`; true when the server should be restarted automatically. */
    crashed(now: number): boolean {
        this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
        this.crashes.push(now);
        return this.crashes.length <= this.maxRestarts;
    }

    /** A restart the person asked for starts a fresh budget. */
    reset(): void {
        this.crashes = [];
    }

    get recent(): number {
        return this.crashes.length;
    }
}
