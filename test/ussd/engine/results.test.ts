import { describe, expect, it } from 'vitest';
import { USSD_SESSION_EXPIRED_REPLY } from '../../../contracts/ussd.js';
import { scryptCost } from '../../../server/ussd/crypto/pin-crypto.js';
import { createSecretHasher } from '../../../server/ussd/crypto/secret-hash.js';
import { actionContext } from '../../../server/ussd/engine/action-context.js';
import type { AnyActionHandler } from '../../../server/ussd/engine/action-types.js';
import { cursorOf, freshCursor } from '../../../server/ussd/engine/cursor.js';
import { fillTemplate } from '../../../server/ussd/engine/templates.js';
import { nodeOf, type Turn } from '../../../server/ussd/engine/turn.js';
import type { UssdSession } from '../../../server/ussd/engine/types.js';
import { readEngineData } from '../../../server/ussd/engine/session-data.js';
import { validators } from '../../../server/ussd/engine/validators.js';
import { isWeakPin } from '../../../server/ussd/engine/weak-pin.js';
import { engineDialer, TEST_PHONE, TEST_SERVICE_CODE } from '../../helpers/engine-dialer.js';
import { TEST_SCRYPT_LOG2N } from '../../helpers/env.js';
import { fixtureTree } from '../../helpers/fixture-menus.js';

// What the engine hands back besides the reply (expired, committed, processedText), what it logs when it refuses
// a request, and the small helpers it is built on, at their boundaries. Written for the survivors of Stryker's
// first ussd-engine run (issue 26).

const tree = fixtureTree('basic');

/** The fixture's actions; signIn also writes through the accounts (so the turn commits). */
const actions: Record<string, AnyActionHandler> = {
  signIn: async (ctx) => {
    if (ctx.input === undefined) return { retry: 'hello', params: { who: 'stranger' } };
    const created = await ctx.accounts.createCustomer({
      fullName: ctx.input,
      email: null,
      pin: '48213',
      phoneNumber: ctx.phoneNumber,
      language: 'en',
    });
    ctx.login({
      customerId: created.customerId,
      fullName: ctx.input,
      email: null,
      language: 'en',
      lockedAt: null,
    });
    return { next: 'preMenu', notice: 'hello', params: { who: ctx.input } };
  },
  signOut: (ctx) => {
    ctx.logout();
    return Promise.resolve({ next: 'preMenu' });
  },
};

const request = (
  text: string,
  sessionId = 's1',
  phoneNumber = TEST_PHONE,
  serviceCode = TEST_SERVICE_CODE,
) => ({
  sessionId,
  phoneNumber,
  serviceCode,
  text,
});

/** The log lines of a dialer as objects. */
const logsOf = (lines: string[]): { msg: string; [k: string]: unknown }[] =>
  lines.map((l) => JSON.parse(l) as { msg: string });

