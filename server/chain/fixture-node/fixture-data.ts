import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type {
  Claim,
  Collection,
  Params as ClaimsParams,
} from '../../../generated/proto/ixo/claims/v1beta1/claims.js';
import type { Entity, Params as EntityParams } from '../../../generated/proto/ixo/entity/v1beta1/entity.js';
import type { IidDocument } from '../../../generated/proto/ixo/iid/v1beta1/iid.js';
import type { QueryTokenMetadataResponse } from '../../../generated/proto/ixo/token/v1beta1/query.js';
import type { Params as TokenParams, Token } from '../../../generated/proto/ixo/token/v1beta1/token.js';
import { formatZodIssues } from '../../http/zod-issues.js';
import { projectRoot } from '../../project-root.js';
import { fromRestJson } from '../rest-json-read.js';

/** Placeholder in the fixture files for the server's own base URL (the oracle's service endpoints). */
const PUBLIC_BASE_URL_PLACEHOLDER = '{{PUBLIC_BASE_URL}}';

/** The fixture node's state, as decoded protobuf messages; every map is in store key order. */
export interface FixtureData {
  /** Latest block height; queries may ask for any height up to it. */
  height: bigint;
  entityParams: EntityParams;
  entities: ReadonlyMap<string, { entity: Entity; iidDocument: IidDocument }>;
  /** Every DID document: those of the entities and the extra ones. */
  iidDocuments: ReadonlyMap<string, IidDocument>;
  claimsParams: ClaimsParams;
  collections: ReadonlyMap<string, Collection>;
  claims: ReadonlyMap<string, Claim>;
  tokenParams: TokenParams;
  /** Keyed by `<minter>/<contract_address>`. */
  tokens: ReadonlyMap<string, Token>;
  tokenMetadata: ReadonlyMap<string, QueryTokenMetadataResponse>;
}

const list = z.array(z.unknown()).default([]);
const NodeFile = z.object({ height: z.string().regex(/^\d+$/) });
const EntitiesFile = z.object({
  params: z.unknown(),
  entities: z.array(z.object({ entity: z.unknown(), iidDocument: z.unknown() })).default([]),
  iidDocuments: list,
});
const ClaimsFile = z.object({ params: z.unknown(), collections: list, claims: list });
const TokenFile = z.object({
  params: z.unknown(),
  tokens: list,
  metadata: z.record(z.unknown()).default({}),
});

/**
 * Loads fixtures/chain/*.yaml (Cosmos REST JSON form) into messages, replacing
 * `{{PUBLIC_BASE_URL}}` with `publicBaseUrl`. Throws naming the file and field of any bad value.
 */
export async function loadFixtureData(options: {
  publicBaseUrl: string;
  dir?: string;
}): Promise<FixtureData> {
  const dir = options.dir ?? path.join(projectRoot(), 'fixtures/chain');
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const load = async <T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): Promise<T> => {
    const text = (await readFile(path.join(dir, file), 'utf8')).replaceAll(PUBLIC_BASE_URL_PLACEHOLDER, base);
    const parsed = schema.safeParse(parse(text));
    if (!parsed.success) throw new Error(`${file}: ${formatZodIssues(parsed.error.issues)}`);
    return parsed.data;
  };
  const [node, entityFile, claimsFile, tokenFile] = await Promise.all([
    load('node.yaml', NodeFile),
    load('entities.yaml', EntitiesFile),
    load('claims.yaml', ClaimsFile),
    load('token.yaml', TokenFile),
  ]);

  const entities = entityFile.entities.map((e, i) => ({
    entity: read<Entity>('ixo.entity.v1beta1.Entity', e.entity, `entities.yaml entities[${i}].entity`),
    iidDocument: read<IidDocument>(
      'ixo.iid.v1beta1.IidDocument',
      e.iidDocument,
      `entities.yaml entities[${i}].iidDocument`,
    ),
  }));
  const extraDocs = entityFile.iidDocuments.map((d, i) =>
    read<IidDocument>('ixo.iid.v1beta1.IidDocument', d, `entities.yaml iidDocuments[${i}]`),
  );
  const tokens = tokenFile.tokens.map((t, i) =>
    read<Token>('ixo.token.v1beta1.Token', t, `token.yaml tokens[${i}]`),
  );

  return {
    height: BigInt(node.height),
    entityParams: read('ixo.entity.v1beta1.Params', entityFile.params, 'entities.yaml params'),
    entities: byKey(entities, (e) => e.entity.id),
    iidDocuments: byKey([...entities.map((e) => e.iidDocument), ...extraDocs], (d) => d.id),
    claimsParams: read('ixo.claims.v1beta1.Params', claimsFile.params, 'claims.yaml params'),
    collections: byKey(
      claimsFile.collections.map((c, i) =>
        read<Collection>('ixo.claims.v1beta1.Collection', c, `claims.yaml collections[${i}]`),
      ),
      (c) => c.id,
    ),
    claims: byKey(
      claimsFile.claims.map((c, i) => read<Claim>('ixo.claims.v1beta1.Claim', c, `claims.yaml claims[${i}]`)),
      (c) => c.claim_id,
    ),
    tokenParams: read('ixo.token.v1beta1.Params', tokenFile.params, 'token.yaml params'),
    tokens: byKey(tokens, (t) => `${t.minter}/${t.contract_address}`),
    tokenMetadata: new Map(
      Object.entries(tokenFile.metadata)
        .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        .map(([id, m]) => [
          id,
          read<QueryTokenMetadataResponse>(
            'ixo.token.v1beta1.QueryTokenMetadataResponse',
            m,
            `token.yaml metadata.${id}`,
          ),
        ]),
    ),
  };
}

// fromRestJson builds complete objects of the named message from its generated field table, which is the
// same table ts-proto generated the interface from; the cast only names that type.
function read<T>(typeName: string, json: unknown, where: string): T {
  try {
    return fromRestJson(typeName, json) as T;
  } catch (err) {
    throw new Error(`${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** A map in store order: keys compared as bytes, like the chain's KV store. Duplicate keys are an error. */
function byKey<T>(items: T[], key: (item: T) => string): Map<string, T> {
  const out = new Map<string, T>();
  const sorted = [...items].sort((a, b) => Buffer.compare(Buffer.from(key(a)), Buffer.from(key(b))));
  for (const item of sorted) {
    const k = key(item);
    if (out.has(k)) throw new Error(`duplicate fixture key ${k}`);
    out.set(k, item);
  }
  return out;
}
