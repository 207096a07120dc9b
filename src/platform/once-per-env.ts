/**
 * `parse` run once per env object (one per isolate in production): the
 * function returns its value, or the Error it threw, remembered either way,
 * so a malformed secret is read once and reported on every use.
 */
export function oncePerEnv<E extends object, T>(parse: (env: E) => T): (env: E) => T | Error {
  const parsed = new WeakMap<E, { value: T } | { error: Error }>();
  return (env) => {
    let outcome = parsed.get(env);
    if (!outcome) {
      try {
        outcome = { value: parse(env) };
      } catch (error) {
        outcome = { error: error instanceof Error ? error : new Error(String(error)) };
      }
      parsed.set(env, outcome);
    }
    return "error" in outcome ? outcome.error : outcome.value;
  };
}
