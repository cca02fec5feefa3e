import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressUrl } from '../../../server/http/fast-path.js';

// The fast path's Express-compatible pieces (server/http/fast-path.ts), each held to Express itself. The
// routes that use them hold their answers to their Express routes' byte for byte (test/ussd/http/direct-route,
// test/chain/direct-path), including a direct handler that throws.

let base: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const app = express();
  app.use((req, res) => {
    // What the app's routes see, and what expressUrl reads from the same URL on a request of its own.
    const fresh = expressUrl({ url: req.url } as IncomingMessage);
    res.json({ express: { pathname: req.path, query: req.query }, fast: fresh });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

describe('expressUrl reads a URL as Express does', () => {
  it.each([
    '/ixo/entity/did:ixo:entity:1',
    '/ixo/claims/claims?pagination.limit=10&pagination.key=abc%3D',
    '/ixo/claims/claims?pagination.limit=1&pagination.limit=2',
    '/ixo/claims/claims?pagination.limit[]=1',
    '/ixo/claims/claims?pagination.limit%5B0%5D=1',
    '/ixo/claims/claims?a[b][c]=1&a[b][d]=2',
    '/ixo/claims/claims?flag&empty=&plus=a+b&bad=%E0%A4%A',
    '/ixo/claims/claims?__proto__[x]=1&constructor=2',
    '/a%20b/c?x=%20',
    '/ixo/entity/x;y?z',
  ])('%s', async (target) => {
    const answer = (await (await fetch(base + target)).json()) as { express: unknown; fast: unknown };
    expect(answer.fast).toEqual(answer.express);
  });
});
