/** Minimal typed event emitter (works in Node and the browser bundle). */
export class Emitter<Events extends { [K in keyof Events]: (...args: any[]) => void }> {
  private handlers = new Map<keyof Events, Set<Function>>();

  on<K extends keyof Events>(event: K, fn: Events[K]): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(fn);
    return () => this.off(event, fn);
  }

  off<K extends keyof Events>(event: K, fn: Events[K]): void {
    this.handlers.get(event)?.delete(fn);
  }

  /** Resolves with the arguments of the next `event` (handy in tests). */
  once<K extends keyof Events>(event: K): Promise<Parameters<Events[K]>> {
    return new Promise((resolve) => {
      const off = this.on(event, ((...args: Parameters<Events[K]>) => {
        off();
        resolve(args);
      }) as Events[K]);
    });
  }

  protected emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    for (const fn of [...(this.handlers.get(event) ?? [])]) {
      try {
        fn(...args);
      } catch (e) {
        // A throwing listener must not break the socket reader.
        console.error("groove: event handler failed", e);
      }
    }
  }
}
