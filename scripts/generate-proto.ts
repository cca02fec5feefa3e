import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { tsHeader } from './lib/header.js';
import { listFiles } from './lib/list-files.js';
import { compareCodeUnits } from '../lib/code-unit-order.js';
import type { GeneratorStep } from './lib/step.js';

const run = promisify(execFile);

const PROTO_DIR = 'contracts/proto';
const DEPS_DIR = 'node_modules/@protobufs';
const GENERATOR = 'scripts/generate-proto.ts (buf + ts-proto)';
/** The descriptor summary written beside ts-proto's output (see {@link renderDescriptorModule}). */
export const DESCRIPTOR_MODULE = 'chain-descriptor.ts';

/**
 * Generates TypeScript from contracts/proto into `${outDir}/proto/`: ts-proto messages and grpc-js
 * service definitions (options in buf.gen.yaml), plus `chain-descriptor.ts`, a field/enum/method summary
 * of the query services that the gateway's REST JSON converter and route checks are driven by.
 *
 * Runs buf fully offline (no BSR deps, local plugin) with HOME and BUF_CACHE_DIR in a temporary
 * directory. Deterministic: a rerun writes byte-identical files.
 */
export const protoStep: GeneratorStep = {
  name: 'proto',
  sources: [PROTO_DIR, 'buf.gen.yaml'],
  run: ({ root, outDir }) => generateProto(root, outDir),
};

