// The first hour of an SDK user, against the real service: the development signer of `/dev`, the oracle's DID
// from GET /config, `overrides.baseUrl` set once on the provider (no chain lookup), the scripted model's
// component and browser-tool phrases, and the user's preferences read back.
import {
  OraclesProvider,
  useChat,
  useOracleSessions,
  useUserPreferences,
  type IComponentMetadata,
} from '@open-oracles/oracles-client-sdk';
import { createDevSigner } from '@open-oracles/oracles-client-sdk/dev';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { TestApp } from '../helpers/app.js';
import { startRealOracle, textOf } from '../helpers/sdk-real/real-oracle.js';

describe('the five-minute path of sdk/README.md against the real service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startRealOracle({ ENABLED_PARTS: 'oracle' });
  });
  afterAll(() => app.close());

  it('a dev signer and overrides.baseUrl reach a streamed answer, a component, a browser tool and the preferences', async () => {
    const signer = await createDevSigner({ seed: `first-hour ${Math.random()}` });
    const { did: oracleDid } = (await (await fetch(`${app.url}/config`)).json()) as { did: string };
    const wrapper = ({ children }: { children: ReactNode }) => (
      <OraclesProvider
        initialWallet={{ address: 'ixo1dev', did: signer.did, matrix: { accessToken: '', homeServer: '' } }}
        transactSignX={() => Promise.reject(new Error('no payments in development'))}
        createDelegation={signer.createDelegation}
        createInvocation={signer.createInvocation}
        overrides={{ baseUrl: app.url }}
      >
        {children}
      </OraclesProvider>
    );
    const sessions = renderHook(() => useOracleSessions(oracleDid), { wrapper });
    let sessionId = '';
    await act(async () => {
      sessionId = (await sessions.result.current.createSession('First chat')).sessionId;
    });
    sessions.unmount();
    const WeatherCard = vi.fn(({ city }: { city: string }) => city);
    const pageTitle = vi.fn(() => 'My oracle app');
    const { result } = renderHook(
      () => ({
        chat: useChat({
          oracleDid,
          sessionId,
          onPaymentRequiredError: vi.fn(),
          uiComponents: { WeatherCard },
          browserTools: {
            pageTitle: {
              toolName: 'pageTitle',
              description: 'The page title',
              schema: z.object({}),
              fn: pageTitle,
            },
          },
        }),
        prefs: useUserPreferences(oracleDid),
      }),
      { wrapper },
    );
    await waitFor(() =>
      expect(result.current.chat.isRealTimeConnected && !result.current.chat.isLoading).toBe(true),
    );
    act(() => result.current.chat.sendMessage('hello there'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(textOf(result.current.chat.messages.at(-1))).toMatch(/You said: "hello there"/);

    act(() =>
      result.current.chat.sendMessage('show the WeatherCard with {"city": "Nairobi", "temperature": 24}'),
    );
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    const [text, part] = result.current.chat.messages.at(-1)?.content as [string, IComponentMetadata];
    expect(text).toBe('Here is the WeatherCard component.');
    expect(part).toMatchObject({
      name: 'WeatherCard',
      props: { args: { city: 'Nairobi', temperature: 24 } },
    });

    act(() => result.current.chat.sendMessage('use pageTitle'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(pageTitle).toHaveBeenCalledTimes(1);
    expect(textOf(result.current.chat.messages.at(-1))).toContain('My oracle app');

    await waitFor(() => expect(result.current.prefs.isLoading).toBe(false));
    expect(result.current.prefs.preferences).toBeNull();
    act(() =>
      result.current.chat.sendMessage('Please always reply tersely in Kiswahili and call yourself Juma'),
    );
    await waitFor(() => expect(result.current.prefs.preferences?.agentName).toBe('Juma'));
    expect(result.current.prefs.preferences).toMatchObject({ language: 'sw' });
  });
});
