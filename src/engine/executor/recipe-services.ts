/**
 * A worker's services per run recipe, each built from its recipe alone: a worker serving several
 * runs at once holds one set per run (its own task registry, so its own evaluation settings:
 * pool sizes, memory limit, mode), never one run's settings applied to another's jobs.
 *
 * A set is kept while a job uses it, and up to `keepIdle` idle sets are kept for their runs' next
 * jobs (the least recently used goes first); a set dropped is closed (its evaluation workers
 * stop) once no job uses it. Keyed by the whole recipe: two runs of one id (in two runs dirs, or
 * resumed with an edited config) are not one.
 */

/** One job's use of a recipe's services; `release` once the job ended. */
export interface RecipeLease<S> {
  readonly services: S;
  readonly release: () => void;
}

export interface RecipeServicesOptions<R, S> {
  readonly build: (recipe: R) => Promise<S>;
  /** Stops what `build` started (called once per set, never while a job uses it). */
  readonly close: (services: S) => void;
  /** Idle sets kept for their runs' next jobs (each may hold evaluation worker processes). */
  readonly keepIdle: number;
}

interface Entry<S> {
  readonly services: Promise<S>;
  users: number;
}

export class RecipeServices<R, S> {
  /** In least recently used order (an entry moves to the end when a job takes or releases it). */
  private readonly entries = new Map<string, Entry<S>>();

  constructor(private readonly options: RecipeServicesOptions<R, S>) {}

  async acquire(recipe: R): Promise<RecipeLease<S>> {
    const key = JSON.stringify(recipe);
    let entry = this.entries.get(key);
    entry ??= { services: this.options.build(recipe), users: 0 };
    this.entries.delete(key);
    this.entries.set(key, entry);
    entry.users += 1;
    const held = entry;
    let services: S;
    try {
      services = await held.services;
    } catch (error) {
      // A failed build is not kept: the run's next job tries again.
      held.users -= 1;
      if (this.entries.get(key) === held) this.entries.delete(key);
      throw error;
    }
    let released = false;
    return {
      services,
      release: () => {
        if (released) return;
        released = true;
        held.users -= 1;
        // Last used now: the last idle set to go.
        if (this.entries.get(key) === held) {
          this.entries.delete(key);
          this.entries.set(key, held);
        }
        this.trim();
      },
    };
  }

  /** Recipes held now (in use or idle). */
  get size(): number {
    return this.entries.size;
  }

  /** Closes every set (the worker is stopping). */
  closeAll(): void {
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const entry of all) this.closeEntry(entry);
  }

  /** Drops the least recently used idle sets beyond `keepIdle`. */
  private trim(): void {
    const idle = [...this.entries].filter(([, e]) => e.users === 0);
    for (const [key, entry] of idle.slice(0, Math.max(0, idle.length - this.options.keepIdle))) {
      this.entries.delete(key);
      this.closeEntry(entry);
    }
  }

  private closeEntry(entry: Entry<S>): void {
    // A failed build was reported to the jobs that asked for it; nothing to close then.
    entry.services.then((services) => this.options.close(services)).catch(() => {});
  }
}
