/**
 * `fn` remembered by its text argument: for pure functions the readers ask of the same texts many
 * times over (a line, a word, a label, by each reader in turn). Bounded: past `max` entries it
 * starts again. The results are shared, so they must be values nobody changes (strings, numbers,
 * booleans, null, frozen objects), never undefined.
 */
export function memoByText<T>(fn: (text: string) => T, max = 20_000): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    let v = seen.get(text);
    if (v === undefined) {
      v = fn(text);
      if (seen.size >= max) seen.clear();
      seen.set(text, v);
    }
    return v;
  };
}