async function generateProto(root: string, outDir: string): Promise<void> {
  const buf = path.join(root, 'node_modules/.bin/buf');
  const work = await mkdtemp(path.join(tmpdir(), 'generate-proto-'));
  const env = { ...process.env, HOME: work, BUF_CACHE_DIR: path.join(work, 'cache') };
  try {
    const genDir = path.join(work, 'gen');
    const imagePath = path.join(work, 'image.json');
    await run(buf, ['generate', PROTO_DIR, '--template', 'buf.gen.yaml', '-o', genDir], { cwd: root, env });
    await run(buf, ['build', PROTO_DIR, '--exclude-source-info', '-o', imagePath], { cwd: root, env });

    const target = path.join(path.resolve(outDir), 'proto');
    await rm(target, { recursive: true, force: true });
    const files = await listFiles(path.join(genDir, 'proto'));
    const ownProtos = new Set(await listFiles(path.join(root, PROTO_DIR)));
    for (const rel of files) {
      const protoRel = rel.replace(/\.ts$/, '.proto');
      const source = ownProtos.has(protoRel) ? `${PROTO_DIR}/${protoRel}` : `${DEPS_DIR}/${protoRel}`;
      const body = await readFile(path.join(genDir, 'proto', rel), 'utf8');
      await writeOut(target, rel, tsHeader({ generator: GENERATOR, sources: [source] }) + body);
    }
    const image = Image.parse(JSON.parse(await readFile(imagePath, 'utf8')));
    const sources = [...ownProtos].sort(compareCodeUnits).map((p) => `${PROTO_DIR}/${p}`);
    await writeOut(
      target,
      DESCRIPTOR_MODULE,
      tsHeader({ generator: GENERATOR, sources }) + renderDescriptorModule(image),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeOut(dir: string, rel: string, text: string): Promise<void> {
  const file = path.join(dir, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text.endsWith('\n') ? text : `${text}\n`);
}

// --- The parts of a buf image (FileDescriptorSet as JSON) that the summary needs ---

const Field = z.object({
  name: z.string(),
  number: z.number(),
  label: z.string(),
  type: z.string(),
  typeName: z.string().optional(),
  oneofIndex: z.number().optional(),
  proto3Optional: z.boolean().optional(),
  options: z.record(z.unknown()).optional(),
});
type Field = z.infer<typeof Field>;

interface MessageType {
  name: string;
  field?: Field[];
  nestedType?: MessageType[];
  enumType?: EnumType[];
  oneofDecl?: { name: string }[];
}
const MessageType: z.ZodType<MessageType> = z.lazy(() =>
  z.object({
    name: z.string(),
    field: z.array(Field).optional(),
    nestedType: z.array(MessageType).optional(),
    enumType: z.array(EnumType).optional(),
    oneofDecl: z.array(z.object({ name: z.string() })).optional(),
  }),
);
const EnumType = z.object({
  name: z.string(),
  value: z.array(z.object({ name: z.string(), number: z.number() })).optional(),
});
type EnumType = z.infer<typeof EnumType>;

const HttpRule = z.object({
  get: z.string().optional(),
  additionalBindings: z.array(z.object({ get: z.string().optional() })).optional(),
});
const Method = z.object({
  name: z.string(),
  inputType: z.string(),
  outputType: z.string(),
  options: z.object({ '[google.api.http]': HttpRule.optional() }).optional(),
});
const FileDescriptor = z.object({
  name: z.string(),
  package: z.string().optional(),
  messageType: z.array(MessageType).optional(),
  enumType: z.array(EnumType).optional(),
  service: z.array(z.object({ name: z.string(), method: z.array(Method).optional() })).optional(),
});
const Image = z.object({ file: z.array(FileDescriptor) });
type Image = z.infer<typeof Image>;

const KINDS: Record<string, string> = {
  TYPE_STRING: 'string',
  TYPE_BOOL: 'bool',
  TYPE_BYTES: 'bytes',
  TYPE_ENUM: 'enum',
  TYPE_MESSAGE: 'message',
  TYPE_DOUBLE: 'float',
  TYPE_FLOAT: 'float',
  TYPE_INT32: 'int32',
  TYPE_UINT32: 'int32',
  TYPE_SINT32: 'int32',
  TYPE_FIXED32: 'int32',
  TYPE_SFIXED32: 'int32',
  TYPE_INT64: 'int64',
  TYPE_UINT64: 'int64',
  TYPE_SINT64: 'int64',
  TYPE_FIXED64: 'int64',
  TYPE_SFIXED64: 'int64',
};

const DESCRIPTOR_TYPES = `
/** How a field is encoded in Cosmos REST JSON: 64-bit integers are strings, 32-bit ones numbers. */
export type FieldKind = 'string' | 'bool' | 'bytes' | 'enum' | 'message' | 'float' | 'int32' | 'int64';

/** One field of a message, in declaration order (the order of the keys in REST JSON). */
export interface FieldInfo {
  /** The proto field name as written: the TypeScript key and the REST JSON key. */
  readonly name: string;
  readonly number: number;
  readonly kind: FieldKind;
  readonly repeated: boolean;
  /** Full name of the message or enum type, for kind \`message\` and \`enum\`. */
  readonly type?: string;
  /** Name of the oneof the field belongs to; only the member that is set appears in JSON. */
  readonly oneof?: string;
  /** The \`cosmos_proto.scalar\` annotation, e.g. \`cosmos.Dec\` (rendered with 18 fraction digits). */
  readonly scalar?: string;
}

/** One unary query method and the REST paths it is served on (from its \`google.api.http\` rule). */
export interface MethodInfo {
  /** Full method name, e.g. \`ixo.entity.v1beta1.Query/Entity\`. */
  readonly method: string;
  readonly input: string;
  readonly output: string;
  /** The current REST path, e.g. \`/ixo/entity/{id}\`. */
  readonly get: string;
  /** Legacy REST path shapes of the same method. */
  readonly additionalGets: readonly string[];
}
`;

/** Renders the summary module: every message and enum reachable from the query methods, and the methods. */
function renderDescriptorModule(image: Image): string {
  const messages = new Map<string, { fields: Field[]; oneofs: string[] }>();
  const enums = new Map<string, EnumType>();
  for (const file of image.file) {
    const pkg = file.package ? `.${file.package}` : '';
    const walk = (types: MessageType[] | undefined, scope: string): void => {
      for (const m of types ?? []) {
        const full = `${scope}.${m.name}`;
        messages.set(full, { fields: m.field ?? [], oneofs: (m.oneofDecl ?? []).map((o) => o.name) });
        for (const e of m.enumType ?? []) enums.set(`${full}.${e.name}`, e);
        walk(m.nestedType, full);
      }
    };
    walk(file.messageType, pkg);
    for (const e of file.enumType ?? []) enums.set(`${pkg}.${e.name}`, e);
  }

  const methods = image.file
    .filter((f) => f.name.startsWith('ixo/'))
    .flatMap((f) =>
      (f.service ?? []).flatMap((s) =>
        (s.method ?? []).map((m) => {
          const rule = m.options?.['[google.api.http]'];
          if (!rule?.get) throw new Error(`${f.package}.${s.name}/${m.name} has no google.api.http GET rule`);
          return {
            method: `${f.package}.${s.name}/${m.name}`,
            input: m.inputType.slice(1),
            output: m.outputType.slice(1),
            get: rule.get,
            additionalGets: (rule.additionalBindings ?? []).flatMap((b) => (b.get ? [b.get] : [])),
          };
        }),
      ),
    )
    .sort((a, b) => compareCodeUnits(a.method, b.method));

  const reachable = new Set<string>();
  const usedEnums = new Set<string>();
  const visit = (full: string): void => {
    if (reachable.has(full)) return;
    const m = messages.get(full);
    if (!m) throw new Error(`message ${full} is not in the image`);
    reachable.add(full);
    for (const f of m.fields) {
      if (f.type === 'TYPE_MESSAGE' && f.typeName) visit(f.typeName);
      if (f.type === 'TYPE_ENUM' && f.typeName) usedEnums.add(f.typeName);
    }
  };
  for (const m of methods) {
    visit(`.${m.input}`);
    visit(`.${m.output}`);
  }

  const messageEntries = [...reachable].sort().map((full) => {
    const m = messages.get(full);
    const fields = (m?.fields ?? []).map((f) => fieldInfo(f, m?.oneofs ?? []));
    return `  ${JSON.stringify(full.slice(1))}: [\n${fields.map((f) => `    ${f},\n`).join('')}  ],\n`;
  });
  const enumEntries = [...usedEnums].sort().map((full) => {
    const values = (enums.get(full)?.value ?? []).map((v) => `${v.number}: ${JSON.stringify(v.name)}`);
    return `  ${JSON.stringify(full.slice(1))}: { ${values.join(', ')} },\n`;
  });
  const methodEntries = methods.map((m) => `  ${JSON.stringify(m)},\n`);

  return [
    DESCRIPTOR_TYPES,
    '/** Fields of every message reachable from the query methods, keyed by full message name. */',
    'export const MESSAGES: Readonly<Record<string, readonly FieldInfo[]>> = {',
    messageEntries.join('').trimEnd(),
    '};',
    '',
    '/** Value names of every enum reachable from the query methods, keyed by full enum name. */',
    'export const ENUMS: Readonly<Record<string, Readonly<Record<number, string>>>> = {',
    enumEntries.join('').trimEnd(),
    '};',
    '',
    '/** The unary query methods of contracts/proto, sorted by full method name. */',
    'export const METHODS = [',
    methodEntries.join('').trimEnd(),
    '] as const satisfies readonly MethodInfo[];',
    '',
    '/** Full name of a query method, e.g. `ixo.entity.v1beta1.Query/Entity`. */',
    "export type MethodName = (typeof METHODS)[number]['method'];",
    '',
  ].join('\n');
}

function fieldInfo(f: Field, oneofs: string[]): string {
  const kind = KINDS[f.type];
  if (!kind) throw new Error(`field ${f.name}: unsupported type ${f.type}`);
  const info: Record<string, unknown> = {
    name: f.name,
    number: f.number,
    kind,
    repeated: f.label === 'LABEL_REPEATED',
  };
  if (f.typeName) info['type'] = f.typeName.slice(1);
  // proto3 `optional` fields are synthetic oneofs; they are plain optional fields in JSON.
  if (f.oneofIndex !== undefined && !f.proto3Optional) info['oneof'] = oneofs[f.oneofIndex];
  const scalar = f.options?.['[cosmos_proto.scalar]'];
  if (typeof scalar === 'string') info['scalar'] = scalar;
  return JSON.stringify(info);
}
