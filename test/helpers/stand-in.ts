/**
 * A stand-in for an object that a describe block's beforeAll creates: the block names it where
 * its tests are defined, and every property read or write goes to the object once it exists.
 * Used before the block's beforeAll or after its afterAll, it throws at once, naming what.
 */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  const target = (): T => {
    const value = current();
    if (value === undefined) {
      throw new Error(`${what} exists only from its describe block's beforeAll to its afterAll`);
    }
    return value;
  };
  return new Proxy({} as T, {
    get(_stand, property) {
      const object = target();
      const value = Reflect.get(object, property, object) as unknown;
      return typeof value === 'function' ? value.bind(object) : value;
    },
    set: (_stand, property, value) => Reflect.set(target(), property, value),
    has: (_stand, property) => Reflect.has(target(), property),
  });
}
