import { describe, expect, it } from 'vitest';
import { LiveMenus } from '../../server/ussd/live-menus.js';
import { createUssdPart } from '../../server/ussd/part.js';
import { startTestApp } from '../helpers/app.js';
import { ENGINE_MENUS, fixtureTree } from '../helpers/fixture-menus.js';

// `npm run dev` (scripts/tools/dev.ts) regenerates the menus on a YAML change and hands the tree to the
// running server through LiveMenus: the next request is served by it; refused menus leave the last good
// tree serving and the simulator page says why.
describe('menus that reload in a running server (npm run dev)', () => {
  it('serves a new tree from the next request, and keeps the last good one when the menus are refused', async () => {
    const menus = new LiveMenus(ENGINE_MENUS);
    await using app = await startTestApp({ parts: { ussd: (ctx) => createUssdPart(ctx, { menus }) } });
    const dial = async (sessionId: string): Promise<string> =>
      (
        await app.request
          .post('/api/ussd')
          .send({ sessionId, serviceCode: '*384*123#', phoneNumber: '+254700000042', text: '' })
          .expect(200)
      ).text;
    const before = await dial('live-1');
    menus.replace(fixtureTree('saved-answers'));
    const after = await dial('live-2');
    expect(before).toMatch(/^CON /);
    expect(after).toBe('CON Home\n1. Weather\n*. Exit');
    const problem = 'menus/main.yaml:6 YAML: this line is not indented like the lines beside it';
    menus.fail(problem);
    expect(await dial('live-3')).toBe(after);
    const config = await app.request.get('/ussd/simulator/config.json').expect(200);
    expect(config.body).toMatchObject({ problem, version: 1 });
  });
});
