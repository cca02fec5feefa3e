import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';

const doc = JSON.parse(await readFile('generated/openapi.json', 'utf8')) as {
  openapi: string;
  info: { version: string; 'x-generated': { command: string } };
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        tags?: string[];
        requestBody?: { content: Record<string, unknown> };
        responses: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
};
const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

describe('generated/openapi.json', () => {
  it('is a valid OpenAPI 3 document according to an independent validator', async () => {
    // validate() dereferences in place; give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toMatch(/^3\./);
  });

  it('takes info.version from package.json and says how it was generated', () => {
    expect(doc.info.version).toBe(pkg.version);
    expect(doc.info['x-generated'].command).toBe('npm run generate');
  });

  it('has a unique operationId and tags on every operation', () => {
    const ids: string[] = [];
    for (const [route, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${route}`).toBeTruthy();
        expect(op.tags?.length, `${method} ${route}`).toBeGreaterThan(0);
        ids.push(op.operationId ?? '');
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares the USSD reply as text/plain and accepts JSON or form-encoded bodies', () => {
    const op = doc.paths['/api/ussd']?.['post'];
    expect(op?.responses['200']?.content).toHaveProperty(['text/plain']);
    expect(Object.keys(op?.requestBody?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
  });

  it('covers the USSD and system endpoints of the spec', () => {
    for (const path of ['/api/ussd', '/api/ussd/debug/{sessionId}', '/api/ussd/sessions', '/health', '/']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
  });

  it('covers the chain query routes of the spec (part B) under the default prefix', () => {
    for (const path of ['/ixo/entity/{id}', '/ixo/claims/claims', '/ixo/token/params']) {
      expect(doc.paths[path]?.['get']?.tags, path).toContain('chain');
    }
    expect(doc.paths['/ixo/entity/{id}']?.['get']?.operationId).toBe('Entity');
  });

  it('closes every object of the USSD, chain and system responses: additionalProperties false', () => {
    const open: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (schema['type'] === 'object' && schema['properties'] && !('additionalProperties' in schema))
        open.push(where);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
    };
    const served = Object.entries(doc.paths).filter(
      ([path]) =>
        path.startsWith('/api/ussd') || path.startsWith('/ixo/') || path === '/health' || path === '/',
    );
    for (const [path, ops] of served) {
      for (const [method, op] of Object.entries(ops)) walk(op.responses, `${method} ${path}`);
    }
    expect(served.length).toBeGreaterThan(25);
    expect(open).toEqual([]);
  });
});