describe('engine results', () => {
  it('text for no session: the spec reply, expired, nothing processed, logged as unknown', async () => {
    const d = engineDialer({ tree, actions });
    const result = await d.engine.handle(request('1'), undefined);
    expect(result).toEqual({
      reply: USSD_SESSION_EXPIRED_REPLY,
      session: undefined,
      processedText: '',
      expired: true,
    });
    expect(USSD_SESSION_EXPIRED_REPLY.startsWith('END ')).toBe(true);
    expect(logsOf(d.logs).at(-1)).toMatchObject({
      msg: 'ussd: text for an unknown or expired session; answering that it expired',
      sessionId: 's1',
      stored: false,
    });
  });

  it('a stored session of another phone or service code is not this one: expired, logged as not fitting', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    const stored = d.session() as UssdSession;
    for (const other of [request('1', 's1', '+254700000999'), request('1', 's1', TEST_PHONE, '*999#')]) {
      d.logs.length = 0;
      expect(await d.engine.handle(other, stored)).toMatchObject({
        reply: USSD_SESSION_EXPIRED_REPLY,
        session: undefined,
        expired: true,
      });
      expect(logsOf(d.logs).at(-1)).toMatchObject({
        msg: 'ussd: stored session does not fit this request; answering that it expired',
        stored: true,
      });
    }
    // The same phone and service code: the menu choice is applied.
    expect((await d.engine.handle(request('1'), stored)).expired).toBeUndefined();
  });

  it('a text that does not extend what was processed: the last reply, unchanged session, one warning', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    const afterTwo = await d.send('2');
    const stored = d.session() as UssdSession;
    d.logs.length = 0;
    expect(await d.engine.handle(request('1'), stored)).toEqual({
      reply: afterTwo,
      session: stored,
      processedText: stored.processedText,
    });
    expect(logsOf(d.logs)).toMatchObject([
      {
        msg: 'ussd: text does not extend the processed text; answering the last reply',
        sessionId: 's1',
        processedLength: 1,
        textLength: 1,
      },
    ]);
    // A retry of the same text is not a divergence: the same answer, no warning.
    d.logs.length = 0;
    expect((await d.engine.handle(request('2'), stored)).reply).toBe(afterTwo);
    expect(logsOf(d.logs).filter((l) => l.msg.startsWith('ussd: text does not extend'))).toEqual([]);
  });

  it('several inputs in one request stop at the END: the inputs after it are not applied', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    const result = await d.engine.handle(request('2*6*1*1'), d.session());
    expect(result.reply).toBe('END Done.');
    expect(result.session).toBeUndefined();
    // What was never applied is masked like a typed value: it could have been a PIN meant for a later screen.
    expect(result.processedText).toBe('2*6*•*•');
  });

  it('what processedText keeps readable: menu choices, paging and back keys, skip; typed values are masked', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    // An info screen's paging, an input's back and skip keys are not typed values.
    expect((await d.engine.handle(request('1*98*0*0'), d.session())).processedText).toBe('1*98*0*0');
    const home = await d.send('');
    const back = await d.engine.handle(request('3*0'), d.session());
    expect(back.processedText).toBe('3*0');
    // `0` on an input goes back to the screen before it, with no "Invalid choice".
    expect(back.reply).toBe(home);
    await d.send('');
    const skipped = await d.engine.handle(request('3*00'), d.session());
    expect(skipped.processedText).toBe('3*00');
    expect(skipped.reply).toContain('Hello stranger!');
    const named = await d.engine.handle(request('3*00*Amina'), skipped.session);
    expect(named.processedText).toBe('3*00*•••••');
  });

  it('the exit key (an empty input) ends the session there: what follows it is not applied', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    const result = await d.engine.handle(request('2**6'), d.session());
    expect(result.reply).toBe(`END ${tree.system.goodbye['en'] ?? ''}`);
    expect(result.session).toBeUndefined();
  });

  it('a stored page beyond the last is shown as the last page', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    await d.send('2');
    const lastPage = await d.send('2*98');
    const stored = d.session() as UssdSession;
    const beyond = { ...stored, data: { ...stored.data, page: 9 } };
    const result = await d.engine.handle(request('2*98*98'), beyond);
    expect(result.reply).toBe(lastPage.replace(/^CON /, 'CON Invalid choice.\n\n'));
    expect((result.session?.data as { page: number }).page).toBe(1);
  });

  it('committed: set by a turn that wrote through the accounts, and only then', async () => {
    const d = engineDialer({ tree, actions });
    await d.send('');
    const browsing = await d.engine.handle(request('1'), d.session());
    expect(browsing.committed).toBeUndefined();
    await d.send('3');
    const signedIn = await d.engine.handle(request('3*Amina'), d.session());
    expect(signedIn.committed).toBe(true);
    expect(signedIn.reply).toContain('Hello Amina!');
  });
});

describe('cursorOf: a stored session the tree cannot continue is no cursor', () => {
  const base = (): UssdSession => {
    const cursor = freshCursor(tree, 'en');
    return {
      sessionId: 's',
      phoneNumber: TEST_PHONE,
      serviceCode: TEST_SERVICE_CODE,
      state: 'choices',
      message: '',
      isAuthenticated: false,
      processedText: '2',
      data: {
        v: 1,
        lang: cursor.lang,
        page: 0,
        params: {},
        history: [{ node: 'preMenu', params: {} }],
        form: {},
        secrets: {},
      },
    };
  };

  it('continues a session on a screen of the tree', () => {
    expect(cursorOf(base(), tree)).toMatchObject({
      node: 'choices',
      lang: 'en',
      history: [{ node: 'preMenu' }],
    });
  });

  it.each([
    ['on an unknown node', (s: UssdSession) => ({ ...s, state: 'gone' })],
    ['on an action node', (s: UssdSession) => ({ ...s, state: 'quickSignIn' })],
    ['on an end node', (s: UssdSession) => ({ ...s, state: 'done' })],
    [
      'with an unknown node in its history',
      (s: UssdSession) => ({ ...s, data: { ...s.data, history: [{ node: 'gone', params: {} }] } }),
    ],
    ['in a language the tree lacks', (s: UssdSession) => ({ ...s, data: { ...s.data, lang: 'fr' } })],
  ])('%s', (_name, change) => {
    expect(cursorOf(change(base()), tree)).toBeUndefined();
  });

  it('nodeOf names a node that does not exist', () => {
    expect(() => nodeOf(tree, 'gone')).toThrow('menu node "gone" does not exist');
  });
});

