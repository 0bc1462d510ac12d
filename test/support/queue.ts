/** A list without its compile time, which differs between two compiles of the same configuration. */
export const stamped = (rules: string[]) => rules.filter((l) => !l.startsWith('! Last modified'));

/** Reads until `done` says yes or `ms` pass; answers the last value read. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
