import { ENUMS, MESSAGES, type FieldInfo } from '../../generated/proto/chain-descriptor.js';
import { formatDec, formatDuration, formatTimestamp, type SecondsNanos } from './scalar-format.js';

/** A JSON value as the gateway writes it. */
export type RestJson = null | boolean | number | string | RestJson[] | { [key: string]: RestJson };

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/**
 * Converts a decoded message (ts-proto object, snakeToCamel=false, forceLong=string) to the JSON the
 * Cosmos gRPC-gateway writes (JSONPb with OrigName and EmitDefaults), driven by the generated field table:
 * keys are proto field names in declaration order; every field is present (unset messages as null, empty
 * repeated fields as []); 64-bit integers are strings; enums are value names (the number when unknown);
 * Timestamp and Duration use Go's text forms; cosmos.Dec gets its decimal point back; bytes are base64,
 * empty bytes null; of a oneof only the member that is set appears.
 */
export function toRestJson(typeName: string, message: unknown): RestJson {
  const fields = MESSAGES[typeName];
  if (!fields) throw new Error(`no field table for ${typeName}`);
  if (message === undefined || message === null) return null;
  const source = message as Record<string, unknown>;
  const out: Record<string, RestJson> = {};
  for (const field of fields) {
    const value = source[field.name];
    if (field.oneof !== undefined) {
      if (value !== undefined) out[field.name] = scalarOrMessage(field, value);
    } else if (field.repeated) {
      out[field.name] = Array.isArray(value) ? value.map((v: unknown) => scalarOrMessage(field, v)) : [];
    } else {
      out[field.name] = scalarOrMessage(field, value);
    }
  }
  return out;
}

function scalarOrMessage(field: FieldInfo, value: unknown): RestJson {
  switch (field.kind) {
    case 'message':
      if (value === undefined || value === null) return null;
      if (field.type === TIMESTAMP) return formatTimestamp(value as SecondsNanos);
      if (field.type === DURATION) return formatDuration(value as SecondsNanos);
      return toRestJson(field.type ?? '', value);
    case 'enum': {
      const n = typeof value === 'number' ? value : 0;
      return ENUMS[field.type ?? '']?.[n] ?? n;
    }
    case 'int64':
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint'
        ? String(value)
        : '0';
    case 'int32':
    case 'float':
      return typeof value === 'number' ? value : 0;
    case 'bool':
      return value === true;
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      return field.scalar === 'cosmos.Dec' ? formatDec(text) : text;
    }
    case 'bytes':
      return value instanceof Uint8Array && value.length > 0 ? Buffer.from(value).toString('base64') : null;
  }
}

/**
 * `JSON.stringify(toRestJson(typeName, message))`, written straight from the decoded message: the gateway's
 * hot path, without the intermediate tree of objects (about half of what an answer leaves to the garbage
 * collector). Held to {@link toRestJson} by test/chain/rest-json-text.test.ts.
 */
export function toRestJsonText(typeName: string, message: unknown): string {
  const fields = MESSAGES[typeName];
  if (!fields) throw new Error(`no field table for ${typeName}`);
  if (message === undefined || message === null) return 'null';
  const source = message as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const field of fields) {
    const value = source[field.name];
    let text: string;
    if (field.oneof !== undefined) {
      if (value === undefined) continue;
      text = scalarOrMessageText(field, value);
    } else if (field.repeated) {
      if (Array.isArray(value) && value.length > 0) {
        text = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) text += ',';
          text += scalarOrMessageText(field, value[i]);
        }
        text += ']';
      } else {
        text = '[]';
      }
    } else {
      text = scalarOrMessageText(field, value);
    }
    out += `${first ? '' : ','}${fieldKey(field)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

/** Each field's key as JSON text, made once. */
const KEYS = new WeakMap<FieldInfo, string>();

function fieldKey(field: FieldInfo): string {
  let key = KEYS.get(field);
  if (key === undefined) KEYS.set(field, (key = JSON.stringify(field.name)));
  return key;
}

/** `JSON.stringify(scalarOrMessage(field, value))`. */
function scalarOrMessageText(field: FieldInfo, value: unknown): string {
  switch (field.kind) {
    case 'message':
      if (value === undefined || value === null) return 'null';
      if (field.type === TIMESTAMP) return JSON.stringify(formatTimestamp(value as SecondsNanos));
      if (field.type === DURATION) return JSON.stringify(formatDuration(value as SecondsNanos));
      return toRestJsonText(field.type ?? '', value);
    case 'enum':
    case 'int64':
    case 'int32':
    case 'float':
    case 'bytes':
      // Numbers go through JSON.stringify too (NaN and ±Infinity are null there).
      return JSON.stringify(scalarOrMessage(field, value));
    case 'bool':
      return value === true ? 'true' : 'false';
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      return JSON.stringify(field.scalar === 'cosmos.Dec' ? formatDec(text) : text);
    }
  }
}
