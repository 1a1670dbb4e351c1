/**
 * What a zod schema says of the object at a path of its input: the member names it knows, read
 * from the schema's definition under its defaults, optionals, nullables and pipes. An error
 * about an unknown member lists them (input-issues.ts).
 */
import type { Schema } from './schemas.ts';

interface SchemaDef {
  readonly type: string;
  readonly shape?: Record<string, Schema>;
  readonly innerType?: Schema;
  readonly in?: Schema;
  readonly out?: Schema;
  readonly element?: Schema;
  readonly valueType?: Schema;
  readonly options?: readonly Schema[];
}

function defOf(schema: Schema): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The member names of the object the schema describes at `path`, or undefined. */
export function knownKeysAt(schema: Schema, path: readonly PropertyKey[]): string[] | undefined {
  let current: Schema | undefined = unwrap(schema);
  for (const key of path) {
    if (!current) return undefined;
    const def = defOf(current);
    if (def.type === 'object') current = def.shape?.[String(key)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return undefined;
    current = current ? unwrap(current) : undefined;
  }
  if (!current) return undefined;
  const def = defOf(current);
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** The schema under defaults, optionals, nullables and pipes (their input side). */
function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = defOf(current);
    const next =
      def.type === 'pipe'
        ? def.in
        : [
              'default',
              'optional',
              'nullable',
              'prefault',
              'nonoptional',
              'readonly',
              'catch',
            ].includes(def.type)
          ? def.innerType
          : undefined;
    if (!next) return current;
    current = next;
  }
  return current;
}