describe('helpers at their boundaries', () => {
  it('fillTemplate: cuts a value to its placeholder length, collapses runs of spaces, leaves missing ones empty', () => {
    const lengths = { name: 5, who: 3 };
    expect(fillTemplate('Hi {name}!', { name: 'Amina' }, lengths)).toBe('Hi Amina!');
    expect(fillTemplate('Hi {name}!', { name: 'Aminata' }, lengths)).toBe('Hi Amina!');
    expect(fillTemplate('Hi {name}!', { name: 'A  \t b' }, lengths)).toBe('Hi A b!');
    expect(fillTemplate('Hi {name}!', { name: 'A \n\n b c' }, lengths)).toBe('Hi A b c!');
    expect(fillTemplate('{who}/{name}', {}, lengths)).toBe('/');
    expect(fillTemplate('{unknown}', { unknown: 'x' }, lengths)).toBe('');
    expect(fillTemplate('No placeholder', { name: 'x' }, lengths)).toBe('No placeholder');
  });

  it('names: 2 to 60 characters after trimming', () => {
    expect(validators.fullName('  Jo  ')).toEqual({ ok: true, value: 'Jo' });
    expect(validators.fullName('A'.repeat(60))).toEqual({ ok: true, value: 'A'.repeat(60) });
    expect(validators.fullName('A'.repeat(61))).toEqual({ ok: false, notice: 'invalidName' });
    expect(validators.fullName('J')).toEqual({ ok: false, notice: 'invalidName' });
  });

  it('e-mail addresses: trimmed, at most 60 characters', () => {
    const sixty = `${'a'.repeat(48)}@example.org`;
    expect(sixty).toHaveLength(60);
    expect(validators.email(` ${sixty} `)).toEqual({ ok: true, value: sixty });
    expect(validators.email(`a${sixty}`)).toEqual({ ok: false, notice: 'invalidEmail' });
  });

  it('stored engine data: at most 100 history entries, each naming its node', () => {
    const data = (history: unknown[]) => ({
      v: 1,
      lang: 'en',
      page: 0,
      params: {},
      history,
      form: {},
      secrets: {},
    });
    const entry = { node: 'preMenu', params: {} };
    expect(readEngineData(data(Array.from({ length: 100 }, () => entry)))?.history).toHaveLength(100);
    expect(readEngineData(data(Array.from({ length: 101 }, () => entry)))).toBeUndefined();
    expect(readEngineData(data([{ node: 5, params: {} }]))).toBeUndefined();
    expect(readEngineData(data([{ params: {} }]))).toBeUndefined();
  });

  it('weak PINs: a run down must be down all the way', () => {
    expect(isWeakPin('54321')).toBe(true);
    expect(isWeakPin('10246')).toBe(false);
    expect(isWeakPin('21357')).toBe(false);
  });
});

describe('the context an action handler gets', () => {
  const contextAt = (lang = 'en') => {
    const cursor = {
      ...freshCursor(tree, lang),
      form: { name: 'Amina', email: 'a@b.co' },
      secrets: {} as Record<string, string>,
    };
    const turn = {
      tree,
      cursor,
      request: request(''),
      secrets: createSecretHasher(scryptCost(TEST_SCRYPT_LOG2N)),
    } as unknown as Turn;
    return { cursor, ctx: actionContext(turn, undefined) };
  };

  it('forget drops a saved value and its secret; the others stay', async () => {
    const { cursor, ctx } = contextAt();
    cursor.secrets['name'] = 'hash';
    ctx.forget('name' as never);
    expect(cursor.form).toEqual({ email: 'a@b.co' });
    expect(cursor.secrets).toEqual({});
    expect(await ctx.matchesSecret('name' as never, 'anything')).toBe(false);
  });

  it('matchesSecret: only a value whose hash was kept for that field', async () => {
    const { cursor, ctx } = contextAt();
    const hasher = createSecretHasher(scryptCost(TEST_SCRYPT_LOG2N));
    cursor.secrets['pin'] = await hasher.hash('48213');
    expect(await ctx.matchesSecret('pin' as never, '48213')).toBe(true);
    expect(await ctx.matchesSecret('pin' as never, '48214')).toBe(false);
    expect(await ctx.matchesSecret('newPin', '48213')).toBe(false);
  });

  it("login takes the customer's language only when the menus have it; setLanguage refuses others", () => {
    const { cursor, ctx } = contextAt();
    ctx.login({ customerId: 'C1', fullName: 'A', email: null, language: 'xx' as never, lockedAt: null });
    expect(cursor).toMatchObject({ isAuthenticated: true, customerId: 'C1', lang: 'en' });
    expect(() => ctx.setLanguage('xx' as never)).toThrow('language "xx" is not in the menus');
    expect(cursor.lang).toBe('en');
  });
});
