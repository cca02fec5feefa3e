import { ENUMS, MESSAGES, type FieldInfo } from '../../generated/proto/chain-descriptor.js';
import { parseDec, parseDuration, parseTimestamp } from './scalar-format.js';

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/**
 * The inverse of {@link toRestJson}: reads Cosmos REST JSON (keys = proto field names; missing keys take
 * their defaults) into a complete ts-proto object of `typeName`, ready to encode. Used to load fixture
 * data written in the same form the gateway answers with. Throws on a value of the wrong kind or an
 * unknown key, naming the path.
 */
export function fromRestJson(typeName: string, json: unknown, path = typeName): Record<string, unknown> {
  const fields = MESSAGES[typeName];
  if (!fields) throw new Error(`no field table for ${typeName}`);
  const source = (json ?? {}) as Record<string, unknown>;
  if (typeof source !== 'object' || Array.isArray(source)) throw new Error(`${path}: expected an object`);
  const known = knownFields(typeName, fields);
  for (const key in source) {
    if (Object.hasOwn(source, key) && !known.has(key)) throw new Error(`${path}: unknown field ${key}`);
  }
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = source[field.name];
    const at = `${path}.${field.name}`;
    if (field.oneof !== undefined) {
      if (value !== undefined && value !== null) out[field.name] = read(field, value, at);
    } else if (field.repeated) {
      if (value !== undefined && !Array.isArray(value)) throw new Error(`${at}: expected an array`);
      out[field.name] = (value ?? []).map((v: unknown, i: number) => read(field, v, `${at}[${i}]`));
    } else {
      out[field.name] = read(field, value, at);
    }
  }
  return out;
}

/** The field names of each message type, made once per type (the gateway reads a request per query). */
const FIELD_NAMES = new Map<string, ReadonlySet<string>>();

function knownFields(typeName: string, fields: readonly FieldInfo[]): ReadonlySet<string> {
  let known = FIELD_NAMES.get(typeName);
  if (!known) FIELD_NAMES.set(typeName, (known = new Set(fields.map((f) => f.name))));
  return known;
}

function read(field: FieldInfo, value: unknown, at: string): unknown {
  switch (field.kind) {
    case 'message':
      if (value === undefined || value === null) return undefined;
      if (field.type === TIMESTAMP) return parseTimestamp(text(value, at));
      if (field.type === DURATION) return parseDuration(text(value, at));
      return fromRestJson(field.type ?? '', value, at);
    case 'enum': {
      if (value === undefined) return 0;
      if (typeof value === 'number') return value;
      const entry = Object.entries(ENUMS[field.type ?? ''] ?? {}).find(([, name]) => name === value);
      if (!entry) throw new Error(`${at}: unknown ${field.type} value ${JSON.stringify(value)}`);
      return Number(entry[0]);
    }
    case 'int64':
      if (value === undefined) return '0';
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw new Error(`${at}: expected an integer`);
      return value;
    case 'int32':
    case 'float':
      if (value === undefined) return 0;
      if (typeof value !== 'number') throw new Error(`${at}: expected a number`);
      return value;
    case 'bool':
      if (value === undefined) return false;
      if (typeof value !== 'boolean') throw new Error(`${at}: expected a boolean`);
      return value;
    case 'string': {
      const s = value === undefined ? '' : text(value, at);
      return field.scalar === 'cosmos.Dec' && s !== '' ? parseDec(s) : s;
    }
    case 'bytes':
      return value === undefined || value === null ? Buffer.alloc(0) : Buffer.from(text(value, at), 'base64');
  }
}

function text(value: unknown, at: string): string {
  if (typeof value !== 'string') throw new Error(`${at}: expected a string`);
  return value;
}
