import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSchema } from '@anatine/zod-openapi';
import { isAppRouteOtherResponse, type AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type { z } from 'zod';
import { SERVER_EVENTS, CLIENT_EVENTS } from '../contracts/events.js';
import { contract } from '../contracts/index.js';
import type { OracleRouteMetadata } from '../contracts/oracle.js';
import { jsonMarker, stableJson } from './lib/header.js';
import type { GeneratorStep } from './lib/step.js';

// @anatine/zod-openapi types its result with openapi3-ts v2 (nested under @ts-rest/open-api); we only pass it on.
const zodToSchema = generateSchema as unknown as (schema: z.ZodTypeAny) => Record<string, unknown>;

type OperationObject = Parameters<
  NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>
>[0];

/** Route metadata our contracts may set; read by this generator. */
interface RouteMetadata extends Partial<OracleRouteMetadata> {
  /** Overrides the operationId (default: the router path, e.g. `ussd.session`). */
  operationId?: string;
  /** The body may also be sent as application/x-www-form-urlencoded (telecom gateways do). */
  formEncoded?: boolean;
}

const SOURCES = ['contracts/index.ts', 'contracts/events.ts'];

/** The agent service's capability tokens (contracts/oracle.ts), as OpenAPI security schemes. */
const SECURITY_SCHEMES = {
  ucanInvocation: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'UCAN',
    description:
      'A UCAN invocation (base64 of its CAR archive) granting `oracle/use` on the oracle, sent with `X-Auth-Type: ucan`.',
  },
  ucanDelegation: {
    type: 'apiKey',
    in: 'header',
    name: 'x-ucan-delegation',
    description:
      "A UCAN delegation (base64 CAR) of the user to the oracle granting `oracle/act` on the user's DID.",
  },
} as const;

/** Component names of the event schemas: `SseEvent_<name>` (server → client) and `SocketEvent_<name>` (client → server). */
function eventComponents(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SERVER_EVENTS)) {
    out[`Event_${name}`] = zodToSchema(schema);
  }
  for (const [name, schema] of Object.entries(CLIENT_EVENTS)) {
    out[`ClientEvent_${name}`] = zodToSchema(schema);
  }
  return out;
}

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
  const components = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  components['securitySchemes'] = { ...components['securitySchemes'], ...SECURITY_SCHEMES };
  components['schemas'] = { ...components['schemas'], ...eventComponents() };
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

  if (meta.auth === 'ucan') out.security = [{ ucanInvocation: [] }, { ucanDelegation: [] }];
  if (meta.stream === 'optional') {
    const ok = (out.responses as Record<string, { content?: Record<string, unknown> }>)['200'];
    if (ok) {
      ok.content = {
        ...ok.content,
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'With `stream: true`: server-sent events (`id`, `event`, `data`); payloads are the Event_* schemas.',
          },
        },
      };
    }
  }

  if (meta.formEncoded && out.requestBody && 'content' in out.requestBody) {
    const json = out.requestBody.content['application/json'];
    if (json) out.requestBody.content['application/x-www-form-urlencoded'] = json;
  }
  return out;
}
