import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSchema } from '@anatine/zod-openapi';
import { isAppRouteOtherResponse, type AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type { z } from 'zod';
import { contract } from '../contracts/index.js';
import { jsonMarker, stableJson } from './lib/header.js';
import type { GeneratorStep } from './lib/step.js';

// @anatine/zod-openapi types its result with openapi3-ts v2 (nested under @ts-rest/open-api); we only pass it on.
const zodToSchema = generateSchema as unknown as (schema: z.ZodTypeAny) => Record<string, unknown>;

type OperationObject = Parameters<
  NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>
>[0];

/** Route metadata our contracts may set; read by this generator. */
interface RouteMetadata {
  /** Overrides the operationId (default: the router path, e.g. `ussd.session`). */
  operationId?: string;
  /** The body may also be sent as application/x-www-form-urlencoded (telecom gateways do). */
  formEncoded?: boolean;
}

const SOURCES = ['contracts/index.ts'];

/**
 * Writes `${outDir}/openapi.json`: OpenAPI 3 from every contract, deterministic, with operationId and
 * tags on every operation and `info.version` from package.json. Fixes what @ts-rest/open-api 3.52.1
 * leaves out: the content of `c.otherResponse()` responses (e.g. the USSD `text/plain` 200).
 */
export const openApiStep: GeneratorStep = {
  name: 'openapi',
  sources: SOURCES,
  run: ({ root, outDir }) => generateOpenApiDocument(root, outDir),
};

async function generateOpenApiDocument(root: string, outDir: string): Promise<void> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
    description: string;
  };
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Open Oracles gateway API',
        version: pkg.version,
        description: pkg.description,
        'x-generated': jsonMarker({ generator: 'scripts/generate-openapi.ts', sources: SOURCES }),
      },
      servers: [{ url: 'http://localhost:3000', description: 'Local development (npm start)' }],
    },
    { setOperationId: 'concatenated-path', operationMapper: mapOperation },
  );
  await writeFile(path.join(outDir, 'openapi.json'), stableJson(document));
}

function mapOperation(operation: OperationObject, route: AppRoute): OperationObject {
  const meta = (route.metadata ?? {}) as RouteMetadata;
  const out: OperationObject = { ...operation };
  if (meta.operationId) out.operationId = meta.operationId;
  if (!out.tags?.length) out.tags = [String(out.operationId ?? 'default').split('.')[0] ?? 'default'];

  for (const [status, response] of Object.entries(route.responses)) {
    if (!isAppRouteOtherResponse(response)) continue;
    const existing = (out.responses as Record<string, { description?: string }>)[status] ?? {};
    (out.responses as Record<string, unknown>)[status] = {
      description: existing.description ?? status,
      content: { [response.contentType]: { schema: zodToSchema(response.body as z.ZodTypeAny) } },
    };
  }

  if (meta.formEncoded && out.requestBody && 'content' in out.requestBody) {
    const json = out.requestBody.content['application/json'];
    if (json) out.requestBody.content['application/x-www-form-urlencoded'] = json;
  }
  return out;
}
