import type { FastReads } from './fast-reads.js';

/**
 * Answers of a hot read kept while nothing is committed to the database: every commit, by this
 * hub or by another process on the same file (the CLI), changes the reads' commit stamp and
 * forgets them all, so an answer is never older than the last commit. Where the reads have no
 * stamp (PostgreSQL, an in-memory database) every call reads.
 */
export class ReadMemo<K, V> {
  private stamp: number | undefined;
  private readonly answers = new Map<K, V>();

  constructor(
    private readonly reads: FastReads,
    private readonly read: (reads: FastReads, key: K) => Promise<V>,
    private readonly max = 10_000,
  ) {}

  /**
   * The answer kept for `key` under the current commit stamp, without reading: `miss` when none
   * is kept (nothing read yet, a commit since, or no stamp). Lets a hot path answer without a
   * promise turn.
   */
  peek<M>(key: K, miss: M): V | M {
    const stamp = this.reads.commitStamp?.();
    if (stamp === undefined || stamp !== this.stamp || !this.answers.has(key)) return miss;
    return this.answers.get(key) as V;
  }

  async get(key: K): Promise<V> {
    const stamp = this.reads.commitStamp?.();
    if (stamp === undefined) return this.read(this.reads, key);
    if (stamp !== this.stamp) {
      this.answers.clear();
      this.stamp = stamp;
    } else if (this.answers.has(key)) {
      return this.answers.get(key) as V;
    }
    // Read after the stamp: the answer is at least as new as the stamp it is kept under.
    const answer = await this.read(this.reads, key);
    if (this.stamp === stamp) {
      if (this.answers.size >= this.max) this.answers.clear();
      this.answers.set(key, answer);
    }
    return answer;
  }
}
