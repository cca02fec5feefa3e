import { createOracleHandlers, type MockStep } from '@open-oracles/oracles-client-sdk/msw';

/**
 * The demo's oracle mocked in the browser by msw's service worker (`npm run demo:msw`; `npm run demo` uses the
 * real local service).
 * What it answers depends on the words of the message, like the server's scripted model.
 */
export const oracle = createOracleHandlers({
  apiUrl: 'http://oracle.demo',
  chainRestUrl: 'http://chain.demo',
  oracleDid: 'did:ixo:entity:demo-oracle',
  stepDelayMs: 35,
  sessions: [
    {
      sessionId: 'welcome',
      title: 'Welcome',
      createdAt: '2026-11-23T09:00:00.000Z',
      lastUpdatedAt: '2026-11-23T09:00:00.000Z',
      oracleName: 'Demo oracle',
      oracleDid: 'did:key:z6MkDemoOracle',
    },
  ],
  history: {
    welcome: [
      { id: 'w1', type: 'human', content: 'What can you do?' },
      {
        id: 'w2',
        type: 'ai',
        content:
          'Ask me about the weather, to read your note, to highlight a card, or to remember something (you approve it first). Turn on “out of credits” to see the paywall.',
      },
    ],
  },
  script: ({ body }) => {
    const text = body.message.toLowerCase();
    const steps: MockStep[] = [{ type: 'reasoning', text: 'Reading the request and picking a tool.' }];
    if (text.includes('weather')) {
      steps.push(
        { type: 'text', text: 'Let me look that up. ' },
        {
          type: 'tool_call',
          toolName: 'get_weather',
          args: { city: 'Nairobi' },
          output: { temperature: 24 },
        },
        {
          type: 'render_component',
          componentName: 'WeatherCard',
          args: { city: 'Nairobi', temperature: 24 },
        },
        { type: 'text', text: 'It is 24 °C in Nairobi today.' },
      );
    } else if (text.includes('note')) {
      steps.push(
        { type: 'text', text: 'Reading the note on your page… ' },
        { type: 'browser_tool_call', toolName: 'readPageNote', args: {} },
        { type: 'text', text: 'Got it: your note is saved in this conversation.' },
      );
    } else if (/\bremember\b/.test(text)) {
      // Waits for the app's Approve / Deny (the kit cannot word the answer by the decision, the real oracle does).
      steps.push(
        { type: 'text', text: 'I would like to save that to my memory. ' },
        {
          type: 'tool_call',
          toolName: 'remember_fact',
          args: { content: body.message },
          output: { saved: true },
          needsApproval: true,
        },
        { type: 'text', text: 'The card above says whether it ran.' },
      );
    } else if (text.includes('highlight')) {
      steps.push(
        { type: 'action_call', toolName: 'highlight_card', args: { cardId: 'card-2' } },
        { type: 'text', text: 'I highlighted the second card for you.' },
      );
    } else {
      steps.push({
        type: 'text',
        text: 'Hello! This answer streams word by word from a scripted oracle, through the same events the real service sends.',
      });
    }
    return steps;
  },
});
