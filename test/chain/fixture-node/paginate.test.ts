import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFSET_AND_KEY_MESSAGE } from '../../../server/chain/fixture-node/paginate.js';
import { startGateway, type Gateway } from '../../helpers/chain/gateway-harness.js';

interface ClaimPage {
  claims: { claim_id: string }[];
  pagination: { next_key: string | null; total: string };
}

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const page = async (query: Record<string, string>, path = '/ixo/claims/claims'): Promise<ClaimPage> => {
  const res = await gw.request.get(`${path}?${new URLSearchParams(query).toString()}`);
  expect(res.status, res.text).toBe(200);
  return res.body as ClaimPage;
};
const ids = (p: ClaimPage): string[] => p.claims.map((c) => c.claim_id);
const claimIds = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `claim-${String(from + i).padStart(4, '0')}`);

describe('pagination (flat dotted query keys, Cosmos semantics)', () => {
  it('round-trips next_key through pagination.key until next_key is null', async () => {
    const seen: string[] = [];
    let key: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string> = { 'pagination.limit': '10' };
      if (key !== null) query['pagination.key'] = key; // URLSearchParams percent-encodes + / =
      const p: ClaimPage = await page(query);
      seen.push(...ids(p));
      key = p.pagination.next_key;
      pages += 1;
      // Key-based pages do not count the total.
      if (pages > 1) expect(p.pagination.total).toBe('0');
    } while (key !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(claimIds(1, 25));
  });

  it('returns next_key as standard base64 of the next store key', async () => {
    const p = await page({ 'pagination.limit': '2' });
    expect(ids(p)).toEqual(['claim-0001', 'claim-0002']);
    expect(p.pagination.next_key).toBe(Buffer.from('claim-0003').toString('base64'));
  });

  it('accepts URL-safe base64 keys too', async () => {
    const key = Buffer.from('claim-0020').toString('base64url');
    expect(ids(await page({ 'pagination.key': key, 'pagination.limit': '2' }))).toEqual([
      'claim-0020',
      'claim-0021',
    ]);
  });

  it('counts the total with offset and count_total (or countTotal)', async () => {
    const p = await page({
      'pagination.offset': '20',
      'pagination.limit': '3',
      'pagination.count_total': 'true',
    });
    expect(ids(p)).toEqual(claimIds(21, 23));
    expect(p.pagination).toEqual({ next_key: Buffer.from('claim-0024').toString('base64'), total: '25' });
    const camel = await page({
      'pagination.offset': '20',
      'pagination.limit': '3',
      'pagination.countTotal': '1',
    });
    expect(camel.pagination.total).toBe('25');
    const none = await page({ 'pagination.offset': '20', 'pagination.limit': '3' });
    expect(none.pagination.total).toBe('0');
  });

  it('reverses, by offset and from a key', async () => {
    const p = await page({ 'pagination.reverse': 'true', 'pagination.limit': '3' });
    expect(ids(p)).toEqual(['claim-0025', 'claim-0024', 'claim-0023']);
    expect(p.pagination.next_key).toBe(Buffer.from('claim-0022').toString('base64'));
    const next = await page({
      'pagination.reverse': 'true',
      'pagination.limit': '3',
      'pagination.key': p.pagination.next_key ?? '',
    });
    expect(ids(next)).toEqual(['claim-0022', 'claim-0021', 'claim-0020']);
  });

  it('answers the last page with next_key null, and an offset past the end with nothing', async () => {
    const last = await page({ 'pagination.offset': '24', 'pagination.limit': '5' });
    expect(ids(last)).toEqual(['claim-0025']);
    expect(last.pagination.next_key).toBeNull();
    const past = await page({ 'pagination.offset': '100', 'pagination.limit': '5' });
    expect(past.claims).toEqual([]);
  });

  it('rejects offset and key together with InvalidArgument', async () => {
    const res = await gw.request.get(
      `/ixo/claims/claims?pagination.offset=1&pagination.key=${encodeURIComponent(Buffer.from('claim-0002').toString('base64'))}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 3, message: OFFSET_AND_KEY_MESSAGE, details: [] });
  });

  it('pages the other lists the same way', async () => {
    const entities = await gw.request.get('/ixo/entity?pagination.limit=1&pagination.count_total=true');
    expect(entities.body).toMatchObject({ entities: [{ type: 'project' }], pagination: { total: '4' } });
    const docs = await gw.request.get('/ixo/did/dids?pagination.offset=4');
    // No limit: the default page size, and the total is counted.
    expect(docs.body).toMatchObject({ pagination: { next_key: null, total: '6' } });
    expect((docs.body as { iidDocuments: unknown[] }).iidDocuments).toHaveLength(2);
    const tokens = await gw.request.get(
      '/ixo/token/minter/did:ixo:entity:2f5a5c0a9e1c4b3d8f7e6a5b4c3d2e1f?pagination.limit=1',
    );
    expect(tokens.body).toMatchObject({ tokenDocs: [{ name: 'CARBON' }], pagination: { total: '0' } });
    expect((tokens.body as ClaimPage).pagination.next_key).not.toBeNull();
  });

  it('ignores qs-style nested keys (pagination[limit]) like the Cosmos gateway', async () => {
    const res = await gw.request.get('/ixo/claims/claims?pagination[limit]=2');
    expect(res.status).toBe(200);
    expect((res.body as ClaimPage).claims).toHaveLength(25);
  });
});
