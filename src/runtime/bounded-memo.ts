/** Answers remembered by key, at most `size` of them, the oldest forgotten first: for values many jobs repeat. */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly size: number) {}

  get(key: K, compute: () => V): V {
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = compute();
      if (this.answers.size >= this.size) this.answers.delete(this.answers.keys().next().value!);
      this.answers.set(key, answer);
    }
    return answer;
  }
}
